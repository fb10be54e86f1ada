import { basename } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRecorded } from '../../../test/support/fixtures.ts';
import { isRateLimitError } from '../../core/errors/guards.ts';
import type { StreamEvent } from '../../core/events.ts';
import type { CanonicalResponse } from '../../core/request.ts';
import type { Part } from '../../core/transcript.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { collect, emulatedGemini, finishOf, simpleRequest, toolDeltas } from './test-support.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

const files = listRecorded('google');
const byName = new Map(files.map((file) => [basename(file), file]));

function file(name: string): string {
  const path = byName.get(name);
  if (path === undefined) throw new Error(`missing fixture ${name}`);
  return path;
}

async function streamFixture(name: string): Promise<{ events: StreamEvent[]; response: CanonicalResponse }> {
  emulator.enqueue({ type: 'replay', file: file(name) });
  const { adapter } = emulatedGemini(emulator);
  const { events, error } = await collect(adapter.stream(simpleRequest('gemini-3-pro-preview')));
  expect(error).toBeUndefined();
  assertStreamInvariants(events);
  return { events, response: finishOf(events) };
}

async function completeFixture(name: string): Promise<CanonicalResponse> {
  emulator.enqueue({ type: 'replay', file: file(name) });
  const { adapter } = emulatedGemini(emulator);
  return adapter.complete(simpleRequest('gemini-3-pro-preview'));
}

function partsOfType<Type extends Part['type']>(
  content: Part[],
  type: Type,
): Array<Extract<Part, { type: Type }>> {
  return content.filter((part): part is Extract<Part, { type: Type }> => part.type === type);
}

const handled = new Set<string>();
function fixture(name: string, test: () => Promise<void>): void {
  handled.add(name);
  it(name, test);
}

