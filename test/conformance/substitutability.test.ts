/**
 * Substitutability (docs/contract.md §10.2): a fixed canonical conversation script runs through each
 * adapter from committed HTTP cassettes; the canonical results are identical across adapters
 * (modulo provider, model and ids). Re-record with `SWITCHYARD_RECORD=1 npx vitest run test/conformance/substitutability.test.ts`
 * (records against the emulator).
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Adapter } from '../../src/core/adapter.ts';
import { silentLogger } from '../../src/core/logger.ts';
import type { CanonicalResponse } from '../../src/core/request.ts';
import type { Item, Part } from '../../src/core/transcript.ts';
import { type CassetteRequest, createCassette } from '../../src/testing/cassette/index.ts';
import {
  type Emulator,
  type EmulatorProtocolId,
  type EmulatorScript,
  startEmulator,
} from '../../src/testing/emulator/index.ts';
import { builtinProviderType, protocolOf } from '../support/provider-types.ts';
import { repoRoot } from '../support/fixtures.ts';

const recording = process.env.SWITCHYARD_RECORD === '1';
const cassettes = join(repoRoot, 'test/__fixtures__/cassettes');
const tools = [
  {
    name: 'get_weather',
    description: 'Weather for a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  },
];

/** The built-in provider-type rows the conversation runs through, with the model each is asked for. */
const providers = [
  { name: 'anthropic', model: 'anthropic:claude-sonnet-4-5', options: {} },
  { name: 'openai', model: 'openai:gpt-4.1', options: {} },
  // The cassette was recorded with the converted (OpenAPI subset) tool schema.
  { name: 'gemini', model: 'gemini:gemini-2.5-flash', options: { useJsonSchema: false } },
].map(({ name, model, options }) => ({
  name,
  model,
  protocol: protocolOf(name),
  path: builtinProviderType(name).basePath ?? '',
  create: (baseURL: string, fetch: typeof globalThis.fetch): Adapter =>
    builtinProviderType(name).create({
      name,
      baseURL,
      fetch,
      apiKey: 'test-key',
      logger: silentLogger,
      options,
    }),
}));

/** The conversation: the model calls a tool, gets its result, answers. */
function scripts(protocol: EmulatorProtocolId): EmulatorScript[] {
  return [
    {
      type: 'scripted',
      protocol,
      content: [
        { type: 'text', text: 'Let me check.' },
        { type: 'tool-call', name: 'get_weather', input: { city: 'Paris' } },
      ],
      usage: { input: 20, output: 10 },
    },
    {
      type: 'scripted',
      protocol,
      content: [{ type: 'text', text: 'It is sunny in Paris.' }],
      usage: { input: 40, output: 6 },
    },
  ];
}

/** Path + query + body: the cassette ignores the emulator's random port. */
function matchIgnoringHost(recorded: CassetteRequest, actual: CassetteRequest): boolean {
  const path = (url: string) => {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  };
  return (
    recorded.method === actual.method &&
    path(recorded.url) === path(actual.url) &&
    JSON.stringify(recorded.body) === JSON.stringify(actual.body)
  );
}

/** Content with provider-specific identity removed. */
function comparable(content: Part[]): unknown {
  return content.map((part) => {
    if (part.type === 'tool-call') return { type: part.type, name: part.name, input: part.input };
    const { provider: _provider, metadata: _metadata, ...rest } = part as Part & { provider?: string };
    return rest;
  });
}

const emulators: Emulator[] = [];
afterAll(async () => {
  for (const emulator of emulators) await emulator.close();
});

async function runConversation(provider: (typeof providers)[number]): Promise<CanonicalResponse[]> {
  let baseURL = `http://cassette.invalid${provider.path}`;
  if (recording) {
    const emulator = await startEmulator();
    emulators.push(emulator);
    for (const script of scripts(provider.protocol)) emulator.enqueue(script);
    baseURL = `${emulator.url}${provider.path}`;
  }
  const cassette = await createCassette({
    file: join(cassettes, `substitutability-${provider.name}.json`),
    mode: recording ? 'record' : 'replay',
    match: matchIgnoringHost,
  });
  const adapter = provider.create(baseURL, cassette.fetch as typeof globalThis.fetch);
  const session = adapter.startSession();
  const transcript: Item[] = [
    { kind: 'system', parts: [{ type: 'text', text: 'You are a weather assistant.' }] },
    { kind: 'user', parts: [{ type: 'text', text: 'Weather in Paris?' }] },
  ];
  const first = await adapter
    .stream({ model: provider.model, transcript, tools, maxOutputTokens: 256 }, { session })
    .result();
  const call = first.content.find((part) => part.type === 'tool-call');
  if (call?.type !== 'tool-call') throw new Error(`${provider.name}: no tool call`);
  transcript.push({ kind: 'assistant', parts: first.content });
  transcript.push({
    kind: 'tool',
    parts: [
      {
        type: 'tool-result',
        callId: call.id,
        name: call.name,
        output: { type: 'text', text: 'sunny, 21 °C' },
        isError: false,
      },
    ],
  });
  const second = await adapter.complete(
    { model: provider.model, transcript, tools, maxOutputTokens: 256 },
    { session },
  );
  await adapter.close();
  if (recording) await cassette.save();
  cassette.assertAllUsed();
  return [first, second];
}

describe('substitutability (cassettes)', () => {
  it('the same conversation yields the same canonical results on every adapter', async () => {
    const results = new Map<string, CanonicalResponse[]>();
    for (const provider of providers) results.set(provider.name, await runConversation(provider));
    const [reference, ...others] = [...results.entries()];
    if (reference === undefined) throw new Error('no providers');
    for (const [name, responses] of others) {
      expect({ name, content: responses.map((response) => comparable(response.content)) }).toEqual({
        name,
        content: reference[1].map((response) => comparable(response.content)),
      });
      expect(responses.map((response) => response.finishReason)).toEqual(['tool-call', 'completed']);
      // The same tokens; the service tier is each provider's own fact (OpenAI `default`, none from others).
      const tokens = (response: CanonicalResponse) => {
        const { serviceTier: _tier, ...buckets } = response.usage;
        return buckets;
      };
      expect(responses.map(tokens)).toEqual(reference[1].map(tokens));
    }
  });
});
