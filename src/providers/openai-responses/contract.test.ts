/** Per-adapter contract tests of the Responses adapter (docs/contract.md §10.1), against the emulator. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession } from '../../core/adapter.ts';
import type { ErrorClass } from '../../core/errors/error-class.ts';
import type { StreamEvent } from '../../core/events.ts';
import { toolCallId } from '../../core/ids.ts';
import type { JsonObject } from '../../core/json.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { Item, Part } from '../../core/transcript.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { createOpenAIResponses } from './index.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

const responses = () =>
  createOpenAIResponses({ apiKey: 'test-key', baseURL: `${emulator.url}/v1`, maxRetries: 0 });

const request = (transcript: Item[]): CanonicalRequest => ({
  model: 'openai:gpt-5-mini',
  transcript,
  maxOutputTokens: 256,
});
const user = (text: string): Item => ({ kind: 'user', parts: [{ type: 'text', text }] });

function lastBody(): { instructions?: string; input: Array<Record<string, unknown>> } {
  return emulator.requests.at(-1)?.body as { instructions?: string; input: Array<Record<string, unknown>> };
}

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const everyShape: JsonObject = {
  text: 'héllo "quoted" \\ \n 🚀',
  integer: 42,
  float: -3.25,
  yes: true,
  nothing: null,
  list: [1, 'two', { three: [3] }, [], null],
  nested: { deeper: { empty: {} } },
};

describe('per-adapter tests (docs/contract.md §10.1)', () => {
  it('2. tool call serialization: function_call arguments and function_call_output carry the JSON as is', async () => {
    const id = toolCallId('tu_01JSHAPES0000000000000000A');
    emulator.enqueue({
      type: 'scripted',
      chunkSize: 5,
      content: [{ type: 'tool-call', name: 'shapes', input: everyShape }],
    });
    const events = await collect(
      responses().stream(
        request([
          user('x'),
          { kind: 'assistant', parts: [{ type: 'tool-call', id, name: 'shapes', input: everyShape }] },
          {
            kind: 'tool',
            parts: [
              {
                type: 'tool-result',
                callId: id,
                output: { type: 'json', value: everyShape },
                isError: false,
              },
            ],
          },
        ]),
      ),
    );
    const call = lastBody().input.find((item) => item.type === 'function_call')!;
    const output = lastBody().input.find((item) => item.type === 'function_call_output')!;
    expect(JSON.parse(call.arguments as string)).toEqual(everyShape);
    expect(JSON.parse(output.output as string)).toEqual(everyShape);
    expect(output.call_id).toBe(call.call_id);
    const finish = events.at(-1) as Extract<StreamEvent, { type: 'finish' }>;
    expect(finish.response.content.filter((part) => part.type === 'tool-call')).toMatchObject([
      { name: 'shapes', input: everyShape },
    ]);
    assertStreamInvariants(events);
  });

  it('3. tool id round-trip: a call the host issued goes back with its own call_id', async () => {
    const session = createSession();
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'tool-call', id: 'call_first', name: 'f', input: {} }],
    });
    const first = await responses().complete(request([user('x')]), { session });
    const canonical = (
      first.content.find((part) => part.type === 'tool-call') as Extract<Part, { type: 'tool-call' }>
    ).id;
    expect(canonical).toMatch(/^tu_/);
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
    await responses().complete(
      request([
        user('x'),
        { kind: 'assistant', parts: first.content },
        {
          kind: 'tool',
          parts: [
            { type: 'tool-result', callId: canonical, output: { type: 'text', text: 'ok' }, isError: false },
          ],
        },
      ]),
      { session },
    );
    const input = lastBody().input;
    expect(input.find((item) => item.type === 'function_call')?.call_id).toBe('call_first');
    expect(input.find((item) => item.type === 'function_call_output')?.call_id).toBe('call_first');
  });

  it('4. system prompt placement: system items joined into instructions, never an input item', async () => {
    const system = (text: string): Item => ({ kind: 'system', parts: [{ type: 'text', text }] });
    const placements: Array<[string | undefined, number]> = [];
    for (const transcript of [
      [user('Hi')],
      [system('One.'), user('Hi')],
      [system('One.'), system('Two.'), user('Hi')],
    ]) {
      emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
      await responses().complete(request(transcript));
      placements.push([lastBody().instructions, lastBody().input.length]);
    }
    expect(placements).toEqual([
      [undefined, 1],
      ['One.', 1],
      ['One.\n\nTwo.', 1],
    ]);
  });

  it('6. streaming event sequence: start, text deltas in order, one finish last', async () => {
    emulator.enqueue({
      type: 'scripted',
      chunkSize: 3,
      content: [{ type: 'text', text: 'Hello, Responses.' }],
    });
    const events = await collect(responses().stream(request([user('Hi')])));
    assertStreamInvariants(events);
    expect(events[0]?.type).toBe('message-start');
    expect(events.filter((event) => event.type === 'finish')).toHaveLength(1);
    expect(events.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : [])).join('')).toBe(
      'Hello, Responses.',
    );
  });

  it('9. Responses error codes: a stale previous_response_id is an invalid request, not a retryable 404', async () => {
    emulator.enqueue({
      type: 'json',
      status: 404,
      body: {
        error: {
          message: "Previous response with id 'resp_x' not found.",
          type: 'invalid_request_error',
          code: 'previous_response_not_found',
        },
      },
    });
    const error = await responses()
      .complete(request([user('x')]))
      .then(
        () => undefined,
        (caught: { errorClass: ErrorClass; retryable: boolean }) => caught,
      );
    expect(error).toMatchObject({ errorClass: 'invalid_request', retryable: false });
  });

  it('13. cost-token mapping: input and output tokens land in their buckets', async () => {
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'ok' }],
      usage: { input: 100, output: 20 },
    });
    const response = await responses().complete(request([user('x')]));
    expect(response.usage.input + response.usage.cacheRead).toBe(100);
    expect(response.usage.output).toBe(20);
  });
});
