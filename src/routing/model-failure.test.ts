/**
 * A model failure (the call succeeded, its reply unusable: Gemini `MALFORMED_FUNCTION_CALL`) before
 * anything reached the caller fails over to a fallback, in `complete` and `stream` alike, without
 * counting against the primary's circuit; with no fallback able to take it, the reply is the call's
 * end as before (finish `error`, no exception); after content, it is the end too.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../core/events.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { userText } from '../core/transcript.ts';
import type { CallEvent } from '../observers/types.ts';
import { createSwitchyard, type Switchyard } from '../switchyard.ts';
import { type Emulator, openaiError, startEmulator } from '../testing/emulator/index.ts';
import { assertStreamInvariants } from '../testing/invariants.ts';
import { routingDecision } from './decision.ts';
import { emulatorBaseURL } from '../../test/support/provider-types.ts';

let primary: Emulator;
let fallback: Emulator;
let sy: Switchyard;
let events: CallEvent[] = [];

beforeAll(async () => {
  [primary, fallback] = await Promise.all([startEmulator(), startEmulator()]);
});
afterAll(async () => {
  await Promise.all([primary.close(), fallback.close()]);
});
afterEach(async () => {
  await sy?.close();
});

/** Gemini primary (on `primary`), OpenAI fallback (on `fallback`; without a key when `unusable`). */
function front(unusable = false, fallbacks = ['openai:gpt-4.1-mini']) {
  events = [];
  sy = createSwitchyard({
    logger: createMemoryLogger(),
    observers: [{ onEvent: (event) => void events.push(event) }],
    config: {
      builtins: false,
      adapters: {
        gemini: {
          type: 'gemini',
          base_url: emulatorBaseURL('gemini', primary.url),
          api_key: 'test-key-model-failure',
          max_retries: 0,
        },
        openai: {
          type: 'openai',
          base_url: emulatorBaseURL('openai', fallback.url),
          ...(unusable
            ? { api_key_env: 'SWITCHYARD_TEST_UNSET_KEY' }
            : { api_key: 'test-key-model-failure' }),
          max_retries: 0,
        },
      },
      models: { 'gemini:gemini-2.5-flash': { aliases: ['primary'], fallbacks } },
      routing: { failure_threshold: 1, cooldown_seconds: 30 },
    },
  });
}

const hello = { model: 'primary', transcript: [userText('Hello')] };
const malformed = (text?: string) => ({
  type: 'scripted' as const,
  content: text === undefined ? [] : [{ type: 'text' as const, text }],
  finishReason: 'MALFORMED_FUNCTION_CALL',
  usage: { input: 10_000, output: 5 },
});
const served = { type: 'scripted' as const, content: [{ type: 'text' as const, text: 'from the fallback' }] };

async function streamed() {
  const turn = sy.stream(hello);
  const seen: StreamEvent[] = [];
  for await (const event of turn) seen.push(event);
  assertStreamInvariants(seen);
  return { seen, reply: await turn };
}

describe('a model failure before any content', () => {
  it.each(['complete', 'stream'] as const)(
    '%s: fails over to the fallback; the attempt is recorded failed, the primary’s circuit stays closed',
    async (mode) => {
      front();
      primary.enqueue(malformed());
      fallback.enqueue(served);
      const reply = mode === 'complete' ? await sy.complete(hello) : (await streamed()).reply;
      expect(reply.text).toBe('from the fallback');
      expect(reply.finishReason).toBe('completed');
      const attempts = routingDecision(reply)?.attempts ?? [];
      expect(attempts[0]).toMatchObject({ outcome: 'failed', errorClass: 'server_error' });
      expect(attempts[0]?.reason).toContain('MALFORMED_FUNCTION_CALL');
      expect(attempts[1]).toMatchObject({ outcome: 'served', model: 'openai:gpt-4.1-mini' });
      // failure_threshold 1: one counted failure would have opened it.
      expect(await sy.availability.state('model:gemini:gemini-2.5-flash')).toBe('closed');
      expect(events.map((event) => event.type).filter((type) => type !== 'call-first-chunk')).toEqual([
        'call-started',
        'call-failed',
        'call-started',
        'call-completed',
      ]);
    },
  );

  it('stream: the reader sees one message-start and one finish, both the fallback’s', async () => {
    front();
    primary.enqueue(malformed());
    fallback.enqueue(served);
    const { seen } = await streamed();
    expect(seen.filter((event) => event.type === 'message-start')).toHaveLength(1);
    expect(seen.filter((event) => event.type === 'finish')).toHaveLength(1);
    expect(seen[0]).toMatchObject({ type: 'message-start', provider: 'openai' });
  });

  it.each(['complete', 'stream'] as const)(
    '%s: with no fallback able to take it, the model failure is the end (finish error, no exception)',
    async (mode) => {
      front(true);
      primary.enqueue(malformed());
      const reply = mode === 'complete' ? await sy.complete(hello) : (await streamed()).reply;
      expect(reply.finishReason).toBe('error');
      expect(reply.rawFinishReason).toBe('MALFORMED_FUNCTION_CALL');
      expect(events.filter((event) => event.type === 'call-completed')).toHaveLength(0);
    },
  );
});

