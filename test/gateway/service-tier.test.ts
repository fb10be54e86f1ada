/**
 * The service tier through the gateway: each client protocol reads, in its own field, the tier the
 * upstream says served the call (Chat and Responses `service_tier`, Anthropic `usage.service_tier`),
 * whole and streamed, and its documented default when the upstream names none; a tier the price
 * table has no price for is costed at the standard rate with one WARN. The access log line names
 * the tier (`serviceTier`) when the upstream named one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Usage } from '../../src/core/usage.ts';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

/** The upstream (any protocol: the emulator's codec writes the tier in that protocol's field) answers on `tier`. */
function answerOn(tier: string | undefined, text = 'On it.') {
  const usage: Partial<Usage> = { input: 12, output: 3 };
  if (tier !== undefined) usage.serviceTier = tier;
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text }], usage });
}

const messages = [{ role: 'user' as const, content: 'Go.' }];

describe('the service tier an upstream reports, in the client protocol’s own field', () => {
  it('an OpenAI Chat client reads a Responses upstream’s flex tier as service_tier, whole and streamed', async () => {
    const { openai } = createClients(harness.server.url);
    answerOn('flex');
    const whole = await openai.chat.completions.create({ model: 'up-responses', messages });
    expect(whole.service_tier).toBe('flex');

    answerOn('flex');
    const stream = await openai.chat.completions.create({
      model: 'up-responses',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const tiers: Array<string | null | undefined> = [];
    for await (const chunk of stream) tiers.push(chunk.service_tier);
    // A Responses upstream names its tier at its end: no chunk says another one before it.
    expect(tiers.at(-1)).toBe('flex');
    expect(tiers.filter((tier) => tier !== undefined && tier !== 'flex')).toEqual([]);
  });

  it('an Anthropic client reads an OpenAI Chat upstream’s priority tier as usage.service_tier, whole and streamed', async () => {
    const { anthropic } = createClients(harness.server.url);
    const request = { model: 'up-chat', max_tokens: 100, messages };
    answerOn('priority');
    expect((await anthropic.messages.create(request)).usage.service_tier).toBe('priority');
    // Chat names it on its first chunk: message_start says it, where the SDK reads it.
    answerOn('priority');
    const streamed = await anthropic.messages.stream(request).finalMessage();
    expect(streamed.usage.service_tier).toBe('priority');
  });

  it('an OpenAI Responses client reads an Anthropic upstream’s priority tier as service_tier, whole and streamed', async () => {
    const { openai } = createClients(harness.server.url);
    answerOn('priority');
    const whole = await openai.responses.create({ model: 'up-anthropic', input: 'Go.' });
    expect(whole.service_tier).toBe('priority');
    answerOn('priority');
    const streamed = await openai.responses.stream({ model: 'up-anthropic', input: 'Go.' }).finalResponse();
    expect(streamed.service_tier).toBe('priority');
  });

  it('a standard tier goes out under the client protocol’s own name (Anthropic standard ↔ OpenAI default)', async () => {
    const { openai, anthropic } = createClients(harness.server.url);
    answerOn('standard');
    expect((await openai.chat.completions.create({ model: 'up-anthropic', messages })).service_tier).toBe(
      'default',
    );
    answerOn('default');
    const reply = await anthropic.messages.create({ model: 'up-chat', max_tokens: 100, messages });
    expect(reply.usage.service_tier).toBe('standard');
  });

  it('an upstream that names no tier (Gemini) gives each client protocol its documented default', async () => {
    const { openai, anthropic } = createClients(harness.server.url);
    answerOn(undefined);
    expect((await openai.chat.completions.create({ model: 'up-gemini', messages })).service_tier).toBe(
      'default',
    );
    answerOn(undefined);
    expect((await openai.responses.create({ model: 'up-gemini', input: 'Go.' })).service_tier).toBe(
      'default',
    );
    answerOn(undefined);
    const reply = await anthropic.messages.create({ model: 'up-gemini', max_tokens: 100, messages });
    expect(reply.usage.service_tier).toBe('standard');
  });

  it('the Gemini API’s x-gemini-service-tier header is the tier: an OpenAI Chat client reads it, whole and streamed to an Anthropic client', async () => {
    const chunk = {
      candidates: [
        { content: { role: 'model', parts: [{ text: 'Fine.' }] }, finishReason: 'STOP', index: 0 },
      ],
      usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 7 },
      modelVersion: 'gemini-2.5-flash',
    };
    const headers = { 'x-gemini-service-tier': 'flex' };
    const { openai, anthropic } = createClients(harness.server.url);
    harness.emulator.enqueue({ type: 'json', body: chunk, headers });
    expect((await openai.chat.completions.create({ model: 'up-gemini', messages })).service_tier).toBe(
      'flex',
    );
    harness.emulator.enqueue({ type: 'sse', events: [{ data: JSON.stringify(chunk) }], headers });
    const streamed = await anthropic.messages
      .stream({ model: 'up-gemini', max_tokens: 100, messages })
      .finalMessage();
    // Read before the body: message_start says it.
    expect(streamed.usage.service_tier).toBe('flex');
  });

  it('a call served on a tier without a known price is costed at the standard rate, with one WARN per model and tier', async () => {
    const { openai } = createClients(harness.server.url);
    const warnings = () =>
      harness.logger.entries.filter(
        (entry) => entry.fields.serviceTier === 'scale' && entry.fields.model === 'openai:gpt-5-mini',
      );
    answerOn('scale');
    await openai.chat.completions.create({ model: 'up-chat', messages });
    answerOn('scale');
    await openai.chat.completions.create({ model: 'up-chat', messages });
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]?.message).toContain('costed at the standard rate');
  });
});

describe('the access log line names the tier the upstream named', () => {
  /** The access log line of the next request `call` makes (one line each, logged once delivered). */
  async function loggedLine(call: () => Promise<unknown>) {
    const before = harness.accessLog.length;
    await call();
    await expect.poll(() => harness.accessLog.length - before).toBe(1);
    return harness.accessLog.at(-1)!;
  }

  it('serviceTier on a whole reply and a stream alike, as the upstream named it; no field when it named none', async () => {
    const { openai, anthropic } = createClients(harness.server.url);
    answerOn('flex');
    const whole = await loggedLine(() => openai.chat.completions.create({ model: 'up-responses', messages }));
    expect(whole).toMatchObject({ status: 200, stream: false, serviceTier: 'flex' });

    answerOn('priority');
    const streamed = await loggedLine(() =>
      anthropic.messages.stream({ model: 'up-chat', max_tokens: 100, messages }).finalMessage(),
    );
    expect(streamed).toMatchObject({ status: 200, stream: true, serviceTier: 'priority' });

    // A Gemini API upstream without its header names none: the client still reads its default.
    answerOn(undefined);
    const unnamed = await loggedLine(() =>
      openai.chat.completions.create({ model: 'up-gemini', messages, stream: true }).then(async (stream) => {
        for await (const chunk of stream) void chunk;
      }),
    );
    expect(unnamed).toMatchObject({ status: 200, stream: true });
    expect(unnamed).not.toHaveProperty('serviceTier');
  });
});
