/** A chat session over the front door and the agent loop: swap, undo, new, system prompt, restore with the tool-id map. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../core/logger.ts';
import { createSwitchyard, type Switchyard } from '../../switchyard.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { ChatSession, type ChatView } from './session.ts';

let emulator: Emulator;
let sy: Switchyard;
beforeAll(async () => {
  emulator = await startEmulator();
  const adapter = (type: string, path: string) => ({
    type,
    base_url: `${emulator.url}${path}`,
    api_key: 'k',
    max_retries: 0,
  });
  sy = createSwitchyard({
    config: { adapters: { anthropic: adapter('anthropic', '/v1'), openai: adapter('openai', '/v1') } },
    logger: createMemoryLogger(),
  });
});
afterAll(async () => {
  await sy.close();
  await emulator.close();
});

const view: ChatView = { event: () => {}, approve: async () => ({}) };
const text = (value: string) => [{ type: 'text' as const, text: value }];

describe('a chat session', () => {
  it('keeps one transcript across a model swap; /undo drops the last message and its answer; /new keeps the system prompt', async () => {
    const session = new ChatSession({ sy, model: 'sonnet', system: 'Be brief.' });
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Hi from Claude.' }] });
    expect((await session.send(text('Hello'), view)).outcome).toBe('completed');
    session.model = 'gpt-mini';
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Hi from GPT.' }] });
    const exchange = await session.send(text('And you?'), view);
    expect(exchange.turns.map((turn) => turn.model)).toEqual(['openai:gpt-5-mini']);
    expect(session.turns).toHaveLength(2);
    expect(session.transcript.map((item) => item.kind)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(session.undo()).toBe(true);
    expect(session.transcript.map((item) => item.kind)).toEqual(['system', 'user', 'assistant']);
    expect(session.turns).toHaveLength(2); // Money spent stays spent.
    const record = session.toRecord();
    session.reset();
    expect(session.transcript).toEqual([{ kind: 'system', parts: text('Be brief.') }]);
    expect(session.id).not.toBe(record.id);
    session.restore(record);
    expect(session.toRecord()).toMatchObject({
      id: record.id,
      transcript: record.transcript,
      turns: record.turns,
    });
  });

  it('a provider error leaves the transcript as it was before the message', async () => {
    const session = new ChatSession({ sy, model: 'sonnet' });
    emulator.enqueue({
      type: 'json',
      status: 400,
      body: { type: 'error', error: { type: 'invalid_request_error', message: 'bad' } },
    });
    const exchange = await session.send(text('Hello'), view);
    expect(exchange.outcome).toBe('error');
    expect(session.transcript).toEqual([]);
  });
});
