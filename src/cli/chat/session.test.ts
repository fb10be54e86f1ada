/** A chat session over the front door and the agent loop: swap, undo, new, system prompt, restore with the tool-id map. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Switchyard } from '../../switchyard.ts';
import type { Emulator } from '../../testing/emulator/index.ts';
import { createEmulatedSwitchyard, startEmulatedSwitchyard } from '../../../test/support/emulated.ts';
import { ChatSession, type ChatView } from './session.ts';

let emulator: Emulator;
let sy: Switchyard;
let close: () => Promise<void>;
beforeAll(async () => {
  // The bundled models stay (builtins), the two adapters on the emulator.
  ({
    emulator,
    switchyard: sy,
    close,
  } = await startEmulatedSwitchyard({
    adapters: { anthropic: 'anthropic', openai: 'openai' },
    apiKey: 'k',
    config: { builtins: true },
  }));
});
afterAll(() => close());

const view: ChatView = { event: () => {}, approve: async () => ({}) };

/**
 * Sends a long prompt whose answer stalls after `stallAfterEvents` upstream events, and interrupts
 * the session at the answer's first text (the prompt and the text received were billed).
 */
function interruptedAnswer(session: ChatSession, stallAfterEvents: number) {
  emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'text', text: `One. Two. Three. ${'And counting. '.repeat(60)}` }],
    chunkSize: 5,
    fault: { stallAfterEvents },
  });
  let interrupted = false;
  return session.send(text(`Count slowly. ${'Please. '.repeat(100)}`), {
    event(event) {
      if (event.type === 'text-delta' && !interrupted) {
        interrupted = true;
        session.interrupt();
      }
    },
    approve: async () => ({}),
  });
}
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

  it('an answer interrupted mid-stream records estimated usage and cost (prompt and received text were billed), never zero', async () => {
    const session = new ChatSession({ sy, model: 'gpt-mini' });
    const exchange = await interruptedAnswer(session, 4);
    expect(exchange.outcome).toBe('cancelled');
    const [turn] = exchange.turns;
    expect(turn).toMatchObject({ model: 'openai:gpt-5-mini', interrupted: true });
    expect(turn!.usage.input).toBeGreaterThan(100); // ~800 characters sent.
    expect(turn!.usage.output).toBeGreaterThan(0);
    expect(turn!.cost).toBeGreaterThan(0);
    expect(session.turns).toEqual(exchange.turns);
  });

  it('an interrupted answer through an adapter named unlike its price provider (a Responses adapter named `responses`) is priced, not $?', async () => {
    const named = createEmulatedSwitchyard(emulator.url, {
      adapters: { responses: 'openai-responses' },
      apiKey: 'k',
      config: { builtins: true },
    });
    try {
      const session = new ChatSession({ sy: named, model: 'responses:gpt-5-mini' });
      // The stall comes past the Responses preamble, into the text.
      const exchange = await interruptedAnswer(session, 8);
      expect(exchange.outcome).toBe('cancelled');
      const [turn] = exchange.turns;
      expect(turn).toMatchObject({ interrupted: true });
      expect(turn!.cost).toBeGreaterThan(0);
    } finally {
      await named.close();
    }
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
