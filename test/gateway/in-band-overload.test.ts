/**
 * An overload Anthropic reports in its stream (`event: error`, `overloaded_error`: how it says so
 * once its 200 is sent) reaches each client as the same overload over HTTP (a 529) does: before any
 * content, the same reply — the Anthropic SDK's `OverloadedError` 529, the OpenAI SDK's 529, the
 * Gemini SDK's 503 `UNAVAILABLE` — and after content, an in-band error of type `overloaded_error`.
 * Before, the in-band one was a 502 `api_error` (logged 502) whichever came first. An upstream that
 * says so only in words is an overload where its adapter classified it one ("The model is
 * overloaded"), not for any message holding the word: "…the service was not overloaded" stays a
 * 502 `api_error` (before, a 529).
 */
import Anthropic from '@anthropic-ai/sdk';
import { anthropicError } from 'switchyard-ai/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EmulatorScript } from '../../src/testing/emulator/types.ts';
import {
  createClients,
  type GatewayHarness,
  keepFallbackOut,
  startGatewayHarness,
  upstreams,
} from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => harness.emulator.clear());
afterAll(() => harness.close());

const model = upstreams['anthropic-messages'].alias;
const overloaded = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
const messageStart = {
  event: 'message_start',
  data: {
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 3, output_tokens: 1 },
    },
  },
};
const textStart = {
  event: 'content_block_start',
  data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
};
const textDelta = {
  event: 'content_block_delta',
  data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } },
};

/** The overload over HTTP, or in the stream after `before` (its opening events). */
const overload = (where: 'http' | 'in-band', before: object[] = [messageStart]): EmulatorScript =>
  where === 'http'
    ? anthropicError(529, 'overloaded_error', 'Overloaded')
    : ({ type: 'sse', events: [...before, { event: 'error', data: overloaded }] } as EmulatorScript);

/** What the Anthropic SDK's streamed call of `model` through `gateway` throws (undefined: none). */
function anthropicStreamFailure(gateway: GatewayHarness, model: string): Promise<unknown> {
  return (async () => {
    const stream = await createClients(gateway.server.url).anthropic.messages.create({
      model,
      max_tokens: 64,
      stream: true,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    for await (const _event of stream);
  })().then(
    () => undefined,
    (caught: unknown) => caught,
  );
}

/** What each official SDK's streamed call reports of a failure: its class, status and error type. */
const failures = {
  async anthropic() {
    const error = await anthropicStreamFailure(harness, model);
    if (error !== undefined) throw error;
  },
  async openai() {
    const { openai } = createClients(harness.server.url);
    const stream = await openai.chat.completions.create({
      model,
      stream: true,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    for await (const _chunk of stream);
  },
  async google() {
    const { google } = createClients(harness.server.url);
    const stream = await google.models.generateContentStream({ model, contents: 'Hi' });
    for await (const _chunk of stream);
  },
};

async function failureOf(client: keyof typeof failures) {
  const error = (await failures[client]().then(
    () => undefined,
    (caught: unknown) => caught,
  )) as { constructor: { name: string }; status?: number; type?: string; message: string } | undefined;
  expect(error).toBeDefined();
  return {
    name: error!.constructor.name,
    status: error!.status,
    type: error!.type,
    // Gemini's SDK puts the body in its message: its `status` name.
    google: /"status":"([A-Z_]+)"/.exec(error!.message)?.[1],
  };
}

describe('an in-stream Anthropic overload before any content', () => {
  it('is the Anthropic SDK’s OverloadedError 529 overloaded_error, as the HTTP 529 is, and logged 529', async () => {
    harness.emulator.enqueue(overload('in-band'));
    const before = harness.accessLog.length;
    const error = await failures.anthropic().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Anthropic.OverloadedError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      error: { type: 'overloaded_error' },
    });
    expect(harness.accessLog.slice(before).map((line) => [line.status, line.errorClass])).toEqual([
      [529, 'server_error'],
    ]);
  });

  it.each(['anthropic', 'openai', 'google'] as const)(
    'reaches the %s SDK as the same overload over HTTP does',
    async (client) => {
      harness.emulator.enqueue(overload('http'));
      const overHttp = await failureOf(client);
      harness.emulator.enqueue(overload('in-band'));
      expect(await failureOf(client)).toEqual(overHttp);
      // Each protocol's own overload: Google's is a 503 UNAVAILABLE.
      expect(overHttp.status).toBe(client === 'google' ? 503 : 529);
    },
  );
});

it('an in-stream Anthropic overload after content is an in-band overloaded_error, after the text', async () => {
  harness.emulator.enqueue(overload('in-band', [messageStart, textStart, textDelta]));
  const before = harness.accessLog.length;
  const { anthropic } = createClients(harness.server.url);
  const stream = await anthropic.messages.create({
    model,
    max_tokens: 64,
    stream: true,
    messages: [{ role: 'user', content: 'Hi' }],
  });
  let text = '';
  const error = await (async () => {
    for await (const event of stream)
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
  })().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(text).toBe('Hello');
  expect(error).toBeInstanceOf(Anthropic.APIError);
  expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
    type: 'error',
    error: { type: 'overloaded_error' },
  });
  await expect.poll(() => harness.accessLog.slice(before).map((line) => line.status)).toEqual([529]);
});

