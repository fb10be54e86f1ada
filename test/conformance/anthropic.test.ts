/** The shared conformance suite for the anthropic adapter. */
import { createAnthropic } from '../../src/providers/anthropic/index.ts';
import { runAdapterSuite } from './run-adapter-suite.ts';

runAdapterSuite({
  name: 'anthropic',
  api: 'anthropic-messages',
  model: 'anthropic:claude-sonnet-4-5',
  reasoning: true,
  createAdapter: (url, options) =>
    createAnthropic({ ...options, apiKey: 'test-key', baseURL: `${url}/v1`, retryBaseDelay: 1 }),
});
