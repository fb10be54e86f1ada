/**
 * OpenAI strict output makes an optional property required and nullable; the model's `null` for it
 * is removed again on the reply (providers/openai/strict-nulls.ts), whole and streamed, nested. A
 * stream whose schema gained no such property is passed through delta by delta as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/core/events.ts';
import type { JsonObject } from '../../src/core/json.ts';
import type { CanonicalRequest } from '../../src/core/request.ts';
import { collectStream as collect } from '../../src/testing/collect.ts';
import { type Emulator, type EmulatorProtocolId, startEmulator } from '../../src/testing/emulator/index.ts';
import { assertStreamInvariants } from '../../src/testing/invariants.ts';
import { adapterOnEmulator, defaultModelFor } from '../support/provider-types.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

const person: JsonObject = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    nickname: { type: 'string' },
    pets: {
      type: 'array',
      items: {
        type: 'object',
        properties: { kind: { type: 'string' }, age: { type: 'integer' } },
        required: ['kind'],
      },
    },
  },
  required: ['name'],
  additionalProperties: false,
};
const answer = '{"name":"Ada","nickname":null,"pets":[{"kind":"cat","age":null}]}';
const cleaned = '{"name":"Ada","pets":[{"kind":"cat"}]}';

function request(protocol: EmulatorProtocolId, schema: JsonObject): CanonicalRequest {
  return {
    model: defaultModelFor(protocol),
    maxOutputTokens: 256,
    transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Who?' }] }],
    outputSchema: { name: 'person', schema },
  };
}

const textDeltas = (events: StreamEvent[]) =>
  events.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : []));

describe.each(['openai-chat', 'openai-responses'] as const)('strict output nulls over %s', (protocol) => {
  it('whole: the added nulls are gone from the reply text, nested ones too', async () => {
    emulator.enqueue({ type: 'scripted', protocol, content: [{ type: 'text', text: answer }] });
    const adapter = await adapterOnEmulator(protocol, { baseURL: emulator.url, maxRetries: 0 });
    const response = await adapter.complete(request(protocol, person));
    expect(response.content).toMatchObject([{ type: 'text', text: cleaned }]);
    await adapter.close();
  });

  it('streamed: the JSON text is held and sent cleaned as one delta at its end', async () => {
    emulator.enqueue({ type: 'scripted', protocol, content: [{ type: 'text', text: answer }], chunkSize: 8 });
    const adapter = await adapterOnEmulator(protocol, { baseURL: emulator.url, maxRetries: 0 });
    const { events, response } = await collect(adapter.stream(request(protocol, person)));
    assertStreamInvariants(events);
    expect(textDeltas(events)).toEqual([cleaned]);
    expect(response?.content).toMatchObject([{ type: 'text', text: cleaned }]);
    await adapter.close();
  });

  it('streamed: a schema that gained no nullable property streams delta by delta, unchanged', async () => {
    const required: JsonObject = { ...person, properties: { name: { type: 'string' } }, required: ['name'] };
    const text = '{"name":"Ada","extra":null}';
    emulator.enqueue({ type: 'scripted', protocol, content: [{ type: 'text', text }], chunkSize: 8 });
    const adapter = await adapterOnEmulator(protocol, { baseURL: emulator.url, maxRetries: 0 });
    const { events } = await collect(adapter.stream(request(protocol, required)));
    expect(textDeltas(events).length).toBeGreaterThan(1);
    expect(textDeltas(events).join('')).toBe(text);
    await adapter.close();
  });
});
