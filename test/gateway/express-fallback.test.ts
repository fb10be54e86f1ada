/**
 * Vertex in express mode (an API key, no project) behind the gateway: a Claude candidate it cannot
 * serve is skipped and the route falls over to the next one (before, the call's `unsupported_model`
 * 400 failed the whole route); a route with no servable candidate answers the client with a 400
 * naming express mode. Nothing is sent to Vertex.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { GatewayServer } from 'switchyard-ai/gateway';
import type { Emulator } from 'switchyard-ai/testing';
import { startEmulatedGateway } from '../support/emulated.ts';
import { scriptedText } from './harness.ts';

let emulator: Emulator;
let server: GatewayServer;
let close: () => Promise<void>;
const claude = 'vertex:claude-sonnet-4-5@20250929';

beforeAll(async () => {
  // `env: {}`: no project or base URL from the machine's environment, so the key means express mode.
  ({ emulator, server, close } = await startEmulatedGateway({
    env: {},
    adapters: { openai: 'openai' },
    apiKey: 'upstream-secret-key',
    config: {
      // Vertex is not on the emulator: express mode has no base URL.
      adapters: { vertex: { type: 'vertex', api_key: 'AIzaExpressGatewayKey', max_retries: 0 } },
      models: {
        [claude]: { aliases: ['partner'], fallbacks: ['openai:gpt-4.1-mini'] },
        'vertex:claude-haiku-4-5@20251001': { aliases: ['partner-only'] },
      },
    },
  }));
});
afterAll(() => close?.());

it('a fresh gateway (no call yet) lists no model express mode cannot serve, in every protocol, and keeps the rest', async () => {
  const openai = (await (await fetch(`${server.url}/v1/models`)).json()) as { data: Array<{ id: string }> };
  const ids = openai.data.map((model) => model.id);
  expect(ids).not.toContain(claude);
  expect(ids).not.toContain('partner');
  expect(ids).not.toContain('partner-only');
  expect(ids).toContain('openai:gpt-4.1-mini');
  expect(ids.some((id) => id.startsWith('vertex:gemini-'))).toBe(true);
  const gemini = (await (await fetch(`${server.url}/v1beta/models`)).json()) as {
    models: Array<{ name: string }>;
  };
  expect(gemini.models.map((model) => model.name)).not.toContain(`models/${claude}`);
  const anthropic = (await (
    await fetch(`${server.url}/v1/models`, { headers: { 'anthropic-version': '2023-06-01' } })
  ).json()) as { data: Array<{ id: string }> };
  expect(anthropic.data.map((model) => model.id)).not.toContain('partner');
});

const chat = (model: string) =>
  fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer client-key' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello' }] }),
  });

it('a partner model express mode cannot serve is skipped: the fallback answers the client', async () => {
  const from = emulator.requests.length;
  emulator.enqueue(scriptedText('from the fallback'));
  const response = await chat('partner');
  const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
  expect(response.status).toBe(200);
  expect(body.choices[0]!.message.content).toBe('from the fallback');
  expect(emulator.requests.slice(from).map((request) => request.protocol)).toEqual(['openai-chat']);
});

it('no candidate express mode serves: a 400 invalid request naming express mode, nothing sent', async () => {
  const from = emulator.requests.length;
  const response = await chat('partner-only');
  const text = await response.text();
  expect(response.status).toBe(400);
  expect(JSON.parse(text)).toMatchObject({ error: { type: 'invalid_request_error' } });
  expect(text).toContain('not served in express mode');
  expect(text).not.toContain('AIzaExpressGatewayKey');
  expect(emulator.requests.length).toBe(from);
});

it('a one-model lookup answers 404 for a model no call reaches, and 200 for one its fallback serves', async () => {
  const lookup = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { headers }).then((response) => response.status);
  expect(await lookup('/v1/models/partner-only')).toBe(404);
  expect(await lookup(`/v1/models/${encodeURIComponent('vertex:claude-haiku-4-5@20251001')}`)).toBe(404);
  expect(await lookup('/v1beta/models/partner-only')).toBe(404);
  expect(await lookup('/v1/models/partner-only', { 'anthropic-version': '2023-06-01' })).toBe(404);
  expect(await lookup('/v1/models/partner')).toBe(200);
  expect(await lookup(`/v1beta/models/${encodeURIComponent('vertex:gemini-2.5-flash')}`)).toBe(200);
});
