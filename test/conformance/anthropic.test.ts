/** The public conformance suite against the Anthropic adapter. */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createAnthropic } from '../../src/providers/anthropic/index.ts';
import { runAdapterSuite } from '../../src/testing/index.ts';

runAdapterSuite({
  name: 'anthropic',
  protocol: 'anthropic-messages',
  model: 'anthropic:claude-sonnet-4-5',
  harness: { describe, it, beforeAll, afterAll },
  createAdapter: (url, settings) =>
    createAnthropic({ ...settings, apiKey: 'test-key', baseURL: `${url}/v1` }),
});
