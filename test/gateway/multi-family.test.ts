/**
 * Claude and Gemini on one Vertex adapter behind the gateway, with the official SDKs as clients:
 * the family travels with each artifact through both of the gateway's paths — the tagged opaque
 * field of a streamed Anthropic `thinking` block, and the artifact store that keeps a Chat client's
 * Gemini call signatures by call id — so the same family gets its signatures back and the other
 * family never sees them.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createMemoryLogger } from 'switchyard-ai';
import type { GatewayServer } from 'switchyard-ai/gateway';
import type { Emulator } from 'switchyard-ai/testing';
import { startEmulatedGateway } from '../support/emulated.ts';
import { createDrivers, type Driver } from './drivers.ts';
import { createClients } from './harness.ts';

let emulator: Emulator;
let server: GatewayServer;
let close: () => Promise<void>;
const logger = createMemoryLogger();

beforeAll(async () => {
  ({ emulator, server, close } = await startEmulatedGateway({
    logger,
    // One `vertex` adapter serves both families: Claude names carry `@version`.
    adapters: { vertex: 'vertex' },
    apiKey: 'upstream-secret-key',
    config: {
      models: {
        'vertex:claude-sonnet-4-5@20250929': { aliases: ['up-claude'] },
        'vertex:gemini-3-pro-preview': { aliases: ['up-gemini3'] },
      },
      routing: { failure_threshold: 1000 },
    },
  }));
});
afterAll(() => close?.());

const driver = (name: Driver['name']) =>
  createDrivers(createClients(server.url)).find((candidate) => candidate.name === name)!;
const weather = (call: { input: unknown }) => `sunny in ${(call.input as { city: string }).city}`;
const usage = { input: 20, output: 5 };
const lastUpstream = () => JSON.stringify(emulator.requests.at(-1)?.body);

it('Anthropic client, streamed: Claude on Vertex gets its thinking signature back, Gemini on Vertex never sees it', async () => {
  const client = driver('anthropic-messages');
  const history = client.start('Weather in Paris?');
  const spec = { stream: true, tools: true, reasoning: true };
  emulator.enqueue({
    type: 'scripted',
    protocol: 'vertex-anthropic',
    content: [
      { type: 'reasoning', text: 'Paris first.', signature: 'claude-sig-1' },
      { type: 'tool-call', id: 'toolu_vrtx_01Paris', name: 'get_weather', input: { city: 'Paris' } },
    ],
    usage,
  });
  const first = await client.call(history, { ...spec, model: 'up-claude' });
  client.answer(history, first.toolCalls, weather);

  emulator.enqueue({
    type: 'scripted',
    protocol: 'vertex-anthropic',
    content: [{ type: 'text', text: 'Sunny.' }],
    usage,
  });
  expect((await client.call(history, { ...spec, model: 'up-claude' })).text).toBe('Sunny.');
  expect(lastUpstream()).toContain('"signature":"claude-sig-1"');

  history.push({ role: 'user', content: 'And Lyon?' });
  emulator.enqueue({
    type: 'scripted',
    protocol: 'gemini',
    content: [{ type: 'text', text: 'Also sunny.' }],
    usage,
  });
  expect((await client.call(history, { ...spec, model: 'up-gemini3' })).text).toBe('Also sunny.');
  expect(lastUpstream()).not.toContain('claude-sig-1');
  expect(logger.entries.at(-1)?.fields).toMatchObject({
    blockType: 'reasoning',
    reason: 'reasoning produced by vertex/anthropic cannot be verified by vertex/google',
  });
});

it('Chat client (no signature field): the stored Gemini call signature goes back to Gemini on Vertex, never to Claude', async () => {
  const client = driver('openai-chat');
  const history = client.start('Weather in Paris, then Lyon?');
  const spec = { stream: true, tools: true, reasoning: true };
  emulator.enqueue({
    type: 'scripted',
    protocol: 'gemini',
    content: [
      { type: 'reasoning', text: 'Paris first.', signature: 'gemini-thought-sig-1' },
      { type: 'tool-call', name: 'get_weather', input: { city: 'Paris' }, signature: 'gemini-call-sig-1' },
    ],
    usage,
  });
  const first = await client.call(history, { ...spec, model: 'up-gemini3' });
  client.answer(history, first.toolCalls, weather);

  emulator.enqueue({
    type: 'scripted',
    protocol: 'gemini',
    content: [
      { type: 'tool-call', name: 'get_weather', input: { city: 'Lyon' }, signature: 'gemini-call-sig-2' },
    ],
    usage,
  });
  const second = await client.call(history, { ...spec, model: 'up-gemini3' });
  const gemini = lastUpstream();
  expect(gemini).toContain('"thoughtSignature":"gemini-call-sig-1"');
  expect(gemini).toContain('"thoughtSignature":"gemini-thought-sig-1"');
  expect(gemini).not.toContain('skip_thought_signature_validator');
  client.answer(history, second.toolCalls, weather);

  // The tool loop goes on with Claude: Gemini's restored artifacts are dropped, thinking is off (no 400).
  emulator.enqueue({
    type: 'scripted',
    protocol: 'vertex-anthropic',
    content: [{ type: 'text', text: 'Both sunny.' }],
    usage,
  });
  expect((await client.call(history, { ...spec, model: 'up-claude' })).text).toBe('Both sunny.');
  const claude = lastUpstream();
  expect(claude).not.toContain('gemini-call-sig');
  expect(claude).not.toContain('gemini-thought-sig');
  expect(claude).toContain('"tool_use"');
});
