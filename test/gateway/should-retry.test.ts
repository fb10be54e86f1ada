/**
 * `x-should-retry` on the gateway's error replies: the official OpenAI and Anthropic SDKs obey it
 * over their own rule, which sends every 408, 409, 429 and 5xx again (Claude Code up to ten times).
 * So an error that sending again cannot mend — the upstream refused the operator's key (a 502), an
 * `insufficient_quota` 429 — says `false`, and the clients give up at once; one that may pass
 * later — an upstream outage — says `true`. An upstream's 409 (a conflict such as a lock held by
 * another request) carries none: the SDKs send it again by their own rule, as to the provider.
 * Proven with the SDKs themselves, retries switched on.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { openaiError, protocolError } from 'switchyard-ai/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorScript } from '../../src/testing/emulator/types.ts';
import { type GatewayHarness, startGatewayHarness, upstreams } from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(() => harness.close());

const answer = (text: string): EmulatorScript =>
  ({ type: 'scripted', content: [{ type: 'text', text }], usage: { input: 3, output: 2 } }) as EmulatorScript;

/** Requests the gateway answered since `before` (its access log). */
const answeredSince = (before: number) => harness.accessLog.slice(before).map((line) => line.status);

/** A raw Chat Completions call: status and `x-should-retry`. */
async function chat(model: string): Promise<{ status: number; shouldRetry: string | null }> {
  const response = await fetch(`${harness.server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }] }),
  });
  await response.arrayBuffer();
  return { status: response.status, shouldRetry: response.headers.get('x-should-retry') };
}

describe('x-should-retry on error replies', () => {
  it('the upstream refused the gateway key: 502 with false; the openai SDK (maxRetries 2) sends once', async () => {
    harness.emulator.enqueue(protocolError('openai-chat', 'auth'));
    expect(await chat(upstreams['openai-chat'].alias)).toEqual({ status: 502, shouldRetry: 'false' });

    harness.emulator.enqueue(protocolError('openai-chat', 'auth'));
    const before = harness.accessLog.length;
    const client = new OpenAI({ baseURL: `${harness.server.url}/v1`, apiKey: 'k', maxRetries: 2 });
    const failure = await client.chat.completions
      .create({ model: upstreams['openai-chat'].alias, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect(answeredSince(before)).toEqual([502]);
  });

  it('the same through the Anthropic SDK (Claude Code’s client): one request, not three', async () => {
    harness.emulator.enqueue(protocolError('anthropic-messages', 'auth'));
    const before = harness.accessLog.length;
    const client = new Anthropic({ baseURL: harness.server.url, apiKey: 'k', maxRetries: 2 });
    const failure = await client.messages
      .create({
        model: upstreams['anthropic-messages'].alias,
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Hi' }],
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.APIError);
    expect((failure as InstanceType<typeof Anthropic.APIError>).status).toBe(502);
    expect(answeredSince(before)).toEqual([502]);
  });

  it('an insufficient_quota 429 (a rate limit no wait mends) says false', async () => {
    harness.emulator.enqueue(
      openaiError(429, 'You exceeded your current quota.', {
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      }),
    );
    expect(await chat(upstreams['openai-chat'].alias)).toEqual({ status: 429, shouldRetry: 'false' });
  });

  it('an upstream outage says true, and the SDK’s retry is then served', async () => {
    harness.emulator.enqueue(protocolError('openai-chat', 'server_error', { 'retry-after': '0' }));
    expect(await chat(upstreams['openai-chat'].alias)).toMatchObject({ shouldRetry: 'true' });

    harness.emulator.enqueue(protocolError('openai-chat', 'server_error', { 'retry-after': '0' }));
    harness.emulator.enqueue(answer('back'));
    const before = harness.accessLog.length;
    const client = new OpenAI({ baseURL: `${harness.server.url}/v1`, apiKey: 'k', maxRetries: 1 });
    const reply = await client.chat.completions.create({
      model: upstreams['openai-chat'].alias,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(reply.choices[0]?.message.content).toBe('back');
    expect(answeredSince(before)).toEqual([500, 200]);
  });

  it('an upstream 409 (a conflict that passes: another request holds the conversation) carries none; each SDK sends it again, as to the provider itself', async () => {
    const conflict = () =>
      openaiError(409, 'Another request is currently being processed for this conversation.', {
        code: 'conflict',
      });
    harness.emulator.enqueue(conflict());
    expect(await chat(upstreams['openai-chat'].alias)).toEqual({ status: 409, shouldRetry: null });

    harness.emulator.enqueue(conflict());
    harness.emulator.enqueue(answer('after the lock'));
    let before = harness.accessLog.length;
    const openai = new OpenAI({ baseURL: `${harness.server.url}/v1`, apiKey: 'k', maxRetries: 1 });
    const reply = await openai.chat.completions.create({
      model: upstreams['openai-chat'].alias,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(reply.choices[0]?.message.content).toBe('after the lock');
    expect(answeredSince(before)).toEqual([409, 200]);

    harness.emulator.enqueue(conflict());
    harness.emulator.enqueue(answer('after the lock'));
    before = harness.accessLog.length;
    const anthropic = new Anthropic({ baseURL: harness.server.url, apiKey: 'k', maxRetries: 1 });
    const message = await anthropic.messages.create({
      model: upstreams['openai-chat'].alias,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'after the lock' });
    expect(answeredSince(before)).toEqual([409, 200]);
  });

  it('an upstream 409 the upstream says to retry says true', async () => {
    harness.emulator.enqueue(openaiError(409, 'locked', { headers: { 'x-should-retry': 'true' } }));
    expect(await chat(upstreams['openai-chat'].alias)).toEqual({ status: 409, shouldRetry: 'true' });
  });

  it('a client error (a 400) says false', async () => {
    harness.emulator.enqueue(protocolError('openai-chat', 'invalid_request'));
    expect(await chat(upstreams['openai-chat'].alias)).toEqual({ status: 400, shouldRetry: 'false' });
  });
});
