// @ts-check
// `npm run lint` (with `prettier --check`); CI runs it before the tests. The recommended sets of ESLint and
// typescript-eslint, without type information: with it (the type-aware rules need the whole program compiled) a run
// took over 4 minutes on the CI machine, against well under one without.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', '.ci/build/', 'bench/results/', 'test/artifacts/'] },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.node } },
    rules: {
      // A module the command or request may not need is loaded where it is used, with `require(...) as typeof
      // import(...)`: an `import` at the top would load it on every start (the CLI's start-up target), and `import()`
      // would make the caller asynchronous.
      '@typescript-eslint/no-require-imports': 'off',
      // Matching control characters is what these expressions are for: terminal escapes stripped from output, control
      // characters refused in names and file names.
      'no-control-regex': 'off',
      // A leading underscore marks a value left unused on purpose: a field taken out of an object before the rest is
      // passed on, a parameter a signature requires (Express knows an error handler by its four parameters).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    languageOptions: { globals: { ...globals.jest } },
    rules: {
      // Tests read the API's and the CLI's JSON answers, whose shape is what their assertions check.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['bin/**/*.js', 'jest.config.js'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
