/**
 * ESLint flat config: the JavaScript, typescript-eslint and eslint-plugin-svelte recommended rules, plus the
 * project's own limits — lines of at most 120 characters (Prettier's printWidth; comments and strings included),
 * functions of at most 80 lines in src/ and cli/ (docs/architecture.md "Reading the code"), and no Math.random
 * (every random draw goes through the seeded generator of src/core/rng.ts). Run by `npm run lint` and `.ci/run`.
 */
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'coverage/', 'public/', 'runs/', 'scratch/', 'tmp/', '.bench-kit/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...svelte.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node, ...globals.worker } },
    rules: {
      'max-len': ['error', { code: 120, tabWidth: 2, ignoreUrls: false }],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'Draw from the seeded generator (src/core/rng.ts).' },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: tseslint.parser } },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.svelte', 'cli/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }] },
  },
);
