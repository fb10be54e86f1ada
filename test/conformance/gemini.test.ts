/** The shared conformance suite for the gemini adapter. */
import { createGemini } from '../../src/providers/gemini/index.ts';
import { runAdapterSuite } from './run-adapter-suite.ts';

runAdapterSuite({
  name: 'gemini',
  api: 'gemini',
  model: 'gemini:gemini-2.5-flash',
  reasoning: true,
  createAdapter: (url, options) =>
    createGemini({ ...options, apiKey: 'test-key', baseURL: `${url}/v1beta`, retryBaseDelay: 1 }),
});