describe('an in-stream overload of a routed model whose fallback its circuit keeps out', () => {
  let routed: GatewayHarness;
  beforeAll(async () => {
    routed = await startGatewayHarness();
    expect(await keepFallbackOut(routed)).toBe('open');
  });
  afterAll(() => routed.close());

  /** What the Anthropic SDK's streamed call of `up-fallback` throws when the primary sends `script`. */
  async function routedFailure(script: EmulatorScript): Promise<unknown> {
    routed.emulator.enqueue(script);
    return anthropicStreamFailure(routed, 'up-fallback');
  }

  // Before, the routed error kept only the class: a 502 api_error (logged 502), the overload lost.
  it('is the Anthropic SDK’s OverloadedError 529, as without a fallback', async () => {
    const before = routed.accessLog.length;
    const error = await routedFailure(overload('in-band'));
    expect(error).toBeInstanceOf(Anthropic.OverloadedError);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      error: { type: 'overloaded_error' },
    });
    await expect
      .poll(() => routed.accessLog.slice(before).map((line) => [line.status, line.errorClass]))
      .toEqual([[529, 'server_error']]);
  });

  // The adapter's verdict travels too: an overload said only in words is no overload code.
  it('said only in words ("The model is overloaded") is the 529 too, as without a fallback', async () => {
    const words = { type: 'api_error', message: 'The model is overloaded. Please try again later.' };
    const script = {
      type: 'sse',
      events: [messageStart, { event: 'error', data: { type: 'error', error: words } }],
    };
    expect(await routedFailure(script as EmulatorScript)).toBeInstanceOf(Anthropic.OverloadedError);
  });
});

describe('a Chat Completions upstream’s in-band server_error before any content (no code of an overload)', () => {
  /** The upstream's stream: only the error chunk, OpenAI's shape. */
  const chatError = (message: string): EmulatorScript =>
    ({
      type: 'sse',
      events: [{ data: JSON.stringify({ error: { message, type: 'server_error' } }) }],
    }) as EmulatorScript;
  const anthropicFailure = async () => {
    const error = await anthropicStreamFailure(harness, upstreams['openai-chat'].alias);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    const { status, error: body } = error as InstanceType<typeof Anthropic.APIError>;
    return { status, type: (body as { error?: { type?: string } } | undefined)?.error?.type };
  };

  it('saying the model is overloaded reaches the Anthropic SDK as the 529 overloaded_error', async () => {
    harness.emulator.enqueue(chatError('The model is overloaded. Please try again later.'));
    expect(await anthropicFailure()).toEqual({ status: 529, type: 'overloaded_error' });
  });

  it('only holding the word (“…was not overloaded”) is the 502 api_error of a server error, no overload', async () => {
    harness.emulator.enqueue(chatError('Internal error while the service was not overloaded'));
    expect(await anthropicFailure()).toEqual({ status: 502, type: 'api_error' });
  });
});