it('after content reached the reader, a model failure is the stream’s end: no failover', async () => {
  front();
  const sent = fallback.requests.length;
  primary.enqueue(malformed('Let me call'));
  const { reply } = await streamed();
  expect(reply.finishReason).toBe('error');
  expect(reply.text).toBe('Let me call');
  expect(fallback.requests.length).toBe(sent);
});

describe('what a failover on a model failure bills, and how far it goes', () => {
  it.each(['complete', 'stream'] as const)(
    '%s: the failed attempt’s tokens (paid for) are billed with the reply served, at its own model’s rate',
    async (mode) => {
      front();
      primary.enqueue(malformed());
      fallback.enqueue({ ...served, usage: { input: 10, output: 3 } });
      const reply = mode === 'complete' ? await sy.complete(hello) : (await streamed()).reply;
      expect(reply.usage).toMatchObject({ input: 10, output: 3 });
      expect(reply.usage.byModel?.['gemini:gemini-2.5-flash']).toMatchObject({ input: 10_000, output: 5 });
      const primaryOnly = reply.usage.byModel?.['gemini:gemini-2.5-flash']?.cost?.amount ?? 0;
      expect(primaryOnly).toBeGreaterThan(0);
      expect(reply.usage.cost!.amount).toBeGreaterThan(primaryOnly);
    },
  );

  it.each(['complete', 'stream'] as const)(
    '%s: two model failures in a row fail over twice; the third candidate answers',
    async (mode) => {
      front(false, ['gemini:gemini-2.5-pro', 'openai:gpt-4.1-mini']);
      primary.enqueue(malformed());
      primary.enqueue(malformed());
      fallback.enqueue(served);
      const reply = mode === 'complete' ? await sy.complete(hello) : (await streamed()).reply;
      expect(reply.text).toBe('from the fallback');
      expect(routingDecision(reply)?.attempts.map((attempt) => attempt.outcome)).toEqual([
        'failed',
        'failed',
        'served',
      ]);
      expect(Object.keys(reply.usage.byModel ?? {}).sort()).toEqual([
        'gemini:gemini-2.5-flash',
        'gemini:gemini-2.5-pro',
      ]);
      expect(events.filter((event) => event.type === 'call-completed')).toHaveLength(1);
    },
  );
});

it.each(['complete', 'stream'] as const)(
  '%s: when the fallback fails too, the model failure is the end, its tokens billed (not the fallback’s error)',
  async (mode) => {
    front();
    primary.enqueue(malformed());
    fallback.enqueue(openaiError(500, 'The server had an error'));
    const reply = mode === 'complete' ? await sy.complete(hello) : (await streamed()).reply;
    expect(reply.finishReason).toBe('error');
    expect(reply.rawFinishReason).toBe('MALFORMED_FUNCTION_CALL');
    expect(reply.usage).toMatchObject({ input: 10_000, output: 5 });
    expect(routingDecision(reply)?.attempts.map((attempt) => attempt.outcome)).toEqual([
      'failed',
      'failed',
      'served',
    ]);
  },
);
