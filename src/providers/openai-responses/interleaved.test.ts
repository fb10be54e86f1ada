/**
 * Output items interleaved on the wire (an item's events while another is still open): every item's
 * content reaches the stream whole, in output order — none is cut when the next one opens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../core/logger.ts';
import { type CollectedStream, collectStream } from '../../testing/collect.ts';
import { type Emulator, type SseEvent, startEmulator } from '../../testing/emulator/index.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { createOpenAIResponses } from './index.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

const logger = createMemoryLogger();
const adapter = () =>
  createOpenAIResponses({ apiKey: 'test-key', baseURL: `${emulator.url}/v1`, maxRetries: 0, logger });

async function run(events: SseEvent[]): Promise<CollectedStream> {
  emulator.enqueue({ type: 'sse', events });
  const request = {
    model: 'openai:gpt-5-mini',
    maxOutputTokens: 256,
    transcript: [{ kind: 'user' as const, parts: [{ type: 'text' as const, text: 'Go' }] }],
  };
  const collected = await collectStream(adapter().stream(request));
  assertStreamInvariants(collected.events);
  return collected;
}

const created = { data: { type: 'response.created', response: { id: 'resp_1', model: 'gpt-5-mini' } } };
const call = (index: number, id: string, name: string) => ({
  data: {
    type: 'response.output_item.added',
    output_index: index,
    item: { type: 'function_call', id: `fc_${id}`, call_id: id, name, arguments: '' },
  },
});
const args = (index: number, delta: string) => ({
  data: { type: 'response.function_call_arguments.delta', output_index: index, delta },
});
const callDone = (index: number, id: string, name: string, argumentsText: string) => ({
  data: {
    type: 'response.output_item.done',
    output_index: index,
    item: { type: 'function_call', id: `fc_${id}`, call_id: id, name, arguments: argumentsText },
  },
});
const completed = {
  data: {
    type: 'response.completed',
    response: { id: 'resp_1', status: 'completed', usage: { input_tokens: 5, output_tokens: 7 } },
  },
};

function toolCalls({ response }: CollectedStream) {
  return (response?.content ?? []).flatMap((part) =>
    part.type === 'tool-call' ? [{ name: part.name, input: part.input }] : [],
  );
}

describe('interleaved output items (Responses upstream)', () => {
  it('two function calls whose argument deltas interleave keep their whole arguments, in output order', async () => {
    const stream = await run([
      created,
      call(0, 'call_a', 'first'),
      args(0, '{"city":'),
      call(1, 'call_b', 'second'),
      args(1, '{"n":'),
      args(0, '"Paris"}'),
      args(1, '2}'),
      callDone(0, 'call_a', 'first', '{"city":"Paris"}'),
      callDone(1, 'call_b', 'second', '{"n":2}'),
      completed,
    ]);
    expect(toolCalls(stream)).toEqual([
      { name: 'first', input: { city: 'Paris' } },
      { name: 'second', input: { n: 2 } },
    ]);
    expect(stream.error).toBeUndefined();
    expect(stream.response?.finishReason).toBe('tool-call');
  });

  it('a message whose text streams while a call is open keeps all of it, after the call', async () => {
    const stream = await run([
      created,
      call(0, 'call_a', 'lookup'),
      args(0, '{"q":'),
      {
        data: {
          type: 'response.output_item.added',
          output_index: 1,
          item: { type: 'message', id: 'msg_1', role: 'assistant', content: [] },
        },
      },
      { data: { type: 'response.output_text.delta', output_index: 1, content_index: 0, delta: 'Hel' } },
      args(0, '"x"}'),
      { data: { type: 'response.output_text.delta', output_index: 1, content_index: 0, delta: 'lo' } },
      callDone(0, 'call_a', 'lookup', '{"q":"x"}'),
      {
        data: {
          type: 'response.output_item.done',
          output_index: 1,
          item: {
            type: 'message',
            id: 'msg_1',
            role: 'assistant',
            content: [{ type: 'output_text', text: 'Hello' }],
          },
        },
      },
      completed,
    ]);
    expect(toolCalls(stream)).toEqual([{ name: 'lookup', input: { q: 'x' } }]);
    const text = stream.events.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : []));
    expect(text.join('')).toBe('Hello');
    const starts = stream.events.flatMap((event) => (event.type.endsWith('-start') ? [event.type] : []));
    expect(starts).toEqual(['message-start', 'tool-call-start', 'text-start']);
  });

  it('a stream cut while an item is held still delivers what arrived of it, and ends with the error', async () => {
    const stream = await run([
      created,
      call(0, 'call_a', 'first'),
      args(0, '{"a":'),
      call(1, 'call_b', 'second'),
      args(1, '{"b":2}'),
      args(0, '1}'),
    ]);
    expect(stream.error).toMatchObject({ providerCode: 'stream_truncated', retryable: true });
    expect(stream.response?.finishReason).toBe('error');
    expect(toolCalls(stream)).toEqual([
      { name: 'first', input: { a: 1 } },
      { name: 'second', input: { b: 2 } },
    ]);
  });

  it('an event for an item after its output_item.done is skipped with a WARN, not appended', async () => {
    const before = logger.entries.length;
    const stream = await run([
      created,
      call(0, 'call_a', 'first'),
      args(0, '{"a":1}'),
      callDone(0, 'call_a', 'first', '{"a":1}'),
      args(0, '{"late":true}'),
      completed,
    ]);
    expect(toolCalls(stream)).toEqual([{ name: 'first', input: { a: 1 } }]);
    expect(logger.entries.slice(before).map((entry) => entry.fields.what)).toEqual([
      'an event for output item 0 after its output_item.done',
    ]);
  });

  it('a long message held behind an open item (150,000 deltas) arrives whole: no stack overflow', async () => {
    const deltas = Array.from({ length: 150_000 }, () => ({
      data: { type: 'response.output_text.delta', output_index: 1, content_index: 0, delta: 'a' },
    }));
    const stream = await run([
      created,
      call(0, 'call_a', 'first'),
      {
        data: {
          type: 'response.output_item.added',
          output_index: 1,
          item: { type: 'message', id: 'msg_1', role: 'assistant', content: [] },
        },
      },
      ...deltas,
      callDone(0, 'call_a', 'first', '{}'),
      completed,
    ]);
    expect(stream.error).toBeUndefined();
    const text = stream.response?.content.find((part) => part.type === 'text');
    expect(text?.type === 'text' ? text.text.length : 0).toBe(150_000);
  }, 30_000);

  it('a host that sends no output_index (every item at 0): each newly announced item is the next one, none dropped', async () => {
    const stream = await run([
      created,
      { data: { type: 'response.output_item.added', item: { type: 'reasoning', id: 'rs_1', summary: [] } } },
      { data: { type: 'response.output_item.done', item: { type: 'reasoning', id: 'rs_1', summary: [] } } },
      { data: { type: 'response.output_item.added', item: { type: 'message', id: 'msg_1', content: [] } } },
      { data: { type: 'response.output_text.delta', content_index: 0, delta: 'Calling two.' } },
      {
        data: {
          type: 'response.output_item.done',
          item: { type: 'message', id: 'msg_1', content: [{ type: 'output_text', text: 'Calling two.' }] },
        },
      },
      ...[1, 2].flatMap((n) => [
        {
          data: {
            type: 'response.output_item.added',
            item: {
              type: 'function_call',
              id: `fc_${n}`,
              call_id: `call_${n}`,
              name: `f${n}`,
              arguments: '',
            },
          },
        },
        { data: { type: 'response.function_call_arguments.delta', delta: `{"n":${n}}` } },
        {
          data: {
            type: 'response.output_item.done',
            item: {
              type: 'function_call',
              id: `fc_${n}`,
              call_id: `call_${n}`,
              name: `f${n}`,
              arguments: `{"n":${n}}`,
            },
          },
        },
      ]),
      completed,
    ]);
    expect(stream.error).toBeUndefined();
    expect(stream.response?.content.find((part) => part.type === 'text')).toMatchObject({
      text: 'Calling two.',
    });
    expect(toolCalls(stream)).toEqual([
      { name: 'f1', input: { n: 1 } },
      { name: 'f2', input: { n: 2 } },
    ]);
  });

  it('without output_index and without item ids, an item of another type after a done one fails the stream (never a clean finish without it)', async () => {
    const stream = await run([
      created,
      { data: { type: 'response.output_item.added', item: { type: 'reasoning', summary: [] } } },
      { data: { type: 'response.output_item.done', item: { type: 'reasoning', summary: [] } } },
      { data: { type: 'response.output_item.added', item: { type: 'message', content: [] } } },
      { data: { type: 'response.output_text.delta', content_index: 0, delta: 'The answer' } },
      completed,
    ]);
    expect(stream.error).toMatchObject({ errorClass: 'server_error' });
    expect(stream.response?.finishReason).toBe('error');
  });
});

it('a host that streams no item event, only the terminal response, has its output read from it (never an empty reply)', async () => {
  const stream = await run([
    created,
    {
      data: {
        type: 'response.completed',
        response: {
          id: 'resp_1',
          status: 'completed',
          output: [
            {
              type: 'message',
              id: 'msg_1',
              role: 'assistant',
              content: [{ type: 'output_text', text: 'Whole.' }],
            },
            { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f1', arguments: '{"n":1}' },
          ],
          usage: { input_tokens: 3, output_tokens: 2 },
        },
      },
    },
  ]);
  expect(stream.error).toBeUndefined();
  expect(stream.response?.content.find((part) => part.type === 'text')).toMatchObject({ text: 'Whole.' });
  expect(toolCalls(stream)).toEqual([{ name: 'f1', input: { n: 1 } }]);
  expect(stream.response?.finishReason).toBe('tool-call');
});
