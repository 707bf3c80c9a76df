/** Svelte compiler options read by @sveltejs/vite-plugin-svelte: every component uses runes (Svelte 5). */
export default { compilerOptions: { runes: true } };
