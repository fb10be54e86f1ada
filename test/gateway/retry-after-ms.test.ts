/**
 * `retry-after-ms` on the gateway's error replies: an upstream's wait passed on to the client with
 * its precision (`retry-after` alone is whole seconds, so an upstream's 50 ms became a full second).
 * The official OpenAI and Anthropic SDKs read `retry-after-ms` first; proven with the SDKs.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { protocolError } from 'switchyard-ai/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayHarness, scriptedText, startGatewayHarness, upstreams } from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(() => harness.close());

const messages = [{ role: 'user' as const, content: 'Hi' }];

/** A fetch that records when each request left. */
function timedFetch() {
  const sent: number[] = [];
  const fetcher: typeof fetch = (input, init) => {
    sent.push(performance.now());
    return fetch(input, init);
  };
  return { sent, fetcher };
}

describe('retry-after-ms on error replies', () => {
  it('an upstream 429 with retry-after-ms 50: the OpenAI SDK sees retry-after 1 and retry-after-ms 50', async () => {
    harness.emulator.enqueue(protocolError('openai-chat', 'rate_limit', { 'retry-after-ms': '50' }));
    const client = new OpenAI({ baseURL: `${harness.server.url}/v1`, apiKey: 'k', maxRetries: 0 });
    const failure = await client.chat.completions
      .create({ model: upstreams['openai-chat'].alias, messages })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
    const headers = (failure as InstanceType<typeof OpenAI.RateLimitError>).headers;
    expect(headers.get('retry-after')).toBe('1');
    expect(headers.get('retry-after-ms')).toBe('50');
  });

  it('the OpenAI SDK retries after the precise wait, not a whole second', async () => {
    harness.emulator.enqueue(protocolError('openai-chat', 'rate_limit', { 'retry-after-ms': '50' }));
    harness.emulator.enqueue(scriptedText('back'));
    const { sent, fetcher } = timedFetch();
    const client = new OpenAI({
      baseURL: `${harness.server.url}/v1`,
      apiKey: 'k',
      maxRetries: 1,
      fetch: fetcher,
    });
    const reply = await client.chat.completions.create({ model: upstreams['openai-chat'].alias, messages });
    expect(reply.choices[0]?.message.content).toBe('back');
    expect(sent).toHaveLength(2);
    // With `retry-after: 1` alone the SDK waits 1,000 ms.
    expect(sent[1]! - sent[0]!).toBeLessThan(800);
  });

  it('the Anthropic SDK sees the same from an Anthropic upstream’s retry-after-ms', async () => {
    harness.emulator.enqueue(protocolError('anthropic-messages', 'rate_limit', { 'retry-after-ms': '1500' }));
    const client = new Anthropic({ baseURL: harness.server.url, apiKey: 'k', maxRetries: 0 });
    const failure = await client.messages
      .create({ model: upstreams['anthropic-messages'].alias, max_tokens: 16, messages })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.RateLimitError);
    const headers = (failure as InstanceType<typeof Anthropic.RateLimitError>).headers;
    expect(headers.get('retry-after')).toBe('2');
    expect(headers.get('retry-after-ms')).toBe('1500');
  });

  it('a whole-second upstream retry-after is passed on in both headers', async () => {
    harness.emulator.enqueue(protocolError('gemini', 'rate_limit', { 'retry-after': '3' }));
    const response = await harness.post(`/v1beta/models/${upstreams.gemini.alias}:generateContent`, {
      contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
    });
    await response.arrayBuffer();
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
    expect(response.headers.get('retry-after-ms')).toBe('3000');
  });
});
