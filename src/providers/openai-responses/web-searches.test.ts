/** Web searches a Responses host ran: each completed `web_search_call` item is one, in `usage.webSearches`. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../core/logger.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { userRequest } from '../openai-chat/test-support.ts';
import { createOpenAIResponses } from './index.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.close());

const search = (id: string, status: string) => ({
  type: 'web_search_call',
  id,
  status,
  action: { type: 'search', query: 'news' },
});
const message = {
  type: 'message',
  id: 'msg_1',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text: 'Found it.', annotations: [] }],
};

async function usageOf(output: unknown[]) {
  emulator.enqueue({
    type: 'json',
    body: {
      id: 'resp_1',
      object: 'response',
      status: 'completed',
      model: 'gpt-5-mini',
      output,
      usage: { input_tokens: 10, output_tokens: 4 },
    },
  });
  const adapter = createOpenAIResponses({
    apiKey: 'test-key',
    baseURL: `${emulator.url}/v1`,
    maxRetries: 0,
    logger: silentLogger,
  });
  return (await adapter.complete(userRequest('News?', { model: 'openai:gpt-5-mini' }))).usage;
}

describe('web_search_call items', () => {
  it('only completed searches count: a failed or unfinished one is not billed', async () => {
    const usage = await usageOf([
      search('ws_1', 'completed'),
      search('ws_2', 'failed'),
      search('ws_3', 'in_progress'),
      search('ws_4', 'completed'),
      message,
    ]);
    expect(usage).toMatchObject({ input: 10, output: 4, webSearches: 2 });
  });

  it('a reply without searches has no webSearches', async () => {
    expect(await usageOf([message])).not.toHaveProperty('webSearches');
    expect(await usageOf([search('ws_1', 'failed'), message])).not.toHaveProperty('webSearches');
  });
});
