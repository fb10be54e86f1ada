/** The public conformance suite against the Gemini adapter. */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createGemini } from '../../src/providers/gemini/index.ts';
import { runAdapterSuite } from '../../src/testing/index.ts';

runAdapterSuite({
  name: 'gemini',
  protocol: 'gemini',
  model: 'gemini:gemini-2.5-flash',
  harness: { describe, it, beforeAll, afterAll },
  createAdapter: (url, settings) =>
    createGemini({ ...settings, apiKey: 'test-key', baseURL: `${url}/v1beta` }),
});
