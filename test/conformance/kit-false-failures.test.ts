/**
 * Correct adapters the conformance kit must pass (a reviewer found each failing): a model that
 * always reasons on a host with no reasoning control (the request goes out the same, with a WARN
 * naming reasoning); a local server's placeholder key that is also the provider's name (`ollama`,
 * named in every error); a Gemini adapter that never reads `x-should-retry`, a header Google does
 * not send. Each runs only the case that failed it.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createGemini } from '../../src/providers/gemini/index.ts';
import { createOpenAICompatible, presets } from '../../src/providers/openai-compatible/index.ts';
import { runAdapterSuite } from '../../src/testing/index.ts';

const harness = { describe, it, beforeAll, afterAll };

runAdapterSuite({
  name: 'deepseek-reasoner (reasoning always on, no reasoning control)',
  protocol: 'openai-chat',
  model: 'deepseek:deepseek-reasoner',
  harness,
  only: ['reasoning'],
  createAdapter: (url, settings) =>
    createOpenAICompatible(presets.deepseek, { ...settings, apiKey: 'test-key', baseURL: `${url}/v1` }),
});

runAdapterSuite({
  name: "ollama with Ollama's placeholder key",
  protocol: 'openai-chat',
  model: 'ollama:llama3.2',
  harness,
  only: ['error-classes'],
  createAdapter: (url, settings) =>
    createOpenAICompatible(presets.ollama, { ...settings, apiKey: 'ollama', baseURL: `${url}/v1` }),
});

/** The emulator's responses without `x-should-retry`, as Google's API sends them. */
const withoutShouldRetry: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const headers = new Headers(response.headers);
  headers.delete('x-should-retry');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
};

runAdapterSuite({
  name: 'gemini that never reads x-should-retry',
  protocol: 'gemini',
  model: 'gemini:gemini-2.5-flash',
  harness,
  only: ['retry-after'],
  createAdapter: (url, settings) =>
    createGemini({ ...settings, apiKey: 'test-key', baseURL: `${url}/v1beta`, fetch: withoutShouldRetry }),
});
