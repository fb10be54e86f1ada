/** The shared conformance suite for the OpenAI Responses adapter, stateless and stateful. */
import { createOpenAIResponses } from '../../src/providers/openai-responses/index.ts';
import { runAdapterSuite } from './run-adapter-suite.ts';

runAdapterSuite({
  name: 'openai-responses',
  api: 'openai-responses',
  model: 'openai:gpt-5-mini',
  reasoning: true,
  createAdapter: (url, options) =>
    createOpenAIResponses({ ...options, apiKey: 'test-key', baseURL: `${url}/v1`, retryBaseDelay: 1 }),
});

runAdapterSuite({
  name: 'openai-responses (previous-response state)',
  api: 'openai-responses',
  model: 'openai:gpt-5-mini',
  reasoning: true,
  createAdapter: (url, options) =>
    createOpenAIResponses({
      ...options,
      apiKey: 'test-key',
      baseURL: `${url}/v1`,
      retryBaseDelay: 1,
      state: 'previous-response',
    }),
});
