/**
 * Every inbound protocol × every upstream protocol, with the official SDKs unmodified as clients and
 * the emulator as the upstream: text, streamed text, a two-turn parallel tool round trip, reasoning
 * round trip, structured output, upstream 401, a stream cut mid-answer and a client disconnect.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { protocolError } from 'switchyard-ai/testing';
import type { EmulatorScript } from '../../src/testing/emulator/types.ts';
import { createDrivers, type Driver } from './drivers.ts';
import {
  createClients,
  type GatewayHarness,
  startGatewayHarness,
  type UpstreamProtocol,
  upstreams,
} from './harness.ts';

let harness: GatewayHarness;
let drivers: Driver[];

beforeAll(async () => {
  harness = await startGatewayHarness();
  drivers = createDrivers(createClients(harness.server.url));
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

const inboundNames = ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini'] as const;
const upstreamProtocols = Object.keys(upstreams) as UpstreamProtocol[];
const pairs = inboundNames.flatMap((inbound) =>
  upstreamProtocols.map((upstream) => [inbound, upstream] as const),
);
const driver = (name: string) => drivers.find((entry) => entry.name === name)!;
const usage = { input: 12, output: 7 };
const text = (value: string, extra: Partial<EmulatorScript> = {}): EmulatorScript =>
  ({ type: 'scripted', content: [{ type: 'text', text: value }], usage, ...extra }) as EmulatorScript;
const lastUpstreamBody = () => JSON.stringify(harness.emulator.requests.at(-1)?.body);

describe.each(pairs)('%s client → %s upstream', (inbound, upstream) => {
  const model = upstreams[upstream].alias;

  it.each([false, true])('text (stream: %s): same text, finish and usage', async (stream) => {
    harness.emulator.enqueue(text('Bonjour, le monde ! 🌍'));
    const client = driver(inbound);
    const outcome = await client.call(client.start('Say hello'), { model, stream });
    expect(outcome).toMatchObject({ text: 'Bonjour, le monde ! 🌍', finish: 'stop', usage, toolCalls: [] });
    expect(harness.emulator.requests.at(-1)?.protocol).toBe(upstream);
  });

  it('two-turn tool round trip with parallel calls: order, ids and results survive', async () => {
    const client = driver(inbound);
    const history = client.start('Weather in Paris and Lyon?');
    harness.emulator.enqueue({
      type: 'scripted',
      content: [
        { type: 'tool-call', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool-call', name: 'get_weather', input: { city: 'Lyon' } },
      ],
      usage,
    });
    const first = await client.call(history, { model, stream: true, tools: true });
    expect(first.finish).toBe('tool');
    expect(first.toolCalls.map((call) => call.input)).toEqual([{ city: 'Paris' }, { city: 'Lyon' }]);
    expect(new Set(first.toolCalls.map((call) => call.id)).size).toBe(2);
    client.answer(history, first.toolCalls, (call) => `sunny in ${(call.input as { city: string }).city}`);
    harness.emulator.enqueue(text('Paris and Lyon are sunny.'));
    const second = await client.call(history, { model, stream: false, tools: true });
    expect(second.text).toBe('Paris and Lyon are sunny.');
    expect(lastUpstreamBody()).toContain('sunny in Paris');
    expect(lastUpstreamBody()).toContain('sunny in Lyon');
  });

  it('reasoning round trip: the provider signature comes back to the provider that made it', async () => {
    const client = driver(inbound);
    const history = client.start('Weather in Paris?');
    harness.emulator.enqueue({
      type: 'scripted',
      content: [
        { type: 'reasoning', text: 'The user wants the weather.', signature: 'sig-reasoning-42' },
        { type: 'tool-call', name: 'get_weather', input: { city: 'Paris' } },
      ],
      usage,
    });
    const first = await client.call(history, { model, stream: true, tools: true, reasoning: true });
    expect(first.toolCalls).toHaveLength(1);
    if (inbound !== 'openai-chat') expect(first.reasoning).toBe('The user wants the weather.');
    client.answer(history, first.toolCalls, () => 'sunny');
    harness.emulator.enqueue(text('Sunny.'));
    await client.call(history, { model, stream: true, tools: true, reasoning: true });
    // Chat Completions upstreams take no reasoning back; every other upstream gets its signature.
    if (upstream !== 'openai-chat') expect(lastUpstreamBody()).toContain('sig-reasoning-42');
  });

  it('structured output: the schema reaches the upstream and the JSON comes back', async () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    };
    harness.emulator.enqueue(text('{"city":"Paris"}'));
    const client = driver(inbound);
    const outcome = await client.call(client.start('Which city?'), { model, stream: false, schema });
    expect(JSON.parse(outcome.text)).toEqual({ city: 'Paris' });
    expect(lastUpstreamBody()).toContain('"required":["city"]');
  });

  it("upstream 401: a 502 in the client's error shape, never the upstream key", async () => {
    harness.emulator.enqueue(protocolError(upstream, 'auth'));
    const client = driver(inbound);
    const failure = await client
      .call(client.start('Hi'), { model, stream: true })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 502 });
    expect(String((failure as Error).message)).not.toContain('upstream-secret-key');
    expect(String((failure as Error).message)).toMatch(/credentials/);
  });

  it('mid-stream cut: the client sees an error, never a clean finish', async () => {
    harness.emulator.enqueue(text('x'.repeat(160), { chunkSize: 8, fault: { disconnectAfterEvents: 8 } }));
    const client = driver(inbound);
    await expect(client.call(client.start('Long answer'), { model, stream: true })).rejects.toThrow();
    expect(harness.accessLog.at(-1)).toMatchObject({ status: 502, errorClass: 'network' });
  });

  it('client disconnect: the upstream call is cancelled (its socket closes)', async () => {
    harness.emulator.enqueue(text('y'.repeat(160), { chunkSize: 8, fault: { stallAfterEvents: 6 } }));
    const served = harness.nextServed();
    const client = driver(inbound);
    await client.abortAfterFirstChunk(client.start('Long answer'), { model, stream: true });
    expect(await served).toMatchObject({ complete: false });
  });
});

describe.each(inboundNames)('%s client, routing', (inbound) => {
  it('429 → fallback: the next candidate answers, the client sees one clean reply', async () => {
    harness.emulator.enqueue(protocolError('anthropic-messages', 'rate_limit'));
    harness.emulator.enqueue(text('Served by the fallback.'));
    const client = driver(inbound);
    const outcome = await client.call(client.start('Hi'), { model: 'up-fallback', stream: true });
    expect(outcome.text).toBe('Served by the fallback.');
    expect(harness.emulator.requests.slice(-2).map((request) => request.protocol)).toEqual([
      'anthropic-messages',
      'openai-chat',
    ]);
  });
});

describe.each(inboundNames)('%s client, a Gemini model failure', (inbound) => {
  it.each([
    [false, []],
    [true, []],
    [true, [{ type: 'text', text: 'Let me call the tool' }]],
  ])(
    'MALFORMED_FUNCTION_CALL (stream: %s, content: %j) is a 502 model_failure error, never a clean finish',
    async (stream, content) => {
      harness.emulator.enqueue({
        type: 'scripted',
        content,
        finishReason: 'MALFORMED_FUNCTION_CALL',
      } as EmulatorScript);
      const client = driver(inbound);
      const failure = await client
        .call(client.start('Call the tool'), { model: 'up-gemini', stream })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(Error);
      expect(String((failure as Error).message)).toMatch(/unusable \(MALFORMED_FUNCTION_CALL\)/);
      // Never an error type the client's protocol does not have (Anthropic: api_error for a 502).
      if (inbound === 'anthropic-messages' && !stream)
        expect((failure as { error?: { error?: { type?: string } } }).error?.error?.type).toBe('api_error');
      // The call was made and paid: its provider and usage are logged.
      expect(harness.accessLog.at(-1)).toMatchObject({
        status: 502,
        errorClass: 'server_error',
        provider: 'gemini',
      });
    },
  );
});
