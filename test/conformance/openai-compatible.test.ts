/** The public conformance suite against every OpenAI-compatible preset (a new host is a table row). */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createOpenAICompatible, presetNames, presets } from '../../src/providers/openai-compatible/index.ts';
import { runAdapterSuite, type SuiteCaseName } from '../../src/testing/index.ts';
import type { PresetName } from '../../src/providers/openai-compatible/index.ts';

/** Cases that do not apply to a host, with the reason. */
const skips: Partial<Record<PresetName, Partial<Record<SuiteCaseName, string>>>> = {
  openrouter: {
    reasoning:
      "the emulator streams Chat Completions reasoning as DeepSeek's `reasoning_content`; OpenRouter sends " +
      '`reasoning` / `reasoning_details`, covered in src/providers/openai-chat/reasoning-details.test.ts',
  },
};

for (const name of presetNames) {
  runAdapterSuite({
    name: `${name} (openai-compatible)`,
    protocol: 'openai-chat',
    model: `${name}:test-model`,
    harness: { describe, it, beforeAll, afterAll },
    skip: skips[name],
    createAdapter: (url, settings) =>
      createOpenAICompatible(presets[name], { ...settings, apiKey: 'test-key', baseURL: `${url}/v1` }),
  });
}
