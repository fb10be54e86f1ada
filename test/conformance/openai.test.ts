/** The public conformance suite against the OpenAI Chat Completions adapter. */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createOpenAI } from '../../src/providers/openai-chat/index.ts';
import { runAdapterSuite } from '../../src/testing/index.ts';

runAdapterSuite({
  name: 'openai',
  protocol: 'openai-chat',
  model: 'openai:gpt-4.1',
  harness: { describe, it, beforeAll, afterAll },
  createAdapter: (url, settings) => createOpenAI({ ...settings, apiKey: 'test-key', baseURL: `${url}/v1` }),
});
