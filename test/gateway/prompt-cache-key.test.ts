/**
 * OpenAI routes requests to a prompt cache by their prefix and `prompt_cache_key`: requests of one
 * conversation under one key land on the same cache. Codex sends its conversation's id. Before,
 * the client's key was dropped and a key made fresh for each request sent instead — each request
 * of a conversation to another cache. Now the client's key passes (hashed past OpenAI's 64
 * characters), a call without one is sent none, and a key turns the cache on toward Claude.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keyDigest } from '../support/gateway-processes.ts';
import { type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

const responses = (model: string, extra: Record<string, unknown> = {}) =>
  harness.post('/v1/responses', JSON.stringify({ model, input: 'Hi', ...extra }));
const chat = (model: string, extra: Record<string, unknown> = {}) =>
  harness.post(
    '/v1/chat/completions',
    JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }], ...extra }),
  );
const sent = () => harness.emulator.requests.at(-1)!.body as Record<string, unknown>;

describe('prompt_cache_key toward an OpenAI Responses upstream', () => {
  it('a Responses client’s key (Codex: its conversation id) reaches the upstream as written, each request', async () => {
    for (const _ of [1, 2]) {
      harness.emulator.enqueue(scriptedText());
      expect((await responses('up-responses', { prompt_cache_key: 'conv-7f3a' })).status).toBe(200);
      expect(sent().prompt_cache_key).toBe('conv-7f3a');
    }
  });

  it('a Chat client’s key reaches a Responses upstream', async () => {
    harness.emulator.enqueue(scriptedText());
    expect((await chat('up-responses', { prompt_cache_key: 'chat-key' })).status).toBe(200);
    expect(sent().prompt_cache_key).toBe('chat-key');
  });

  it('a key over 64 characters is sent as the same 64-character hash each time (OpenAI refuses a longer one)', async () => {
    const long = `session:${'x'.repeat(100)}`;
    const expected = `switchyard-${createHash('sha256').update(long).digest('hex').slice(0, 53)}`;
    for (const _ of [1, 2]) {
      harness.emulator.enqueue(scriptedText());
      expect((await responses('up-responses', { prompt_cache_key: long })).status).toBe(200);
      expect(sent().prompt_cache_key).toBe(expected);
    }
    expect(expected).toHaveLength(64);
  });

  it('an Anthropic client’s cache markers without a key: no key sent, not a new one per request', async () => {
    harness.emulator.enqueue(scriptedText());
    const response = await harness.post(
      '/v1/messages',
      JSON.stringify({
        model: 'up-responses',
        max_tokens: 50,
        system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: 'Hi' }],
      }),
      { 'anthropic-version': '2023-06-01' },
    );
    expect(response.status).toBe(200);
    expect(sent()).not.toHaveProperty('prompt_cache_key');
  });

  it('a key that is not a string is a 400 naming it', async () => {
    const response = await responses('up-responses', { prompt_cache_key: 7 });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { param: 'prompt_cache_key' } });
  });
});

describe('prompt_cache_key toward OpenAI Chat Completions', () => {
  it('OpenAI’s own Chat Completions takes it as written', async () => {
    harness.emulator.enqueue(scriptedText());
    expect((await chat('up-chat', { prompt_cache_key: 'chat-key' })).status).toBe(200);
    expect(sent().prompt_cache_key).toBe('chat-key');
  });

  it('a Chat call without one is sent none', async () => {
    harness.emulator.enqueue(scriptedText());
    expect((await chat('up-chat')).status).toBe(200);
    expect(sent()).not.toHaveProperty('prompt_cache_key');
  });
});

describe('prompt_cache_key toward Claude', () => {
  it('turns the prompt cache on: the request carries cache breakpoints', async () => {
    harness.emulator.enqueue(scriptedText());
    expect((await chat('up-anthropic', { prompt_cache_key: 'chat-key' })).status).toBe(200);
    expect(JSON.stringify(sent())).toContain('"cache_control":{"type":"ephemeral"}');
  });

  it('without one, none', async () => {
    harness.emulator.enqueue(scriptedText());
    expect((await chat('up-anthropic')).status).toBe(200);
    expect(JSON.stringify(sent())).not.toContain('cache_control');
  });
});

describe('a key alone toward a provider that cannot use it', () => {
  it('Gemini: dropped without a WARN each request (a routing hint, not a request for a cache)', async () => {
    harness.emulator.enqueue(scriptedText());
    const before = harness.logger.entries.length;
    expect((await chat('up-gemini', { prompt_cache_key: 'chat-key' })).status).toBe(200);
    const warnings = harness.logger.entries.slice(before).map((entry) => entry.message);
    expect(warnings).not.toContain('prompt cache not used');
  });
});

describe('under gateway keys', () => {
  let keyed: GatewayHarness;
  beforeAll(async () => {
    keyed = await startGatewayHarness({
      keys: [
        { name: 'team-a', key: keyDigest('key-a') },
        { name: 'team-b', key: keyDigest('key-b') },
      ],
    });
  });
  afterAll(async () => {
    await keyed?.close();
  });

  const sentKey = async (gatewayKey: string) => {
    keyed.emulator.enqueue(scriptedText());
    const response = await keyed.post(
      '/v1/responses',
      JSON.stringify({ model: 'up-responses', input: 'Hi', prompt_cache_key: 'conv-1' }),
      { authorization: `Bearer ${gatewayKey}` },
    );
    expect(response.status).toBe(200);
    return (keyed.emulator.requests.at(-1)!.body as { prompt_cache_key?: string }).prompt_cache_key;
  };

  it('one client value under two gateway keys reaches the upstream as two keys (one operator account: no shared routing), each the same every request', async () => {
    const a = await sentKey('key-a');
    const b = await sentKey('key-b');
    const expected = (scope: string) =>
      `sy-${createHash('sha256').update(scope).update('\0').update('conv-1').digest('hex').slice(0, 61)}`;
    expect(a).toBe(expected('6.team-a'));
    expect(b).toBe(expected('6.team-b'));
    expect(a).toHaveLength(64);
    expect(await sentKey('key-a')).toBe(a);
  });
});
