/** The shared conformance suite for every OpenAI-compatible preset (a new host is a table row). */
import { createOpenAICompatible, presetNames, presets } from '../../src/providers/openai-compatible/index.ts';
import { runAdapterSuite } from './run-adapter-suite.ts';

for (const name of presetNames) {
  runAdapterSuite({
    name: `${name} (openai-compatible)`,
    api: 'openai-chat',
    model: `${name}:test-model`,
    createAdapter: (url, options) =>
      createOpenAICompatible(presets[name], {
        ...options,
        apiKey: 'test-key',
        baseURL: `${url}/v1`,
        retryBaseDelay: 1,
      }),
  });
}
