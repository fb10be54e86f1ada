/**
 * Per-key limits and budgets in one gateway process (the memory store, the single-process default),
 * seen through the official SDKs: 429 with retry-after and 402 budget_exceeded in each client's own
 * error type, and the admin-only usage endpoint.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyDigest } from '../support/gateway-processes.ts';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness({
    keys: [
      { name: 'limited', key: keyDigest('key-limited'), limits: { requests_per_minute: 2 } },
      { name: 'tokens', key: keyDigest('key-tokens'), limits: { tokens_per_minute: 3000 } },
      { name: 'budgeted', key: keyDigest('key-budgeted'), budget: { usd_per_day: 0.001 } },
      { name: 'ops', key: keyDigest('key-ops'), admin: true },
      { name: 'leaver', key: keyDigest('key-leaver'), budget: { usd_per_day: 1 } },
      { name: 'single', key: keyDigest('key-single'), max_in_flight: 1 },
    ],
  });
  // 100 input + 1,000 output tokens of gpt-4.1-mini cost more than the $0.001 budget at once.
  harness.emulator.setDefault({
    type: 'scripted',
    content: [{ type: 'text', text: 'ok' }],
    usage: { input: 100, output: 1000 },
  });
});
afterAll(async () => {
  await harness?.close();
});

const ask = (client: OpenAI, max = 100) =>
  client.chat.completions.create({
    model: 'up-chat',
    max_tokens: max,
    messages: [{ role: 'user', content: 'Hi' }],
  });

describe('per-key limits and budgets (memory store)', () => {
  it('over requests per minute: the OpenAI SDK gets a RateLimitError (429) with retry-after', async () => {
    const { openai } = createClients(harness.server.url, 'key-limited');
    await ask(openai);
    await ask(openai);
    const error = await ask(openai).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).type).toBe('requests');
    const retryAfter = Number(
      (error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after'),
    );
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60); // 2 in any rolling minute: back when the first leaves it
  });

  it('the same refusal reaches the Anthropic SDK as its RateLimitError', async () => {
    const { anthropic } = createClients(harness.server.url, 'key-limited');
    const error = await anthropic.messages
      .create({ model: 'up-chat', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
  });

  it('tokens per minute count the input estimate plus max_tokens: one large call fits, the next waits', async () => {
    const { openai } = createClients(harness.server.url, 'key-tokens');
    await ask(openai, 2500);
    const error = await ask(openai, 2500).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    // OpenAI's error type names the limit reached.
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).type).toBe('tokens');
  });

  it('a client that leaves a stream before its usage arrives is charged the reservation, not nothing', async () => {
    harness.emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'y'.repeat(400) }],
      usage: { input: 100, output: 1000 },
      chunkSize: 8,
      fault: { stallAfterEvents: 6 },
    } as Parameters<typeof harness.emulator.enqueue>[0]);
    const served = harness.nextServed();
    const controller = new AbortController();
    const response = await fetch(`${harness.server.url}/v1/chat/completions`, {
      method: 'POST',
      signal: controller.signal,
      headers: { 'content-type': 'application/json', authorization: 'Bearer key-leaver' },
      body: JSON.stringify({
        model: 'up-chat',
        stream: true,
        max_tokens: 1000,
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    });
    await response.body!.getReader().read();
    controller.abort();
    await served;
    const read = async () =>
      (await (
        await fetch(`${harness.server.url}/switchyard/v1/keys/leaver/usage`, {
          headers: { authorization: 'Bearer key-ops' },
        })
      ).json()) as { day: { spent_micros: number; reserved_micros: number } };
    let usage = await read();
    for (let attempt = 0; attempt < 50 && usage.day.reserved_micros > 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      usage = await read();
    }
    expect(usage.day.reserved_micros).toBe(0);
    expect(usage.day.spent_micros).toBeGreaterThan(0);
  });

  it('at its budget: 402 budget_exceeded before dispatch; the admin reads spend and what remains', async () => {
    const { openai } = createClients(harness.server.url, 'key-budgeted');
    await ask(openai, 1000);
    const before = harness.emulator.requests.length;
    const error = await ask(openai, 1000).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ status: 402, code: 'budget_exceeded' });
    expect(harness.emulator.requests.length).toBe(before);
    const usage = await fetch(`${harness.server.url}/switchyard/v1/keys/budgeted/usage`, {
      headers: { authorization: 'Bearer key-ops' },
    });
    const body = (await usage.json()) as { key: string; day: Record<string, number> };
    expect(body).toMatchObject({
      key: 'budgeted',
      day: { limit_usd: 0.001, remaining_usd: 0, reserved_micros: 0 },
    });
    expect(body.day.spent_micros).toBeGreaterThan(1000); // the one call's billed cost, in micro-dollars
    const notAdmin = await fetch(`${harness.server.url}/switchyard/v1/keys/budgeted/usage`, {
      headers: { authorization: 'Bearer key-budgeted' },
    });
    expect(notAdmin.status).toBe(403);
    const unknown = await fetch(`${harness.server.url}/switchyard/v1/keys/nobody/usage`, {
      headers: { authorization: 'Bearer key-ops' },
    });
    expect(unknown.status).toBe(404);
  });

  it('past max_in_flight a key’s next request is a 429 with retry-after (another key is served); the count frees as requests end', async () => {
    const post = (key: string) =>
      fetch(`${harness.server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }] }),
      });
    harness.emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'slow' }],
      usage: { input: 1, output: 1 },
      fault: { delayHeadersMs: 1500 },
    });
    const before = harness.emulator.requests.length;
    const first = post('key-single');
    await expect.poll(() => harness.emulator.requests.length).toBe(before + 1);
    const second = await post('key-single');
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('1');
    expect(await second.text()).toMatch(/1 requests in flight/);
    expect((await post('key-ops')).status).toBe(200);
    expect((await first).status).toBe(200);
    expect((await post('key-single')).status).toBe(200);
  });
});
