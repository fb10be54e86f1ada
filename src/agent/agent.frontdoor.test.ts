/** The agent over the front door (`createSwitchyard`): cost from `usage.cost`, the router's fallbacks recorded per turn. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Switchyard } from '../switchyard.ts';
import {
  anthropicError,
  type Emulator,
  type EmulatorScript,
  openaiError,
} from '../testing/emulator/index.ts';
import { createAgent } from './agent.ts';
import { drain, expectConsistent } from './test-support.ts';
import { tool } from '../schemas/structured.ts';
import { startEmulatedSwitchyard } from '../../test/support/emulated.ts';

let emulator: Emulator;
let sy: Switchyard;
let close: () => Promise<void>;
beforeAll(async () => {
  ({
    emulator,
    switchyard: sy,
    close,
  } = await startEmulatedSwitchyard({
    adapters: { anthropic: 'anthropic', openai: 'openai' },
    apiKey: 'test-key-frontdoor',
    config: {
      models: {
        'anthropic:claude-sonnet-4-5': { fallbacks: ['openai:gpt-4.1-mini'] },
        'openai:gpt-4.1-mini': null,
      },
    },
  }));
});
afterAll(() => close());

const lookup = tool({
  name: 'lookup',
  input: z.object({ q: z.string() }),
  execute: ({ q }) => `about ${q}`,
});

describe('agent over the front door', () => {
  it('reads each turn’s cost from usage.cost and ends with budget_exceeded', async () => {
    for (let turn = 0; turn < 2; turn++) {
      emulator.enqueue({
        type: 'scripted',
        content: [{ type: 'tool-call', name: 'lookup', input: { q: `q${turn}` } }],
        usage: { input: 40_000, output: 2_000 },
      });
    }
    const agent = createAgent({
      client: sy,
      model: 'anthropic:claude-sonnet-4-5',
      tools: [lookup],
      budget: { maxCost: 0.2 },
    });
    const result = await agent.run('Research.').result();
    expect(result.outcome).toBe('budget_exceeded');
    expect(result.turns).toHaveLength(2);
    for (const turn of result.turns) {
      expect(turn.cost).toBeGreaterThan(0);
      expect(turn.cost).toBe(turn.usage.cost?.amount);
    }
    expect(result.cost).toBeCloseTo(result.turns[0]!.cost + result.turns[1]!.cost);
    expectConsistent(result.transcript);
  });

  it('records the front door’s fallback on overload in the turn and the assistant item', async () => {
    emulator.enqueue(anthropicError(529, 'overloaded_error', 'Overloaded'));
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'served by the fallback' }] });
    const { events, result } = await drain(
      createAgent({ client: sy, model: 'anthropic:claude-sonnet-4-5' }).run('Hello'),
    );
    expect(result.outcome).toBe('completed');
    expect(result.text).toBe('served by the fallback');
    expect(result.turns[0]).toMatchObject({
      model: 'openai:gpt-4.1-mini',
      fallbackFrom: 'anthropic:claude-sonnet-4-5',
    });
    expect(result.transcript.at(-1)?.metadata).toMatchObject({
      'switchyard.model': 'openai:gpt-4.1-mini',
      'switchyard.fallback_from': 'anthropic:claude-sonnet-4-5',
    });
    expect(events.find((event) => event.type === 'turn-end')).toMatchObject({
      fallbackFrom: 'anthropic:claude-sonnet-4-5',
    });
  });
  describe('an agent fallback follows the adapter’s overload verdict, not words in the message', () => {
    const fallbackReply: EmulatorScript = {
      type: 'scripted',
      content: [{ type: 'text', text: 'served by the fallback' }],
    } as const;
    const run = () =>
      createAgent({
        client: sy,
        model: 'openai:gpt-4.1-mini',
        fallback: { model: 'anthropic:claude-sonnet-4-5' },
      })
        .run('Hello')
        .result();

    it('falls back on a 500 that says the model is overloaded', async () => {
      emulator.enqueue(openaiError(500, 'That model is currently overloaded with other requests.'));
      emulator.enqueue(fallbackReply);
      const result = await run();
      expect(result.outcome).toBe('completed');
      expect(result.turns[0]).toMatchObject({ fallbackFrom: 'openai:gpt-4.1-mini' });
    });

    it('ends with the error on a 404 whose message says the model is unavailable', async () => {
      emulator.enqueue(openaiError(404, 'The model gpt-4.1-mini is unavailable in your region.'));
      emulator.enqueue(fallbackReply);
      const result = await run();
      emulator.clear();
      expect(result.outcome).toBe('error');
      expect(result.error).toMatchObject({ status: 404, errorClass: 'invalid_request' });
      expect(result.turns.some((turn) => turn.fallbackFrom !== undefined)).toBe(false);
    });

    it('ends with the error on a 500 whose message denies an overload', async () => {
      emulator.enqueue(openaiError(500, 'The server was not overloaded; an internal error occurred.'));
      emulator.enqueue(fallbackReply);
      const result = await run();
      emulator.clear();
      expect(result.outcome).toBe('error');
      expect(result.error).toMatchObject({ status: 500, errorClass: 'server_error', overloaded: false });
    });
  });
});
