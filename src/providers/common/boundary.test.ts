import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Adapter } from '../../core/adapter.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { userText } from '../../core/transcript.ts';
import { collectStream } from '../../testing/collect.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { createAnthropic } from '../anthropic/index.ts';
import { createGemini } from '../gemini/index.ts';
import { createOpenAI } from '../openai-chat/index.ts';
import { createOpenAICompatible, presets } from '../openai-compatible/index.ts';

const valid: CanonicalRequest = { model: 'model-x', transcript: [userText('hi')], maxOutputTokens: 10 };

let emulator: Emulator;
let unhandled: unknown[];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(async () => {
  emulator = await startEmulator();
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
});
afterEach(async () => {
  process.off('unhandledRejection', onUnhandled);
  await emulator.close();
});

function adapters(): Adapter[] {
  const options = { baseURL: emulator.url, maxRetries: 0 };
  return [
    createAnthropic({ ...options, apiKey: 'test-anthropic-key-0000' }),
    createOpenAI({ ...options, apiKey: 'test-openai-key-0000' }),
    createGemini({ ...options, apiKey: 'test-gemini-key-0000' }),
    createOpenAICompatible(presets.groq, { ...options, apiKey: 'test-groq-key-0000' }),
  ];
}

const badCalls: Array<[string, unknown, unknown, RegExp]> = [
  ['a null request', null, undefined, /\(root\)/],
  ['an undefined model', { ...valid, model: undefined }, undefined, /model/],
  ['null call options', valid, null, /options/],
  ['a signal that is not an AbortSignal', valid, { signal: {} }, /options\.signal/],
  ['a NaN temperature', { ...valid, temperature: Number.NaN }, undefined, /temperature/],
  ['topP: -5', { ...valid, topP: -5 }, undefined, /topP/],
  [
    'an unknown item kind',
    { ...valid, transcript: [{ kind: 'narrator', parts: [{ type: 'text', text: 'x' }] }] },
    undefined,
    /transcript\[0\]\.kind/,
  ],
  [
    'a string tool input',
    {
      ...valid,
      transcript: [
        userText('go'),
        { kind: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'run', input: 'x' }] },
        {
          kind: 'tool',
          parts: [
            { type: 'tool-result', callId: 'c1', output: { type: 'text', text: 'ok' }, isError: false },
          ],
        },
      ],
    },
    undefined,
    /transcript\[1\]\.parts\[0\]\.input/,
  ],
  [
    'an unanswered tool call',
    {
      ...valid,
      transcript: [
        userText('go'),
        { kind: 'assistant', parts: [{ type: 'tool-call', id: 'toolu_orphan', name: 'run', input: {} }] },
      ],
    },
    undefined,
    /toolu_orphan/,
  ],
  [
    'a tool result with no call',
    {
      ...valid,
      transcript: [
        userText('go'),
        {
          kind: 'tool',
          parts: [
            {
              type: 'tool-result',
              callId: 'call_ghost',
              output: { type: 'text', text: 'ok' },
              isError: false,
            },
          ],
        },
      ],
    },
    undefined,
    /call_ghost/,
  ],
  ['maxOutputTokens: 0', { ...valid, maxOutputTokens: 0 }, undefined, /maxOutputTokens/],
];

describe('no bad request escapes as a crash (every adapter, stream and complete)', () => {
  it.each(badCalls)(
    '%s: stream() ends with finish(error) then InvalidRequestError; complete() rejects; no HTTP call',
    async (_name, request, options, mentions) => {
      for (const adapter of adapters()) {
        const stream = adapter.stream(request as CanonicalRequest, options as never);
        const { events, error } = await collectStream(stream);
        assertStreamInvariants(events);
        expect(events.map((event) => event.type)).toEqual(['message-start', 'finish']);
        expect(events.at(-1)).toMatchObject({ type: 'finish', response: { finishReason: 'error' } });
        expect(error).toMatchObject({ errorClass: 'invalid_request', providerCode: 'invalid_request_shape' });
        expect((error as Error).message).toMatch(mentions);
        await expect(adapter.complete(request as CanonicalRequest, options as never)).rejects.toMatchObject({
          errorClass: 'invalid_request',
        });
        await adapter.close();
      }
      expect(emulator.requests).toHaveLength(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    },
  );

  it('a circular request is rejected with its path, not a stack overflow', async () => {
    const metadata: Record<string, unknown> = {};
    metadata['app.loop'] = metadata;
    const [adapter] = adapters();
    await expect(adapter!.complete({ ...valid, metadata } as never)).rejects.toThrow(/circular reference/);
    expect(emulator.requests).toHaveLength(0);
  });

  it('stream() with a bad request never throws synchronously and result() rejects', async () => {
    for (const adapter of adapters()) {
      let stream: ReturnType<Adapter['stream']> | undefined;
      expect(() => {
        stream = adapter.stream(null as never, null as never);
      }).not.toThrow();
      await expect(stream!.result()).rejects.toMatchObject({ errorClass: 'invalid_request' });
    }
    expect(unhandled).toEqual([]);
  });
});
