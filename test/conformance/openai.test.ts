/** The shared conformance suite for the openai adapter. */
import { createOpenAI } from '../../src/providers/openai-chat/index.ts';
import { runAdapterSuite } from './run-adapter-suite.ts';

runAdapterSuite({
  name: 'openai',
  api: 'openai-chat',
  model: 'openai:gpt-4.1',
  reasoning: false,
  createAdapter: (url, options) =>
    createOpenAI({ ...options, apiKey: 'test-key', baseURL: `${url}/v1`, retryBaseDelay: 1 }),
});
