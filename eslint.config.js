/**
 * ESLint flat config: the JavaScript, typescript-eslint and eslint-plugin-svelte recommended rules, plus the
 * project's own limits — lines of at most 120 characters (Prettier's printWidth; comments and strings included)
 * and of at most 120 bytes in UTF-8 (local/max-line-bytes, what `awk 'length > 120'` counts), functions of at most
 * 80 lines in src/ and cli/ (docs/architecture.md "Reading and changing the code"), and no Math.random (every
 * random draw goes through the seeded generator of src/core/rng.ts). Run by `npm run lint` and `.ci/run`.
 */
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';

const MAX_LINE_BYTES = 120;

/**
 * `max-len` counts UTF-16 code units, so a line of 120 characters with a few of × ℓ − → is still over 120 bytes;
 * the line check `awk 'length > 120'` counts bytes. This rule reports every line (split on LF, as awk does) whose
 * UTF-8 length exceeds MAX_LINE_BYTES, ignoring nothing: comments, strings, URLs and markup alike.
 */
const maxLineBytes = {
  meta: {
    type: 'layout',
    docs: { description: `lines of at most ${MAX_LINE_BYTES} bytes in UTF-8` },
    schema: [],
    messages: { tooLong: 'This line is {{bytes}} bytes in UTF-8. Maximum allowed is {{max}}.' },
  },
  create(context) {
    const encoder = new TextEncoder();
    return {
      Program() {
        const lines = context.sourceCode.text.split('\n');
        lines.forEach((text, i) => {
          const bytes = encoder.encode(text).length;
          if (bytes <= MAX_LINE_BYTES) return;
          context.report({
            loc: { start: { line: i + 1, column: 0 }, end: { line: i + 1, column: text.length } },
            messageId: 'tooLong',
            data: { bytes: String(bytes), max: String(MAX_LINE_BYTES) },
          });
        });
      },
    };
  },
};

const local = { rules: { 'max-line-bytes': maxLineBytes } };

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'coverage/', 'public/', 'runs/', 'scratch/', 'tmp/', '.bench-kit/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...svelte.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node, ...globals.worker } },
    plugins: { local },
    rules: {
      'local/max-line-bytes': 'error',
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
