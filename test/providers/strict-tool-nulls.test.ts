/**
 * OpenAI strict function tools: the conversion makes an optional parameter required and nullable;
 * the model's `null` for it is removed again from the call's arguments
 * (providers/openai/strict-nulls.ts), whole and streamed, nested. A call to a tool whose schema
 * gained no such parameter streams its argument deltas as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/core/events.ts';
import type { JsonObject } from '../../src/core/json.ts';
import type { CanonicalRequest } from '../../src/core/request.ts';
import type { ToolSpec } from '../../src/core/tools.ts';
import { collectStream as collect } from '../../src/testing/collect.ts';
import { type Emulator, type EmulatorProtocolId, startEmulator } from '../../src/testing/emulator/index.ts';
import { assertStreamInvariants } from '../../src/testing/invariants.ts';
import { apiFor, createOnEmulator, defaultModelFor } from '../support/provider-types.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

/** `units` and `where.region` are optional: strict mode sends them required and nullable. */
const weather: ToolSpec = {
  name: 'weather',
  inputSchema: {
    type: 'object',
    properties: {
      city: { type: 'string' },
      units: { type: 'string', enum: ['c', 'f'] },
      where: {
        type: 'object',
        properties: { country: { type: 'string' }, region: { type: 'string' } },
        required: ['country'],
      },
    },
    required: ['city', 'where'],
  },
};
/** Every parameter required: strict mode adds no null. */
const lookup: ToolSpec = {
  name: 'lookup',
  inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
};
const answer: JsonObject = { city: 'Rome', units: null, where: { country: 'IT', region: null } };
const cleaned = { city: 'Rome', where: { country: 'IT' } };

function request(protocol: EmulatorProtocolId): CanonicalRequest {
  return {
    model: defaultModelFor(protocol),
    maxOutputTokens: 256,
    transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Weather?' }] }],
    tools: [weather, lookup],
  };
}

/** The protocol's adapter on the emulator, its function tools sent `strict`. */
const adapterFor = (protocol: EmulatorProtocolId) =>
  createOnEmulator(apiFor(protocol).type, emulator.url, {
    apiKey: 'emulator-key',
    maxRetries: 0,
    options: { strictTools: true },
  });

const argumentDeltas = (events: StreamEvent[]) =>
  events.flatMap((event) => (event.type === 'tool-call-delta' ? [event.delta] : []));

describe.each(['openai-chat', 'openai-responses'] as const)('strict tool nulls over %s', (protocol) => {
  it('whole: the added nulls are gone from the call input, nested ones too', async () => {
    emulator.enqueue({
      type: 'scripted',
      protocol,
      content: [{ type: 'tool-call', name: 'weather', input: answer }],
    });
    const adapter = adapterFor(protocol);
    const response = await adapter.complete(request(protocol));
    expect(JSON.stringify(emulator.requests.at(-1)!.body)).toContain('"strict":true');
    expect(response.content).toMatchObject([{ type: 'tool-call', name: 'weather', input: cleaned }]);
    expect((response.content[0] as { input: JsonObject }).input).toEqual(cleaned);
    await adapter.close();
  });

  it('streamed: the arguments are held and sent cleaned as one delta at the call end', async () => {
    emulator.enqueue({
      type: 'scripted',
      protocol,
      content: [{ type: 'tool-call', name: 'weather', input: answer }],
      chunkSize: 8,
    });
    const adapter = adapterFor(protocol);
    const { events, response } = await collect(adapter.stream(request(protocol)));
    assertStreamInvariants(events);
    expect(argumentDeltas(events)).toEqual([JSON.stringify(cleaned)]);
    const end = events.find((event) => event.type === 'tool-call-end');
    expect(end).toMatchObject({ input: cleaned });
    expect((response?.content[0] as { input: JsonObject }).input).toEqual(cleaned);
    await adapter.close();
  });

  it('streamed: a call to a tool that gained no null streams its argument deltas unchanged', async () => {
    const input = { query: 'the weather in Rome today' };
    emulator.enqueue({
      type: 'scripted',
      protocol,
      content: [{ type: 'tool-call', name: 'lookup', input }],
      chunkSize: 8,
    });
    const adapter = adapterFor(protocol);
    const { events, response } = await collect(adapter.stream(request(protocol)));
    assertStreamInvariants(events);
    const deltas = argumentDeltas(events);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(JSON.stringify(input));
    expect(response?.content).toMatchObject([{ type: 'tool-call', name: 'lookup', input }]);
    await adapter.close();
  });
});
