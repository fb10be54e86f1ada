/**
 * An output item the transcript has no part for is kept verbatim as a custom part whose `kind` is
 * the item's `type`. A broken host's item typed with something other than a string is labelled with
 * that value's JSON — `[{}]`, not `[object Object]` — and kept, its data intact. A streamed
 * `output_item.added`/`.done` whose item is no object fails the stream, classified, naming it, with
 * the text that arrived before it kept.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isServerError } from '../../core/errors/guards.ts';
import { createMemoryLogger, silentLogger } from '../../core/logger.ts';
import { collectStream } from '../../testing/collect.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { userRequest } from '../openai-chat/test-support.ts';
import { createOpenAIResponses } from './index.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.close());

/** Queues a whole, completed Responses body whose `output` is `output`. */
function enqueueOutput(output: unknown[]): void {
  emulator.enqueue({
    type: 'json',
    body: {
      id: 'resp_1',
      object: 'response',
      status: 'completed',
      model: 'gpt-5-mini',
      output,
      usage: { input_tokens: 3, output_tokens: 2 },
    },
  });
}
const message = {
  type: 'message',
  id: 'msg_1',
  role: 'assistant',
  content: [{ type: 'output_text', text: 'Hi.' }],
};

it.each([
  ['web_search_call', 'web_search_call'],
  [[{}], '[{}]'],
  [7, '7'],
])('an item typed %j is a custom part of kind %s, kept verbatim', async (type, kind) => {
  const item = { id: 'ws_1', type, status: 'completed' };
  enqueueOutput([item, message]);
  const adapter = createOpenAIResponses({ apiKey: 'k', baseURL: `${emulator.url}/v1`, logger: silentLogger });
  const reply = await adapter.complete(userRequest('Hi', { model: 'openai:gpt-5-mini' }));
  expect(reply.content[0]).toMatchObject({ type: 'custom', kind, data: item });
  expect(reply.content[1]).toMatchObject({ type: 'text', text: 'Hi.' });
});

it.each([
  ['response.output_item.done', null],
  ['response.output_item.added', 'x'],
])(
  'a streamed %s whose item is %j fails the stream, classified, with the text before it kept',
  async (type, item) => {
    emulator.enqueue({
      type: 'sse',
      events: [
        { data: { type: 'response.created', response: { id: 'resp_1', model: 'gpt-5-mini' } } },
        {
          data: {
            type: 'response.output_item.added',
            output_index: 0,
            item: { type: 'message', id: 'msg_1', role: 'assistant', content: [] },
          },
        },
        { data: { type: 'response.output_text.delta', output_index: 0, content_index: 0, delta: 'Kept.' } },
        { data: { type, output_index: 1, item } },
        { data: { type: 'response.completed', response: { id: 'resp_1', status: 'completed', output: [] } } },
      ],
    });
    const adapter = createOpenAIResponses({
      apiKey: 'k',
      baseURL: `${emulator.url}/v1`,
      maxRetries: 0,
      logger: silentLogger,
    });
    const { events, error } = await collectStream(
      adapter.stream(userRequest('Hi', { model: 'openai:gpt-5-mini' })),
    );
    expect(isServerError(error)).toBe(true);
    expect((error as Error).message).toContain(
      `a ${type}'s item is ${item === null ? 'null' : 'a string'}, not an object`,
    );
    expect(events.filter((event) => event.type === 'text-delta').map((event) => event.delta)).toEqual([
      'Kept.',
    ]);
  },
);

it('a whole body whose output holds an entry that is no item skips it with a WARN, the rest kept', async () => {
  enqueueOutput([null, message]);
  const logger = createMemoryLogger();
  const adapter = createOpenAIResponses({ apiKey: 'k', baseURL: `${emulator.url}/v1`, logger });
  const reply = await adapter.complete(userRequest('Hi', { model: 'openai:gpt-5-mini' }));
  expect(reply.content).toMatchObject([{ type: 'text', text: 'Hi.' }]);
  expect(JSON.stringify(logger.entries)).toContain('output[0], null');
});

it('a call whose name is no string is a call without a name: a classified failure, not "[object Object]"', async () => {
  enqueueOutput([{ type: 'function_call', id: 'fc_1', call_id: 'call_1', name: {}, arguments: '{}' }]);
  const adapter = createOpenAIResponses({
    apiKey: 'k',
    baseURL: `${emulator.url}/v1`,
    maxRetries: 0,
    logger: silentLogger,
  });
  const error = await adapter
    .complete(userRequest('Hi', { model: 'openai:gpt-5-mini' }))
    .catch((caught: unknown) => caught);
  expect(isServerError(error)).toBe(true);
  expect(String((error as Error).message)).toContain('without a name');
  expect(String((error as Error).message)).not.toContain('[object Object]');
});
