// @ts-check
/**
 * The linter `npm test` runs (`npm run lint`), with zero warnings allowed. Besides the usual
 * JavaScript and TypeScript rules, it holds the architecture's one hard boundary: code that can
 * reach the browser (islands, `lib/` outside `lib/server/`, and the `<script>` blocks of .astro
 * files) never imports server code, which would ship database and storage code, or secrets, to
 * visitors (STYLE.md 'Layout').
 */
import js from '@eslint/js';
import astro from 'eslint-plugin-astro';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Imports that name server-only code, whatever the relative path. */
const SERVER_ONLY = {
  patterns: [
    {
      // Any path through a `server` folder: from inside lib/, `../server/…` reaches it too.
      group: ['**/server', '**/server/**', 'node:*'],
      message: 'El código que llega al navegador no puede importar código del servidor (src/lib/server) ni módulos de Node.',
    },
  ],
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.astro/', 'data/', '.e2e-data*/', 'test-results/', 'playwright-report/', 'drizzle/meta/', 'public/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...astro.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      // The archive strips and refuses control characters on purpose (NUL bytes, bidi overrides…):
      // those expressions name them deliberately.
      'no-control-regex': 'off',
      // `_name` marks a parameter kept for its position (an interface's signature).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Tests read JSON answers whose shape is the assertion itself.
    files: ['tests/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/islands/**/*.{ts,tsx}', 'src/lib/**/*.{ts,tsx}', 'src/**/*.astro/*.{js,ts}'],
    ignores: ['src/lib/server/**'],
    rules: { 'no-restricted-imports': ['error', SERVER_ONLY] },
  },
);
