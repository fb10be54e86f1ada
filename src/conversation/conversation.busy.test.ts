/** One turn at a time: a conversation refuses a second turn while one is in flight, and sends a snapshot. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { toolCallId } from '../core/ids.ts';
import { checkTranscript } from '../core/transcript-invariants.ts';
import type { Transcript } from '../core/transcript.ts';
import type { Switchyard } from '../switchyard.ts';
import { anthropicError, type Emulator, startEmulator } from '../testing/emulator/index.ts';
import { createEmulatedSwitchyard } from '../../test/support/emulated.ts';

let emulator: Emulator;
let sy: Switchyard;

/** A front door over the emulator (a fresh one dispatches its first call a step later). */
const front = () =>
  createEmulatedSwitchyard(emulator.url, {
    adapters: { anthropic: 'anthropic' },
    apiKey: 'test-key-conversation',
    config: { models: { 'anthropic:claude-sonnet-4-5': { aliases: ['sonnet'] } } },
  });

beforeAll(async () => {
  emulator = await startEmulator();
  sy = front();
});
afterAll(async () => {
  await sy.close();
  await emulator.close();
});

const texts = (transcript: Transcript) =>
  transcript.map((item) => item.parts.map((part) => (part.type === 'text' ? part.text : '')).join(''));
/** The user and assistant texts of the last upstream request. */
const lastSent = () =>
  (emulator.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> }).messages.map(
    (message) =>
      `${message.role}:${
        typeof message.content === 'string'
          ? message.content
          : (message.content as Array<{ text?: string }>).map((block) => block.text ?? '').join('')
      }`,
  );
/** How a turn settled: its reply's finish reason, or its error's class. */
const outcome = (turn: PromiseLike<{ finishReason: string }>) =>
  Promise.resolve(turn).then(
    (reply) => reply.finishReason,
    (error: { errorClass?: string }) => error.errorClass,
  );
const slow = (text: string) =>
  emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'text', text }],
    chunkSize: 3,
    fault: { dripMs: 15 },
  });

describe('a conversation runs one turn at a time', () => {
  it('two sends at once: the second is refused (conversation_busy) and changes nothing; one request, in order', async () => {
    const conversation = sy.conversation({ model: 'sonnet' });
    slow('answer A');
    const before = emulator.requests.length;
    const first = conversation.send('question A');
    const second = conversation.send('question B');
    await expect(second).rejects.toMatchObject({
      name: 'InvalidRequestError',
      providerCode: 'conversation_busy',
      message: expect.stringMatching(/conversation\.send: the conversation is busy/),
    });
    expect(() =>
      conversation.addToolResults([{ call: { id: toolCallId('call_1'), name: 'lookup' }, output: 'x' }]),
    ).toThrow(/conversation\.addToolResults: the conversation is busy/);
    expect((await first).text).toBe('answer A');
    expect(emulator.requests.length - before).toBe(1);
    expect(lastSent()).toEqual(['user:question A']);
    expect(texts(conversation.transcript)).toEqual(['question A', 'answer A']);
    expect(checkTranscript(conversation.transcript)).toEqual([]);

    // Once the turn ended, the next one goes.
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'answer B' }] });
    expect((await conversation.send('question B')).text).toBe('answer B');
    expect(texts(conversation.transcript)).toEqual(['question A', 'answer A', 'question B', 'answer B']);
  });

  it('the next turn may start as soon as the reader sees the finish', async () => {
    const conversation = sy.conversation({ model: 'sonnet' });
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'one' }] });
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'two' }] });
    let next: ReturnType<typeof conversation.send> | undefined;
    for await (const event of conversation.send('first'))
      if (event.type === 'finish') next = conversation.send('second');
    expect((await next!).text).toBe('two');
    expect(texts(conversation.transcript)).toEqual(['first', 'one', 'second', 'two']);
  });

  it('a failed turn frees the conversation at once; a turn broken out of, once it settled', async () => {
    const conversation = sy.conversation({ model: 'sonnet' });
    emulator.enqueue(anthropicError(400, 'invalid_request_error', 'refused'));
    await expect(conversation.send('refused upstream')).rejects.toMatchObject({
      errorClass: 'invalid_request',
    });
    slow('a long answer the reader abandons early');
    const turn = conversation.send('stopped');
    for await (const event of turn) if (event.type === 'text-delta') break;
    await expect(turn).rejects.toMatchObject({ errorClass: 'cancelled' });
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'after' }] });
    expect((await conversation.send('again')).text).toBe('after');
  });

  it('a turn aborted by its signal and never read settles by itself: the next send works', async () => {
    const conversation = sy.conversation({ model: 'sonnet' });
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'a slow answer nobody reads, '.repeat(20) }],
      chunkSize: 3,
      fault: { dripMs: 20 },
    });
    const controller = new AbortController();
    const before = emulator.requests.length;
    const abandoned = conversation.send('question A', { signal: controller.signal });
    await vi.waitFor(() => expect(emulator.requests.length).toBe(before + 1)); // answering
    controller.abort(); // the caller moves on without awaiting or iterating the turn
    // Not awaited here: awaiting would read the turn and end it regardless.
    await vi.waitFor(() => expect(abandoned.hasEnded()).toBe(true), { timeout: 3000 });
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'answer B' }] });
    expect((await conversation.send('question B')).text).toBe('answer B');
    // Settled as an aborted call does: a partial reply (finish reason `cancelled`) or a `cancelled` error.
    expect(await outcome(abandoned)).toBe('cancelled');
  });

  it('cancel() aborts an unread turn sent without a signal and frees the conversation', async () => {
    const conversation = sy.conversation({ model: 'sonnet' });
    await conversation.cancel(); // nothing in flight: resolves at once
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'a slow answer nobody reads, '.repeat(20) }],
      chunkSize: 3,
      fault: { dripMs: 20 },
    });
    const before = emulator.requests.length;
    const unread = conversation.send('question A');
    await vi.waitFor(() => expect(emulator.requests.length).toBe(before + 1)); // answering
    await expect(conversation.send('refused')).rejects.toMatchObject({ providerCode: 'conversation_busy' });
    await conversation.cancel();
    expect(unread.hasEnded()).toBe(true);
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'answer B' }] });
    expect((await conversation.send('question B')).text).toBe('answer B');
    expect(await outcome(unread)).toBe('cancelled');
  });

  it("a caller's signal shared by many turns is let go of as each turn ends", async () => {
    const conversation = sy.conversation({ model: 'sonnet' });
    const { signal } = new AbortController();
    const added = vi.spyOn(signal, 'addEventListener');
    const removed = vi.spyOn(signal, 'removeEventListener');
    for (const text of ['one', 'two']) {
      emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text }] });
      expect((await conversation.send(text, { signal })).text).toBe(text);
    }
    expect(removed.mock.calls.length).toBeGreaterThanOrEqual(added.mock.calls.length);
  });

  it('the request is the transcript as it was at send time: a later change does not reach it', async () => {
    const cold = front();
    const conversation = cold.conversation({ model: 'sonnet' });
    slow('answer');
    const turn = conversation.send('question');
    conversation.transcript.push({ kind: 'user', parts: [{ type: 'text', text: 'pushed later' }] });
    await turn;
    expect(lastSent()).toEqual(['user:question']);
    await cold.close();
  });
});
