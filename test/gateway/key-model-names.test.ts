/**
 * A key's `models` and a config entry whose wire name differs from its key (`local:my-finetune`
 * sent as `my-finetune-q4`): the model lists and the generation routes agree on what a key may
 * use, whichever of the entry's names the key lists — the entry's key (what `sy.models()` lists it
 * by), its wire id, or an alias.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Gateway } from 'switchyard-ai/gateway';
import { type Emulator, startEmulator } from '../../src/testing/emulator/index.ts';
import { createEmulatedGateway } from '../support/emulated.ts';

let emulator: Emulator;
let gateway: Gateway;

beforeAll(async () => {
  emulator = await startEmulator();
  emulator.setDefault({
    type: 'scripted',
    content: [{ type: 'text', text: 'Hi.' }],
    usage: { input: 3, output: 1 },
  });
  gateway = createEmulatedGateway(emulator.url, {
    logger: { warn: () => {} },
    env: { KEY_A: 'key-a', KEY_B: 'key-b', KEY_C: 'key-c' },
    adapters: { local: { type: 'openai-compatible', preset: 'vllm' } },
    apiKey: 'k',
    config: {
      models: { 'local:my-finetune': { wire_name: 'my-finetune-q4', aliases: ['mine'] } },
      gateway: {
        keys: [
          { name: 'by-entry', key_env: 'KEY_A', models: ['local:my-finetune'] },
          { name: 'by-wire-id', key_env: 'KEY_B', models: ['local:my-finetune-q4'] },
          { name: 'by-alias', key_env: 'KEY_C', models: ['mine'] },
        ],
      },
    },
  });
});
afterAll(async () => {
  await gateway?.switchyard.close();
  await emulator?.close();
});

const listedBy = async (on: Gateway, key: string) => {
  const response = await on.app.request('/v1/models', { headers: { authorization: `Bearer ${key}` } });
  return ((await response.json()) as { data: Array<{ id: string }> }).data.map((model) => model.id).sort();
};
const listed = (key: string) => listedBy(gateway, key);
const callOn = async (on: Gateway, key: string, model: string) =>
  (
    await on.app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }] }),
    })
  ).status;
const call = (key: string, model: string) => callOn(gateway, key, model);

it.each([
  ['key-a', ['local:my-finetune', 'mine']],
  ['key-b', ['local:my-finetune', 'mine']],
  ['key-c', ['mine']],
])(
  '%s: the model list shows what the key may call, and every name it shows answers',
  async (key, expected) => {
    const names = await listed(key);
    expect(names).toEqual(expected);
    for (const name of names) expect(await call(key, name), name).toBe(200);
    for (const name of ['local:my-finetune', 'mine'].filter((name) => !names.includes(name)))
      expect(await call(key, name), name).toBe(403);
  },
);

it('a model named in the path (Gemini) that the key may not use is refused before its body is read', async () => {
  const server = await gateway.listen({ host: '127.0.0.1', port: 0 });
  try {
    const { port } = new URL(server.url);
    const socket = connect(Number(port), '127.0.0.1');
    // A body declared and never sent: the answer cannot wait for it.
    socket.write(
      'POST /v1beta/models/not-my-model:generateContent HTTP/1.1\r\nhost: localhost\r\n' +
        'x-goog-api-key: key-c\r\ncontent-type: application/json\r\ncontent-length: 10000000\r\n\r\n',
    );
    let reply = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (reply += chunk));
    await new Promise((resolve) => socket.once('close', resolve));
    expect(reply).toMatch(/^HTTP\/1\.1 403 /);
    expect(reply.toLowerCase()).toContain('connection: close');
  } finally {
    await server.close(0);
  }
}, 10_000);

it("a key's provider-less globs allow a model under every name it has, and the listing shows them (docs/gateway.md's example key)", async () => {
  const docsGateway = createEmulatedGateway(emulator.url, {
    logger: { warn: () => {} },
    env: { TEAM_A_KEY: 'team-a', OPENAI_ONLY: 'openai-only', ALIAS_ONLY: 'alias-only' },
    adapters: { anthropic: { type: 'anthropic' }, openai: { type: 'openai' } },
    apiKey: 'k',
    config: {
      builtins: true,
      models: {
        'openai:gpt-5': { aliases: ['claude-sonnet-4-5'] },
        // An alias spelt like another provider's model.
        'anthropic:claude-3-5-haiku-20241022': { aliases: ['gpt-4o-mini'] },
      },
      gateway: {
        keys: [
          { name: 'team-a', key_env: 'TEAM_A_KEY', models: ['claude-*', 'gpt-5*'] },
          { name: 'openai-only', key_env: 'OPENAI_ONLY', models: ['openai:*'] },
          { name: 'alias-only', key_env: 'ALIAS_ONLY', models: ['gpt-4o-mini'] },
        ],
      },
    },
  });
  const status = (key: string, model: string) => callOn(docsGateway, key, model);
  try {
    // The same models by the name sent, the canonical id and a built-in alias: one answer each.
    for (const model of ['gpt-5', 'openai:gpt-5', 'gpt-5-mini', 'openai:gpt-5-mini', 'claude-sonnet-4-5'])
      expect(await status('team-a', model), model).toBe(200);
    for (const model of ['claude-haiku-4-5', 'anthropic:claude-haiku-4-5', 'haiku'])
      expect(await status('team-a', model), model).toBe(200);
    expect(await status('team-a', 'openai:gpt-4.1-mini')).toBe(403);
    // A prefixed glob stays with its provider, however the model is named.
    expect(await status('openai-only', 'gpt-5')).toBe(200);
    expect(await status('openai-only', 'claude-sonnet-4-5')).toBe(200); // the alias of openai:gpt-5
    expect(await status('openai-only', 'anthropic:claude-haiku-4-5')).toBe(403);
    expect(await status('openai-only', 'haiku')).toBe(403);
    // The client's own prefixes do not widen a key: the prefix-free form is the registry's id's.
    expect(await status('openai-only', 'anthropic:openai:gpt-5')).toBe(403);
    // An alias stands for its target only, under that name.
    expect(await status('alias-only', 'gpt-4o-mini')).toBe(200);
    for (const model of ['openai:gpt-4o-mini', 'anthropic:claude-3-5-haiku-20241022', 'haiku'])
      expect(await status('alias-only', model), model).toBe(403);

    const response = await docsGateway.app.request('/v1/models', {
      headers: { authorization: 'Bearer team-a' },
    });
    const names = ((await response.json()) as { data: Array<{ id: string }> }).data.map((model) => model.id);
    expect(names).toEqual(
      expect.arrayContaining(['openai:gpt-5', 'openai:gpt-5-mini', 'anthropic:claude-haiku-4-5']),
    );
    expect(names).not.toContain('openai:gpt-4.1-mini');
    for (const name of names) expect(await status('team-a', name), name).toBe(200);
  } finally {
    await docsGateway.switchyard.close();
  }
}, 30_000);
