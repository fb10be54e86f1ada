/**
 * What a request asks of its reply, remembered per call, holds on Vertex for a model named with its
 * publisher (`google/gemini-2.5-flash`), whose body is built and reply read on copies of the call's
 * context (`codecContext`, the bare model name): Gemini's `parallelToolCalls: false` (the reply
 * keeps its first call, `serial-calls.ts`) was remembered on the request's copy, so the reply
 * kept every call.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/core/logger.ts';
import type { CanonicalRequest } from '../../src/core/request.ts';
import { createVertex } from '../../src/providers/vertex/index.ts';
import { collectStream } from '../../src/testing/collect.ts';
import { type Emulator, startEmulator } from '../../src/testing/index.ts';
import { emulatorBaseURL } from '../support/provider-types.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator?.close();
});

const request: CanonicalRequest = {
  model: 'vertex:google/gemini-2.5-flash',
  transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Weather in Paris and Rome?' }] }],
  tools: [{ name: 'weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }],
  parallelToolCalls: false,
  maxOutputTokens: 64,
};

it.each([
  ['whole', false],
  ['streamed', true],
])(
  'Gemini on Vertex named google/…, parallel calls forbidden (%s): the reply keeps its first call, with the WARN',
  async (_mode, streamed) => {
    const logger = createMemoryLogger();
    const adapter = createVertex({
      project: 'my-project',
      location: 'us-central1',
      baseURL: emulatorBaseURL('vertex', emulator.url),
      getAccessToken: async () => 'ya29.per-call-state',
      maxRetries: 0,
      logger,
      env: {},
    });
    try {
      emulator.enqueue({
        type: 'scripted',
        content: [
          { type: 'tool-call', name: 'weather', input: { city: 'Paris' } },
          { type: 'tool-call', name: 'weather', input: { city: 'Rome' } },
        ],
      });
      const reply = streamed
        ? (await collectStream(adapter.stream(request))).response
        : await adapter.complete(request);
      expect(reply?.content.filter((part) => part.type === 'tool-call')).toMatchObject([
        { name: 'weather', input: { city: 'Paris' } },
      ]);
      expect(logger.entries.some((entry) => entry.message.startsWith('dropped a parallel tool call'))).toBe(
        true,
      );
    } finally {
      await adapter.close();
    }
  },
);
