/** The public conformance suite against every OpenAI-compatible preset (a new host is a table row). */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createOpenAICompatible, presetNames, presets } from '../../src/providers/openai-compatible/index.ts';
import { runAdapterSuite } from '../../src/testing/index.ts';
import type { PresetName } from '../../src/providers/openai-compatible/index.ts';

/**
 * A model of each host that declares reasoning, for the reasoning case (the `test-model` of the
 * full run declares none except on OpenRouter). Left out: Mistral (Magistral thinks in `thinking`
 * items of a content array, which the emulator does not write) and hosts with no reasoning field
 * of their own (Perplexity, the local servers).
 */
const reasoningModels: Partial<Record<PresetName, string>> = {
  openrouter: 'test-model',
  groq: 'openai/gpt-oss-120b',
  deepseek: 'deepseek-reasoner',
  xai: 'grok-3-mini',
  together: 'openai/gpt-oss-120b',
  fireworks: 'accounts/fireworks/models/gpt-oss-120b',
  moonshot: 'kimi-k2-thinking',
  alibaba: 'qwen3-max',
  cerebras: 'gpt-oss-120b',
};

for (const name of presetNames) {
  // The emulator writes reasoning in the field the host writes it in: the first the preset reads.
  const chatReasoningField = presets[name].quirks.reasoningFields?.[0];
  const createAdapter = (url: string, settings: Parameters<typeof createOpenAICompatible>[1]) =>
    createOpenAICompatible(presets[name], { ...settings, apiKey: 'test-key', baseURL: `${url}/v1` });
  runAdapterSuite({
    name: `${name} (openai-compatible)`,
    protocol: 'openai-chat',
    model: `${name}:test-model`,
    harness: { describe, it, beforeAll, afterAll },
    ...(chatReasoningField === undefined ? {} : { chatReasoningField }),
    createAdapter,
  });
  const reasoningModel = reasoningModels[name];
  if (reasoningModel === undefined || reasoningModel === 'test-model') continue;
  runAdapterSuite({
    name: `${name} (openai-compatible, reasoning model ${reasoningModel})`,
    protocol: 'openai-chat',
    model: `${name}:${reasoningModel}`,
    harness: { describe, it, beforeAll, afterAll },
    only: ['reasoning'],
    ...(chatReasoningField === undefined ? {} : { chatReasoningField }),
    createAdapter,
  });
}
