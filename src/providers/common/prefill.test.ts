/**
 * A prefill (a transcript ending with an assistant message) toward a provider that cannot continue
 * it (OpenAI Chat): the call WARNs that the message went as an earlier turn, and a reply that
 * repeats the prefill has the repeat cut, whole and streamed, so prefill + reply reads as one
 * message; a reply that does not repeat it, or only begins to, is never touched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolCallId } from '../../core/ids.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { LogFields } from '../../core/logger.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { createOpenAI } from '../openai-chat/index.ts';
import { collectStream, textOf } from '../openai-chat/test-support.ts';
import { prefillOf } from './prefill.ts';

let emulator: Emulator;
const warnings: Array<{ message: string; fields: LogFields }> = [];

beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

const adapter = () =>
  createOpenAI({
    apiKey: 'test-key',
    baseURL: `${emulator.url}/v1`,
    maxRetries: 0,
    logger: { warn: (message, fields) => warnings.push({ message, fields }) },
  });

const warning = 'sent the trailing assistant message as an earlier turn: the provider cannot continue it';

/** A request whose transcript ends with the assistant's `prefill`. */
function prefilled(prefill: string): CanonicalRequest {
  return {
    model: 'openai:gpt-4.1-mini',
    maxOutputTokens: 100,
    transcript: [
      { kind: 'user', parts: [{ type: 'text', text: 'Give me {"a":1} as JSON.' }] },
      { kind: 'assistant', parts: [{ type: 'text', text: prefill }] },
    ],
  };
}

/** Runs `request` with the scripted `reply` (one character per delta when streamed): the reply's text and the WARNs. */
async function run(request: CanonicalRequest, reply: string, stream: boolean) {
  const before = warnings.length;
  emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: reply }], chunkSize: 1 });
  const model = adapter();
  if (!stream) {
    const response = await model.complete(request);
    return { text: textOf(response), warned: warnings.slice(before), deltas: [] as string[] };
  }
  const { events, response } = await collectStream(model.stream(request));
  const deltas = events.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : []));
  expect(deltas.join('')).toBe(textOf(response));
  return { text: textOf(response), warned: warnings.slice(before), deltas };
}

describe.each([false, true])('toward OpenAI Chat (streamed: %s)', (stream) => {
  it('a reply that repeats the prefill loses the repeat, with the WARN', async () => {
    const { text, warned } = await run(prefilled('{'), '{"a":1}', stream);
    expect(text).toBe('"a":1}');
    expect(warned).toEqual([
      {
        message: warning,
        fields: expect.objectContaining({ adapter: 'openai', itemIndex: 1, prefillChars: 1 }),
      },
    ]);
    const sent = emulator.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> };
    expect(sent.messages.at(-1)).toMatchObject({ role: 'assistant', content: '{' });
  });

  it('a reply that does not repeat it is untouched (the WARN still says the message was an earlier turn)', async () => {
    const { text, warned } = await run(prefilled('{"a":'), ' 1}', stream);
    expect(text).toBe(' 1}');
    expect(warned.map((entry) => entry.message)).toEqual([warning]);
  });

  it('a reply that only begins the prefill, or leaves it late, loses nothing', async () => {
    expect((await run(prefilled('{"answer":'), '{"ans', stream)).text).toBe('{"ans');
    expect((await run(prefilled('{"answer":'), '{"answer"? no', stream)).text).toBe('{"answer"? no');
  });

  it('a longer prefill repeated across many deltas is cut whole; the rest streams as it comes', async () => {
    const { text, deltas } = await run(prefilled('The answer is'), 'The answer is 42, because.', stream);
    expect(text).toBe(' 42, because.');
    if (stream) expect(deltas.length).toBeGreaterThan(5);
  });
});

it('a transcript ending with a user turn, or an assistant tool call, is no prefill', async () => {
  const request = prefilled('{');
  expect(prefillOf(request)).toBe('{');
  expect(prefillOf({ transcript: request.transcript.slice(0, 1) })).toBeUndefined();
  const call = { type: 'tool-call' as const, id: toolCallId('call_1'), name: 'lookup', input: {} };
  const calling = [...request.transcript.slice(0, 1), { kind: 'assistant' as const, parts: [call] }];
  expect(prefillOf({ transcript: calling })).toBeUndefined();
  const before = warnings.length;
  emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: '{"a":1}' }] });
  const response = await adapter().complete({ ...request, transcript: request.transcript.slice(0, 1) });
  expect(textOf(response)).toBe('{"a":1}');
  expect(warnings.slice(before)).toEqual([]);
});
