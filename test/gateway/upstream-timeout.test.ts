/**
 * An upstream that does not answer in time (the adapter's first-byte or idle timeout) is a gateway
 * timeout, RFC 9110's 504, in each client's own form — the Anthropic SDK's `GatewayTimeoutError`
 * of type `timeout_error`, the OpenAI SDK's 504, the Gemini SDK's 504 `DEADLINE_EXCEEDED` — still
 * with `x-should-retry: true`, and logged 504. Before, it was the 502 of a failed upstream
 * (Anthropic `api_error`, Gemini `UNAVAILABLE`).
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EmulatorScript } from '../../src/testing/emulator/types.ts';
import {
  createClients,
  type GatewayHarness,
  keepFallbackOut,
  scriptedText,
  startGatewayHarness,
  upstreams,
} from './harness.ts';

/**
 * The first-byte timeout (ms) of the late-headers cases; the emulator sends its headers three times
 * as late. Only those cases have it: a short one would time out any call a loaded machine is slow to
 * answer.
 */
const firstByteTimeoutMs = 300;
/**
 * The idle timeout (ms) of the stalled stream: long enough that a loaded machine's pause between
 * the first events is no stall, short enough to wait for.
 */
const idleTimeoutMs = 1_000;

/** A gateway over the emulator whose three upstream adapters have `timeouts`, for the enclosing describe. */
function harnessWith(timeouts: Record<string, number>): () => GatewayHarness {
  let harness: GatewayHarness | undefined;
  beforeAll(async () => {
    harness = await startGatewayHarness({}, { anthropic: timeouts, openai: timeouts, gemini: timeouts });
  });
  beforeEach(() => harness?.emulator.clear());
  afterAll(() => harness?.close());
  return () => harness!;
}

/** A reply whose headers come after the first-byte timeout. */
const late = (): EmulatorScript => ({
  ...scriptedText('Too late.'),
  fault: { delayHeadersMs: 3 * firstByteTimeoutMs },
});

const messages = [{ role: 'user' as const, content: 'Hi' }];
const failure = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (caught: unknown) => caught as { status?: number; headers?: Headers; message: string; error?: unknown },
  );

describe('an upstream that sends nothing within its first-byte timeout', () => {
  const current = harnessWith({ firstByteTimeout: firstByteTimeoutMs });

  it('is the Anthropic SDK’s GatewayTimeoutError 504 timeout_error, retryable', async () => {
    const harness = current();
    harness.emulator.enqueue(late());
    const before = harness.accessLog.length;
    const error = await failure(
      createClients(harness.server.url).anthropic.messages.create({
        model: upstreams['anthropic-messages'].alias,
        max_tokens: 16,
        messages,
      }),
    );
    expect(error).toBeInstanceOf(Anthropic.GatewayTimeoutError);
    expect(error?.status).toBe(504);
    expect(error?.error).toMatchObject({ error: { type: 'timeout_error' } });
    expect(error?.headers?.get('x-should-retry')).toBe('true');
    expect(harness.accessLog.slice(before).map((line) => [line.status, line.errorClass])).toEqual([
      [504, 'network'],
    ]);
  });

  it('is the OpenAI SDK’s 504 server_error, retryable', async () => {
    const harness = current();
    harness.emulator.enqueue(late());
    const error = await failure(
      createClients(harness.server.url).openai.chat.completions.create({
        model: upstreams['openai-chat'].alias,
        messages,
      }),
    );
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error?.status).toBe(504);
    expect(error).toMatchObject({ type: 'server_error' });
    expect(error?.headers?.get('x-should-retry')).toBe('true');
  });

  it('is the Gemini SDK’s 504 DEADLINE_EXCEEDED', async () => {
    const harness = current();
    harness.emulator.enqueue(late());
    const error = await failure(
      createClients(harness.server.url).google.models.generateContent({
        model: upstreams.gemini.alias,
        contents: 'Hi',
      }),
    );
    expect(error?.status).toBe(504);
    expect(error?.message).toContain('"status":"DEADLINE_EXCEEDED"');
  });
});

