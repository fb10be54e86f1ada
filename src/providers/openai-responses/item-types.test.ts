/**
 * An output item the transcript has no part for is kept verbatim as a custom part whose `kind` is
 * the item's `type`. A broken host's item typed with something other than a string is labelled with
 * that value's JSON — `[{}]`, not `[object Object]` — and kept, its data intact.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { silentLogger } from '../../core/logger.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { userRequest } from '../openai-chat/test-support.ts';
import { createOpenAIResponses } from './index.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.close());

it.each([
  ['web_search_call', 'web_search_call'],
  [[{}], '[{}]'],
  [7, '7'],
])('an item typed %j is a custom part of kind %s, kept verbatim', async (type, kind) => {
  const item = { id: 'ws_1', type, status: 'completed' };
  emulator.enqueue({
    type: 'json',
    body: {
      id: 'resp_1',
      object: 'response',
      status: 'completed',
      model: 'gpt-5-mini',
      output: [
        item,
        { type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'Hi.' }] },
      ],
      usage: { input_tokens: 3, output_tokens: 2 },
    },
  });
  const adapter = createOpenAIResponses({ apiKey: 'k', baseURL: `${emulator.url}/v1`, logger: silentLogger });
  const reply = await adapter.complete(userRequest('Hi', { model: 'openai:gpt-5-mini' }));
  expect(reply.content[0]).toMatchObject({ type: 'custom', kind, data: item });
  expect(reply.content[1]).toMatchObject({ type: 'text', text: 'Hi.' });
});
