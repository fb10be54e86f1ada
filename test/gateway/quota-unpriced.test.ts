/**
 * A key with a budget and a model without a price: refused before any upstream call (its calls
 * would count $0 against the budget, as often as the tenant likes), never reached as a fallback; a
 * key without a budget is served as before, and a price under `pricing:` lets the budget count it.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { protocolError } from 'switchyard-ai/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyDigest } from '../support/gateway-processes.ts';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

const fineTune = 'openai:ft:gpt-4.1-mini-2025-04-14:acme::abc123';

beforeAll(async () => {
  harness = await startGatewayHarness(
    {
      keys: [
        {
          name: 'budgeted',
          key: keyDigest('key-budgeted'),
          models: ['openai:*', 'up-*'],
          budget: { usd_per_day: 5 },
        },
        { name: 'free', key: keyDigest('key-free'), models: ['openai:*', 'up-*'] },
        { name: 'ops', key: keyDigest('key-ops'), admin: true },
      ],
    },
    {},
    {
      'openai:my-tune': { aliases: ['up-tune'] },
      'openai:my-priced-tune': { aliases: ['up-priced-tune'], pricing: { input_mtok: 1, output_mtok: 4 } },
      'anthropic:claude-sonnet-4-5-unpriced-fallback': {
        aliases: ['up-to-unpriced'],
        wire_name: 'claude-sonnet-4-5',
        pricing: { input_mtok: 3, output_mtok: 15 },
        fallbacks: ['openai:my-tune'],
      },
    },
  );
  harness.emulator.setDefault({
    type: 'scripted',
    content: [{ type: 'text', text: 'ok' }],
    usage: { input: 100_000, output: 30_000 },
  });
});
afterAll(async () => {
  await harness?.close();
});

const ask = (client: OpenAI, model: string) =>
  client.chat.completions.create({ model, max_tokens: 1000, messages: [{ role: 'user', content: 'Hi' }] });

const spentMicros = async (key: string) => {
  const response = await fetch(`${harness.server.url}/switchyard/v1/keys/${key}/usage`, {
    headers: { authorization: 'Bearer key-ops' },
  });
  return ((await response.json()) as { day: { spent_micros: number } }).day.spent_micros;
};

describe('a key with a budget and a model without a price', () => {
  it('is refused with 403 model_not_priced before any upstream call, naming the model and `pricing:`', async () => {
    const { openai, anthropic } = createClients(harness.server.url, 'key-budgeted');
    const before = harness.emulator.requests.length;
    for (let attempt = 0; attempt < 3; attempt++) {
      const error = await ask(openai, fineTune).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
      expect(error).toMatchObject({ status: 403, code: 'model_not_priced', type: 'invalid_request_error' });
      expect((error as Error).message).toContain(`model '${fineTune}' has no known price`);
      expect((error as Error).message).toContain('`pricing:`');
    }
    const viaAnthropic = await anthropic.messages
      .create({ model: fineTune, max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((caught: unknown) => caught);
    expect(viaAnthropic).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(harness.emulator.requests.length).toBe(before);
    expect(await spentMicros('budgeted')).toBe(0);
  });

  it('an alias of an unpriced model is refused the same way', async () => {
    const { openai } = createClients(harness.server.url, 'key-budgeted');
    const before = harness.emulator.requests.length;
    const error = await ask(openai, 'up-tune').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 403, code: 'model_not_priced' });
    expect((error as Error).message).toContain("model 'openai:my-tune'");
    expect(harness.emulator.requests.length).toBe(before);
  });

  it('a fallback without a price is never tried for it; a key without a budget still falls back to it', async () => {
    const { openai } = createClients(harness.server.url, 'key-budgeted');
    harness.emulator.enqueue(protocolError('anthropic-messages', 'server_error'));
    const before = harness.emulator.requests.length;
    const error = await ask(openai, 'up-to-unpriced').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(harness.emulator.requests.slice(before).map((request) => request.protocol)).toEqual([
      'anthropic-messages',
    ]);
    const free = createClients(harness.server.url, 'key-free').openai;
    harness.emulator.enqueue(protocolError('anthropic-messages', 'server_error'));
    const served = await ask(free, 'up-to-unpriced');
    expect(served.choices[0]?.message.content).toBe('ok');
    expect(harness.emulator.requests.at(-1)?.protocol).toBe('openai-chat');
  });

  it('a model of an adapter named apart from its provider (`responses`) is priced as its replies are', async () => {
    const { openai } = createClients(harness.server.url, 'key-budgeted');
    const before = await spentMicros('budgeted');
    const reply = await openai.responses.create({
      model: 'up-responses',
      input: 'Hi',
      max_output_tokens: 100,
    });
    expect(reply.status).toBe('completed');
    await expect.poll(async () => (await spentMicros('budgeted')) > before).toBe(true);
  });

  it('a key without a budget is served the unpriced model as before', async () => {
    const { openai } = createClients(harness.server.url, 'key-free');
    const reply = await ask(openai, fineTune);
    expect(reply.choices[0]?.message.content).toBe('ok');
  });

  it('a price in the model’s config entry lets the budget count it', async () => {
    const { openai } = createClients(harness.server.url, 'key-budgeted');
    const before = await spentMicros('budgeted');
    await ask(openai, 'up-priced-tune');
    // 100,000 input at $1/M and 30,000 output at $4/M: $0.22.
    await expect.poll(() => spentMicros('budgeted')).toBe(before + 220_000);
  });
});
