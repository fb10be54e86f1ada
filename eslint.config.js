// Lint configuration: ESLint recommended + typescript-eslint recommended (syntax-level, fast).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The layers: each `src` folder (`root` is the files directly in src/) and the folders it may
 * import. Every folder has a row (test/layering.test.ts fails on a folder without one, on an import
 * its row does not allow, and on any import cycle). Lower layers first.
 */
export const layers = {
  core: [],
  transport: ['core'],
  observers: ['core'],
  pricing: ['core'],
  schemas: ['core'],
  codecs: ['core'],
  'providers/catalog': ['core'],
  'providers/common': ['core', 'transport'],
  // Shared OpenAI code (Azure, host capabilities, model lists, tokens, xAI facts, …) both OpenAI
  // protocol folders use; the protocol folders stay side by side and never import each other.
  'providers/openai': ['core', 'providers/common'],
  'providers/anthropic': ['core', 'transport', 'providers/common', 'providers/catalog'],
  'providers/gemini': ['core', 'transport', 'providers/common', 'providers/catalog'],
  'providers/openai-chat': ['core', 'transport', 'providers/common', 'providers/catalog', 'providers/openai'],
  'providers/openai-compatible': [
    'core',
    'transport',
    'providers/common',
    'providers/catalog',
    'providers/openai',
    'providers/openai-chat',
  ],
  'providers/openai-responses': [
    'core',
    'transport',
    'providers/common',
    'providers/catalog',
    'providers/openai',
  ],
  // The clouds serve the vendors' own protocols: Bedrock InvokeModel speaks Anthropic; Vertex Gemini,
  // Anthropic, and Chat Completions (Mistral AI with the Mistral preset's quirks, the MaaS open models).
  'providers/bedrock': ['core', 'transport', 'providers/common', 'providers/catalog', 'providers/anthropic'],
  'providers/vertex': [
    'core',
    'transport',
    'providers/common',
    'providers/catalog',
    'providers/anthropic',
    'providers/gemini',
    'providers/openai-chat',
    'providers/openai-compatible',
  ],
  registry: ['core', 'pricing', 'providers/*'],
  routing: ['core', 'observers', 'pricing', 'providers/common', 'registry'],
  state: ['core', 'routing'],
  conversation: ['core', 'pricing', 'routing', 'schemas'],
  agent: ['core', 'observers', 'schemas'],
  root: ['core', 'conversation', 'observers', 'pricing', 'registry', 'routing', 'schemas', 'state'],
  testing: ['core', 'transport', 'codecs', 'providers/common'],
  gateway: [
    'core',
    'codecs',
    'transport',
    'observers',
    'pricing',
    'schemas',
    'providers/common',
    'registry',
    'routing',
    'state',
    'conversation',
    'root',
  ],
  cli: [
    'core',
    'transport',
    'observers',
    'pricing',
    'schemas',
    'codecs',
    'providers/*',
    'registry',
    'routing',
    'state',
    'conversation',
    'agent',
    'root',
    'testing',
    'gateway',
  ],
};

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
  // One JSON reader: V8's `JSON.parse` (Node 24) can change an escaped object key (src/core/json-text.ts).
  {
    files: ['src/**/*.ts'],
    ignores: [...testCode, 'src/core/json-text.ts', '**/*.generated.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'JSON',
          property: 'parse',
          message:
            "Parse outside text with parseJson (src/core/json-text.ts): V8's JSON.parse can return an escaped key changed.",
        },
      ],
    },
  },
  // Layering (CONTRIBUTING.md): every src folder imports only the folders its row of `layers` names.
  ...Object.entries(layers).flatMap(([folder, allowed]) => layerRule(folder, allowed)),
);

/**
 * The layer rule of one folder (none when it may import every folder): imports of every other src folder its row does not allow are
 * refused (test code excepted). Import specifiers are matched by folder name; test/layering.test.ts
 * checks the same table on resolved paths, root files included, and that nothing imports in a cycle.
 */
function layerRule(folder, allowed) {
  const permitted = expandLayers(allowed);
  const provider = folder.startsWith('providers/');
  const forbidden = Object.keys(layers).filter(
    (other) => other !== folder && other !== 'root' && !permitted.includes(other),
  );
  const patterns = forbidden.flatMap((other) => {
    if (!other.startsWith('providers/')) return [`**/${other}/*`, `**/${other}/**`];
    // A sibling provider folder is `../name/…` from a provider folder, `…/providers/name/…` elsewhere.
    const name = other.slice('providers/'.length);
    return provider
      ? [`../${name}/*`, `../${name}/**`]
      : [`**/providers/${name}/*`, `**/providers/${name}/**`];
  });
  if (patterns.length === 0) return [];
  const files = folder === 'root' ? ['src/*.ts'] : [`src/${folder}/**/*.ts`];
  return {
    files,
    ignores: testCode,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: patterns,
              message: `src/${folder} may import only ${permitted.join(', ') || 'nothing outside itself'} (layers in eslint.config.js, CONTRIBUTING.md).`,
            },
          ],
        },
      ],
    },
  };
}

/** A row's folders with `providers/*` expanded to every provider folder. */
export function expandLayers(allowed) {
  return allowed.flatMap((entry) =>
    entry === 'providers/*'
      ? Object.keys(layers).filter((folder) => folder.startsWith('providers/'))
      : [entry],
  );
}
