// Lint configuration: ESLint recommended + typescript-eslint recommended (syntax-level, fast).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Test code (tests and their helpers) may use the test kit at any layer. */
const testCode = ['**/*.test.ts', '**/test-support.ts', '**/test-provider.ts', '**/test-server.ts'];

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'bench/node_modules/',
      'bench/experiments/',
      '**/__fixtures__/',
      '**/__snapshots__/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-constant-condition': ['error', { checkLoops: false }],
      eqeqeq: ['error', 'always'],
      'prefer-const': 'error',
    },
  },
  // File size: 800 lines is the ceiling for hand-written source, 1,000 for tests (house style);
  // generated data files are exempt.
  {
    files: ['src/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    ignores: ['**/*.test.ts', '**/*.generated.ts'],
    rules: { 'max-lines': ['error', { max: 800, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ['**/*.test.ts'],
    rules: { 'max-lines': ['error', { max: 1000, skipBlankLines: true, skipComments: true }] },
  },
  // Layering (CONTRIBUTING.md): src/core ← src/transport ← src/providers ← consumers; never sideways up.
  layer('src/core/**/*.ts', ['transport', 'providers', 'testing', 'cli'], 'src/core is pure'),
  layer('src/transport/**/*.ts', ['providers', 'testing', 'cli'], 'src/transport sits below the providers'),
  layer('src/providers/**/*.ts', ['testing', 'cli'], 'providers do not depend on the test kit or the CLI'),
  layer('src/testing/**/*.ts', ['cli'], 'the test kit does not depend on the CLI'),
  layer(
    'src/codecs/**/*.ts',
    ['transport', 'providers', 'testing', 'cli', 'gateway', 'state'],
    'src/codecs sit on src/core only (shared by the gateway and the emulator)',
  ),
  layer('src/gateway/**/*.ts', ['testing', 'cli'], 'the gateway does not depend on the test kit or the CLI'),
  layer('src/state/**/*.ts', ['providers', 'testing', 'cli', 'gateway'], 'src/state sits below the gateway'),
);

/** A config block forbidding imports of the named `src/` folders from `files` (test code excepted). */
function layer(files, forbidden, message) {
  return {
    files: [files],
    ignores: testCode,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: forbidden.flatMap((folder) => [`**/${folder}/*`, `**/${folder}/**`, `../${folder}/*`]),
              message: `${message} (layering, CONTRIBUTING.md).`,
            },
          ],
        },
      ],
    },
  };
}
