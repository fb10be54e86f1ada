/**
 * A routed stream's `result()` awaited inside its reader's own `for await` (after an abort, or
 * `conversation.cancel()`): it settles as the adapter's own stream does, and the reader still gets
 * every event, in order, to the end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../agent/agent.ts';
import { createAnthropic } from '../providers/anthropic/index.ts';
import type { StreamEvent } from '../core/events.ts';
import { userText } from '../core/transcript.ts';
import type { Switchyard } from '../switchyard.ts';
import { type Emulator, startEmulator } from '../testing/emulator/index.ts';
import { emulatorBaseURL } from '../../test/support/provider-types.ts';
import { createEmulatedSwitchyard } from '../../test/support/emulated.ts';

let emulator: Emulator;
let sy: Switchyard;
beforeAll(async () => {
  emulator = await startEmulator();
  sy = createEmulatedSwitchyard(emulator.url, {
    adapters: { anthropic: 'anthropic' },
    apiKey: 'test-key-result-in-loop',
    config: {
      models: { 'anthropic:claude-sonnet-4-5': { aliases: ['sonnet'] } },
    },
  });
});
afterAll(async () => {
  await sy.close();
  await emulator.close();
});

const slow = (text = 'a fairly long answer that drips slowly') =>
  emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'text', text }],
    chunkSize: 3,
    fault: { dripMs: 15 },
  });
/** How a call settled (its reply's finish reason or its error's class), or `pending` after `ms`. */
const settledWithin = (promise: PromiseLike<{ finishReason: string }>, ms = 3000) =>
  Promise.race([
    Promise.resolve(promise).then(
      (reply) => reply.finishReason,
      (error: { errorClass?: string }) => error.errorClass ?? String(error),
    ),
    new Promise<string>((resolve) => setTimeout(() => resolve('pending'), ms).unref()),
  ]);
const request = () => ({ model: 'sonnet', transcript: [userText('q')] });

describe('result() awaited inside the reader’s own loop', () => {
  it('after an abort: the adapter’s own stream settles cancelled, and so does the front door’s', async () => {
    const adapter = createAnthropic({
      apiKey: 'test-key-result-in-loop',
      baseURL: emulatorBaseURL('anthropic', emulator.url),
      maxRetries: 0,
    });
    const streams = {
      adapter: (signal: AbortSignal) =>
        adapter.stream(
          { model: 'claude-sonnet-4-5', maxOutputTokens: 100, transcript: [userText('q')] },
          { signal },
        ),
      'front door': (signal: AbortSignal) => sy.stream(request(), { signal }),
    };
    const outcomes: Record<string, string> = {};
    for (const [name, open] of Object.entries(streams)) {
      slow();
      const controller = new AbortController();
      const stream = open(controller.signal);
      const seen: string[] = [];
      let deltas = 0;
      for await (const event of stream) {
        seen.push(event.type);
        if (event.type === 'text-delta' && ++deltas === 2) {
          controller.abort();
          outcomes[name] = await settledWithin(stream.result());
        }
      }
      // The loop read on after the result settled, to the finish.
      expect(seen.at(-1), name).toBe('finish');
    }
    await adapter.close?.();
    expect(outcomes).toEqual({ adapter: 'cancelled', 'front door': 'cancelled' });
  });

  it('without an abort: it settles with the reply, and the loop still reads every event in order', async () => {
    slow();
    const read: StreamEvent[] = [];
    for await (const event of sy.stream(request())) read.push(event);
    slow();
    const stream = sy.stream(request());
    const seen: StreamEvent[] = [];
    let outcome = 'not reached';
    for await (const event of stream) {
      seen.push(event);
      if (event.type === 'text-delta' && outcome === 'not reached')
        outcome = await settledWithin(stream.result());
    }
    expect(outcome).toBe('completed');
    expect((await stream.result()).text).toBe('a fairly long answer that drips slowly');
    expect(seen.map((event) => event.type)).toEqual(read.map((event) => event.type));
  });

  it('a break after it: the reader stops, the result stays settled', async () => {
    slow();
    const controller = new AbortController();
    const stream = sy.stream(request(), { signal: controller.signal });
    let outcome = 'not reached';
    for await (const event of stream) {
      if (event.type !== 'text-delta') continue;
      controller.abort();
      outcome = await settledWithin(stream.result());
      break;
    }
    expect(outcome).toBe('cancelled');
    expect(await settledWithin(stream.result())).toBe('cancelled');
  });

  it('a call that fails after it: the result rejects, and the loop meets the same error after the events', async () => {
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'an answer cut off by the network' }],
      chunkSize: 3,
      fault: { dripMs: 15, disconnectAfterEvents: 6 },
    });
    const stream = sy.stream(request());
    let outcome = 'not reached';
    let raised: unknown;
    try {
      for await (const event of stream)
        if (event.type === 'text-delta' && outcome === 'not reached')
          outcome = await settledWithin(stream.result());
    } catch (error) {
      raised = error;
    }
    expect(outcome).not.toBe('pending');
    expect(outcome).not.toBe('not reached');
    expect(raised).toBeInstanceOf(Error);
    expect(raised).toBe(await stream.result().catch((error: unknown) => error));
  });

  it('await conversation.cancel() inside the turn’s own loop resolves; the turn settles cancelled', async () => {
    const conversation = sy.conversation({ model: 'sonnet' });
    slow();
    const turn = conversation.send('q');
    let cancelled = 'not reached';
    let last: string | undefined;
    for await (const event of turn) {
      last = event.type;
      if (event.type === 'text-delta' && cancelled === 'not reached')
        cancelled = await settledWithin(conversation.cancel().then(() => ({ finishReason: 'resolved' })));
    }
    expect(cancelled).toBe('resolved');
    expect(last).toBe('finish');
    expect(await settledWithin(turn)).toBe('cancelled');
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'next' }] });
    expect((await conversation.send('again')).text).toBe('next');
  });

  it('an agent over the front door: interrupt() then await result() inside the run’s loop settles', async () => {
    slow();
    const run = createAgent({ client: sy, model: 'sonnet' }).run('q');
    let outcome = 'not reached';
    for await (const event of run) {
      if (event.type === 'text-delta' && outcome === 'not reached') {
        run.interrupt();
        outcome = await Promise.race([
          run.result().then((result) => result.outcome),
          new Promise<string>((resolve) => setTimeout(() => resolve('pending'), 3000).unref()),
        ]);
      }
    }
    expect(outcome).toBe('cancelled');
  });
});
