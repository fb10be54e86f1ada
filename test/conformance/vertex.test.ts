/**
 * The public conformance suite against the Vertex adapter: Gemini (Google's protocol), Claude
 * (Anthropic's, via rawPredict), and the Chat Completions publishers: a MaaS open model (the
 * OpenAI-compatible endpoint) and Mistral AI (rawPredict).
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createVertex } from '../../src/providers/vertex/index.ts';
import { runAdapterSuite } from '../../src/testing/index.ts';

/**
 * An OAuth token source as a caller supplies it (`getAccessToken`), caching on its own side: each
 * call's token is fresh, so a 401 is final (the reused-token refresh is tested in vertex/auth.test.ts).
 */
const getAccessToken = async () => 'ya29.emulator-token';
const endpoint = (url: string) => `${url}/v1/projects/conformance/locations/us-east5`;

runAdapterSuite({
  name: 'vertex gemini',
  protocol: 'gemini',
  model: 'vertex:gemini-2.5-flash',
  harness: { describe, it, beforeAll, afterAll },
  createAdapter: (url, settings) =>
    createVertex({ ...settings, getAccessToken, env: {}, baseURL: endpoint(url) }),
});

runAdapterSuite({
  name: 'vertex anthropic',
  protocol: 'vertex-anthropic',
  model: 'vertex:claude-sonnet-4-5@20250929',
  harness: { describe, it, beforeAll, afterAll },
  createAdapter: (url, settings) =>
    createVertex({ ...settings, getAccessToken, env: {}, baseURL: endpoint(url) }),
});

runAdapterSuite({
  name: 'vertex maas (Llama through the OpenAI-compatible endpoint)',
  protocol: 'openai-chat',
  model: 'vertex:meta/llama-3.3-70b-instruct-maas',
  harness: { describe, it, beforeAll, afterAll },
  createAdapter: (url, settings) =>
    createVertex({ ...settings, getAccessToken, env: {}, baseURL: endpoint(url) }),
});

runAdapterSuite({
  name: 'vertex mistral (Chat Completions through rawPredict)',
  protocol: 'openai-chat',
  model: 'vertex:mistral-medium-3',
  harness: { describe, it, beforeAll, afterAll },
  createAdapter: (url, settings) =>
    createVertex({ ...settings, getAccessToken, env: {}, baseURL: endpoint(url) }),
});
