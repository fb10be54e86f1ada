/** The shared conformance suite for the OpenAI Responses adapter, stateless and stateful. */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createOpenAIResponses } from '../../src/providers/openai-responses/index.ts';
import { runAdapterSuite } from '../../src/testing/index.ts';

runAdapterSuite({
  name: 'openai-responses',
  protocol: 'openai-responses',
  model: 'openai:gpt-5-mini',
  harness: { describe, it, beforeAll, afterAll },
  createAdapter: (url, options) =>
    createOpenAIResponses({ ...options, apiKey: 'test-key', baseURL: `${url}/v1` }),
});

runAdapterSuite({
  name: 'openai-responses (previous-response state)',
  protocol: 'openai-responses',
  model: 'openai:gpt-5-mini',
  harness: { describe, it, beforeAll, afterAll },
  createAdapter: (url, options) =>
    createOpenAIResponses({
      ...options,
      apiKey: 'test-key',
      baseURL: `${url}/v1`,
      state: 'previous-response',
    }),
});