describe('an upstream stream that stalls after content', () => {
  const current = harnessWith({ idleTimeout: idleTimeoutMs });

  it('past its idle timeout, an Anthropic stream ends in-band with timeout_error', async () => {
    const harness = current();
    harness.emulator.enqueue({ ...scriptedText('Hello there.'), fault: { stallAfterEvents: 4 } });
    const before = harness.accessLog.length;
    const stream = await createClients(harness.server.url).anthropic.messages.create({
      model: upstreams['anthropic-messages'].alias,
      max_tokens: 16,
      stream: true,
      messages,
    });
    let text = '';
    const error = await failure(
      (async () => {
        for await (const event of stream)
          if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
            text += event.delta.text;
      })(),
    );
    expect(text).not.toBe('');
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error?.error).toMatchObject({ type: 'error', error: { type: 'timeout_error' } });
    await expect.poll(() => harness.accessLog.slice(before).map((line) => line.status)).toEqual([504]);
  });
});

describe('a routed model whose fallback its circuit keeps out', () => {
  let routed: GatewayHarness;
  beforeAll(async () => {
    // The late-headers case's first-byte timeout (the in-stream case needs none).
    const timeouts = { firstByteTimeout: firstByteTimeoutMs };
    routed = await startGatewayHarness({}, { anthropic: timeouts, openai: timeouts });
    expect(await keepFallbackOut(routed)).toBe('open');
  });
  afterAll(() => routed.close());

  /** `up-fallback` (claude-haiku-4-5, then the openai fallback kept out) through the Anthropic SDK. */
  async function fallbackFailure(script: EmulatorScript, stream: boolean) {
    routed.emulator.enqueue(script);
    const before = routed.accessLog.length;
    const error = await failure(
      (async () => {
        const reply = await createClients(routed.server.url).anthropic.messages.create({
          model: 'up-fallback',
          max_tokens: 16,
          stream,
          messages,
        });
        if (stream) for await (const _event of reply as AsyncIterable<unknown>);
      })(),
    );
    await expect.poll(() => routed.accessLog.length).toBe(before + 1);
    return { error, logged: routed.accessLog.slice(before).map((line) => [line.status, line.errorClass]) };
  }

  // Before, the routed error kept only the class: a 502 api_error (logged 502), as if the upstream had failed.
  it('a first-byte timeout of the primary is still the 504 timeout_error', async () => {
    const { error, logged } = await fallbackFailure(late(), false);
    expect(error).toBeInstanceOf(Anthropic.GatewayTimeoutError);
    expect(error?.status).toBe(504);
    expect(error?.error).toMatchObject({ error: { type: 'timeout_error' } });
    expect(error?.headers?.get('x-should-retry')).toBe('true');
    expect(logged).toEqual([[504, 'network']]);
  });

  it('an in-stream timeout_error of the primary before any content is the 504 timeout_error', async () => {
    const inBand = {
      type: 'sse',
      events: [
        {
          event: 'message_start',
          data: {
            type: 'message_start',
            message: {
              id: 'msg_1',
              type: 'message',
              role: 'assistant',
              model: 'claude-haiku-4-5',
              content: [],
              stop_reason: null,
              stop_sequence: null,
              usage: { input_tokens: 3, output_tokens: 1 },
            },
          },
        },
        {
          event: 'error',
          data: { type: 'error', error: { type: 'timeout_error', message: 'Request timed out' } },
        },
      ],
    } as EmulatorScript;
    const { error, logged } = await fallbackFailure(inBand, true);
    expect(error).toBeInstanceOf(Anthropic.GatewayTimeoutError);
    expect(error?.status).toBe(504);
    expect(error?.error).toMatchObject({ error: { type: 'timeout_error' } });
    expect(logged).toEqual([[504, 'server_error']]);
  });
});