describe('every recorded Google fixture through the adapter over the emulator', () => {
  it('covers every file in the google folder', () => {
    // Runs last in spirit: the list below must name every file (checked after registration).
    expect([...byName.keys()].filter((name) => !handled.has(name))).toEqual([]);
  });

  fixture('google-text.chunks.txt', async () => {
    const { events, response } = await streamFixture('google-text.chunks.txt');
    expect(response.content).toHaveLength(1);
    const [text] = partsOfType(response.content, 'text');
    expect(text?.text).toBe('There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y');
    expect(text?.metadata?.['gemini.thoughtSignature']).toMatch(/^EqsFCqgF/);
    expect(events.filter((event) => event.type === 'text-delta')).toHaveLength(2);
    expect(response.finishReason).toBe('completed');
    expect(response.rawFinishReason).toBe('STOP');
    expect(response.usage).toEqual({ input: 9, cacheRead: 0, cacheWrite: 0, output: 208, reasoning: 185 });
    expect(response.model).toBe('gemini:gemini-3-pro-preview');
    expect(response.responseId).toBe('bH6LaZW8Fp_3nsEPqtaSwQ4');
  });

  fixture('google-text.json', async () => {
    const response = await completeFixture('google-text.json');
    expect(response.content).toEqual([
      {
        type: 'text',
        text: "There are **3** r's in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.",
        metadata: { 'gemini.thoughtSignature': expect.stringMatching(/^EtoFCtcF/) },
      },
    ]);
    expect(response.finishReason).toBe('completed');
    // 9 + 28 + 244 = 281 = totalTokenCount: candidates exclude thoughts.
    expect(response.usage).toEqual({ input: 9, cacheRead: 0, cacheWrite: 0, output: 272, reasoning: 244 });
  });

  fixture('google-reasoning.chunks.txt', async () => {
    const { response } = await streamFixture('google-reasoning.chunks.txt');
    // Thoughts were not requested: no thought parts, but the thinking is counted and signed.
    expect(partsOfType(response.content, 'reasoning')).toEqual([]);
    const [text] = partsOfType(response.content, 'text');
    expect(text?.text).toBe(
      'There are **3** "r"s in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.',
    );
    expect(text?.metadata?.['gemini.thoughtSignature']).toMatch(/^Eo0HCooH/);
    expect(response.usage).toEqual({ input: 9, cacheRead: 0, cacheWrite: 0, output: 285, reasoning: 256 });
    expect(response.finishReason).toBe('completed');
  });

  fixture('google-reasoning.json', async () => {
    const response = await completeFixture('google-reasoning.json');
    expect(partsOfType(response.content, 'text')[0]?.metadata?.['gemini.thoughtSignature']).toMatch(/^EvsF/);
    expect(response.usage).toEqual({ input: 9, cacheRead: 0, cacheWrite: 0, output: 311, reasoning: 282 });
    expect(response.responseId).toBe('YH6LaZT7ENmPxN8P-r2J8Aw');
  });

  fixture('google-reasoning-gemini3.chunks.txt', async () => {
    const { response } = await streamFixture('google-reasoning-gemini3.chunks.txt');
    const [text] = partsOfType(response.content, 'text');
    expect(text?.text).toBe('There are **3** "r"s in strawberry.\n\nSt**r**awbe**rr**y');
    expect(text?.metadata?.['gemini.thoughtSignature']).toMatch(/^EpAICo0I/);
    expect(response.usage).toEqual({ input: 9, cacheRead: 0, cacheWrite: 0, output: 325, reasoning: 302 });
  });

  fixture('google-reasoning-gemini3.json', async () => {
    const response = await completeFixture('google-reasoning-gemini3.json');
    expect(partsOfType(response.content, 'text')[0]?.metadata?.['gemini.thoughtSignature']).toMatch(/^EswF/);
    expect(response.usage).toEqual({ input: 9, cacheRead: 0, cacheWrite: 0, output: 287, reasoning: 258 });
    expect(response.finishReason).toBe('completed');
  });

  fixture('google-tool-call.json', async () => {
    const response = await completeFixture('google-tool-call.json');
    const [call] = partsOfType(response.content, 'tool-call');
    expect(call).toMatchObject({ name: 'weather', input: { location: 'San Francisco' }, provider: 'gemini' });
    expect(call?.id).toMatch(/^tu_/);
    expect(call?.signature).toMatch(/^EskgCsYg/);
    expect(response.finishReason).toBe('tool-call');
    expect(response.rawFinishReason).toBe('STOP');
    expect(response.metadata?.['gemini.finishMessage']).toBe('Model generated function call(s).');
    expect(response.usage).toEqual({ input: 29, cacheRead: 0, cacheWrite: 0, output: 908, reasoning: 893 });
  });

  fixture('google-tool-call.chunks.txt', async () => {
    const { events, response } = await streamFixture('google-tool-call.chunks.txt');
    expect(response.content).toHaveLength(1);
    const [call] = partsOfType(response.content, 'tool-call');
    expect(call).toMatchObject({ name: 'weather', input: { location: 'San Francisco' } });
    expect(call?.signature).toMatch(/^EqUCCqIC/);
    expect([...toolDeltas(events).values()]).toEqual(['{"location":"San Francisco"}']);
    expect(response.finishReason).toBe('tool-call');
    expect(response.usage).toEqual({ input: 29, cacheRead: 0, cacheWrite: 0, output: 60, reasoning: 45 });
  });

  fixture('google-tool-call-gemini3.json', async () => {
    const response = await completeFixture('google-tool-call-gemini3.json');
    const [call] = partsOfType(response.content, 'tool-call');
    expect(call).toMatchObject({ name: 'weather', input: { location: 'San Francisco' } });
    expect(call?.signature).toMatch(/^Eqo\+Cqc\+/);
    expect(response.finishReason).toBe('tool-call');
    expect(response.usage).toEqual({ input: 29, cacheRead: 0, cacheWrite: 0, output: 1816, reasoning: 1801 });
  });

  fixture('google-tool-call-gemini3.chunks.txt', async () => {
    const { response } = await streamFixture('google-tool-call-gemini3.chunks.txt');
    const calls = partsOfType(response.content, 'tool-call');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ name: 'weather', input: { location: 'San Francisco' } });
    expect(calls[0]?.signature?.length).toBeGreaterThan(1000);
    expect(response.finishReason).toBe('tool-call');
    expect(response.usage).toEqual({ input: 29, cacheRead: 0, cacheWrite: 0, output: 819, reasoning: 804 });
  });

  fixture('google-stream-no-args-tool-call.chunks.txt', async () => {
    const { events, response } = await streamFixture('google-stream-no-args-tool-call.chunks.txt');
    const [thought] = partsOfType(response.content, 'reasoning');
    expect(thought?.text).toMatch(/^\*\*Processing User Requests\*\*/);
    expect(thought?.provider).toBe('gemini');
    const calls = partsOfType(response.content, 'tool-call');
    expect(calls.map((call) => [call.name, call.input])).toEqual([
      ['read_theme', {}],
      ['read_screen', { id: 'A' }],
      ['read_screen', { id: 'B' }],
      ['read_screen', { id: 'C' }],
    ]);
    expect(calls[0]?.signature).toMatch(/^AY89a18a/);
    expect(calls.slice(1).every((call) => call.signature === undefined)).toBe(true);
    const deltas = toolDeltas(events);
    expect(calls.map((call) => deltas.get(call.id))).toEqual([
      '{}',
      '{"id":"A"}',
      '{"id":"B"}',
      '{"id":"C"}',
    ]);
    // The terminal empty text part opens no text part.
    expect(partsOfType(response.content, 'text')).toEqual([]);
    expect(response.finishReason).toBe('tool-call');
    // Vertex's `trafficType: PROVISIONED_THROUGHPUT`: the tier, lower-cased (not priced per token).
    expect(response.usage).toEqual({
      input: 249,
      cacheRead: 0,
      cacheWrite: 0,
      output: 241,
      reasoning: 183,
      serviceTier: 'provisioned_throughput',
    });
    expect(response.model).toBe('gemini:gemini-3-flash-preview');
  });

  fixture('google-stream-tool-call-arguments.chunks.txt', async () => {
    const { events, response } = await streamFixture('google-stream-tool-call-arguments.chunks.txt');
    const calls = partsOfType(response.content, 'tool-call');
    expect(calls.map((call) => call.input)).toEqual([{ location: 'Boston' }, { location: 'San Francisco' }]);
    expect(calls.map((call) => call.name)).toEqual(['getWeather', 'getWeather']);
    expect(calls[0]?.signature).toMatch(/^CiMBjz1r/);
    const deltas = events.filter((event) => event.type === 'tool-call-delta').map((event) => event.delta);
    expect(deltas).toEqual(['{"location":"Boston', '"', '}', '{"location":"San Francisco', '"', '}']);
    expect(response.finishReason).toBe('tool-call');
    // Vertex's `trafficType: ON_DEMAND`: the standard tier.
    expect(response.usage).toEqual({
      input: 26,
      cacheRead: 0,
      cacheWrite: 0,
      output: 155,
      reasoning: 132,
      serviceTier: 'standard',
    });
  });

  fixture('google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt', async () => {
    const { events, response } = await streamFixture(
      'google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt',
    );
    const calls = partsOfType(response.content, 'tool-call');
    expect(calls).toHaveLength(1);
    const expected = {
      operations: [
        { action: 'add', description: 'Fresh red apple', itemid: 'apple_001', price: 0.5 },
        { action: 'add', description: 'Ripe yellow banana', itemid: 'banana_001', price: 0.3 },
      ],
    };
    expect(calls[0]).toMatchObject({ name: 'writeItems', input: expected });
    expect(JSON.parse(toolDeltas(events).get(calls[0]?.id as string) ?? '')).toEqual(expected);
    expect(response.finishReason).toBe('tool-call');
    expect(response.usage).toEqual({
      input: 54,
      cacheRead: 0,
      cacheWrite: 0,
      output: 195,
      reasoning: 121,
      serviceTier: 'provisioned_throughput',
    });
  });

  fixture('google-vertex-stream-tool-call-arguments-nested.1.chunks.txt', async () => {
    const { events, response } = await streamFixture(
      'google-vertex-stream-tool-call-arguments-nested.1.chunks.txt',
    );
    const [call] = partsOfType(response.content, 'tool-call');
    type Recipe = { recipe: { name: string; ingredients: unknown[]; steps: string[] } };
    const recipe = ((call?.input ?? {}) as Recipe).recipe;
    expect(call?.name).toBe('cookRecipe');
    expect(recipe.name).toBe('Lasagna');
    expect(recipe.ingredients).toHaveLength(10);
    expect(recipe.ingredients[0]).toEqual({ amount: '16 oz', name: 'Lasagna noodles' });
    expect(recipe.steps).toHaveLength(10);
    expect(recipe.steps[1]).toBe(
      'Cook lasagna noodles according to package directions, drain and set aside.',
    );
    expect(recipe.steps[4]).toBe('In a 9x13 baking dish, spread a thin layer of meat sauce.');
    expect(recipe.steps[0]).toBe('Preheat oven to 375°F (190°C).');
    expect(JSON.parse(toolDeltas(events).get(call?.id as string) ?? '')).toEqual(call?.input);
    expect(response.finishReason).toBe('tool-call');
    expect(response.usage).toEqual({
      input: 31,
      cacheRead: 0,
      cacheWrite: 0,
      output: 1710,
      reasoning: 1026,
      serviceTier: 'standard',
    });
  });

  fixture('google-429-retry-info.json', async () => {
    emulator.enqueue({ type: 'replay', file: file('google-429-retry-info.json'), status: 429 });
    const { adapter } = emulatedGemini(emulator);
    const error = await adapter.complete(simpleRequest()).catch((caught: unknown) => caught);
    expect(isRateLimitError(error)).toBe(true);
    expect(error).toMatchObject({
      errorClass: 'rate_limit',
      status: 429,
      providerCode: 'RESOURCE_EXHAUSTED',
      retryAfterSeconds: 34.4,
      retryable: true,
    });
  });
});
