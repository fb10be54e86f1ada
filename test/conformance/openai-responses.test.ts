/** The public conformance suite against the OpenAI Responses adapter. */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createOpenAIResponses } from '../../src/providers/openai-responses/index.ts';
import { runAdapterSuite } from '../../src/testing/index.ts';

runAdapterSuite({
  name: 'openai-responses',
  api: 'openai-responses',
  model: 'openai:gpt-4.1',
  harness: { describe, it, beforeAll, afterAll },
  createAdapter: (url, settings) =>
    createOpenAIResponses({ ...settings, apiKey: 'test-key', baseURL: `${url}/v1` }),
});
