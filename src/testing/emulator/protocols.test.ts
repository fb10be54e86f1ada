/** The protocol table drives the emulator: every protocol it lists is routed, framed, listed and has its errors. */
import { describe, expect, it } from 'vitest';
import { emulatorApis, isEmulatorApi, protocolErrors, startEmulator } from './index.ts';
import { emulatorProtocols } from './protocols.ts';
import { framesFromChunks } from './replay.ts';
import { inferApi, inferApiFromFile, matchScriptedApi } from './routing.ts';

/** One endpoint path per protocol, as its real client sends it. */
const endpoints = {
  'anthropic-messages': '/v1/messages',
  'openai-chat': '/v1/chat/completions',
  'openai-responses': '/v1/responses',
  gemini: '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
  'bedrock-converse': '/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream',
  'bedrock-invoke': '/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream',
  'vertex-anthropic':
    '/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict',
} as const;

describe('the emulator protocol table', () => {
  it('lists exactly the protocols of its table, and only those are emulator APIs', () => {
    expect([...emulatorApis].sort()).toEqual(Object.keys(endpoints).sort());
    for (const api of emulatorApis) expect(isEmulatorApi(api)).toBe(true);
    for (const name of ['anthropic', 'toString', '__proto__', undefined])
      expect(isEmulatorApi(name)).toBe(false);
  });

  it.each(emulatorApis)('%s: its endpoint routes to it, behind any base-URL prefix', (api) => {
    expect(matchScriptedApi(endpoints[api])).toBe(api);
    expect(matchScriptedApi(`/proxy/tenant-1${endpoints[api]}`)).toBe(api);
  });

  it.each(emulatorApis)('%s: its fixture folders replay in it, with its framing', (api) => {
    const { fixtureFolders, namedEvents, doneData, eventStream } = emulatorProtocols[api];
    for (const folder of fixtureFolders)
      expect(inferApiFromFile(`/x/recorded/${folder}/a.chunks.txt`)).toBe(api);
    if (eventStream === 'converse') {
      // Converse lines are `{"<eventType>": payload}`: the key names the event-stream message.
      expect(framesFromChunks('{"messageStart":{"role":"assistant"}}\n', api)).toEqual([
        { event: 'messageStart', data: '{"role":"assistant"}' },
      ]);
      return;
    }
    if (eventStream === 'chunk') {
      // InvokeModel streams wrap each Anthropic event in a `chunk` message of base64 bytes.
      const [first] = framesFromChunks('{"type":"message_start"}\n', api);
      const bytes = Buffer.from('{"type":"message_start"}').toString('base64');
      expect(first).toEqual({ event: 'chunk', data: JSON.stringify({ bytes }) });
      return;
    }
    const frames = framesFromChunks('{"type":"message_start"}\n{"type":"ping"}\n', api);
    expect(frames[0]).toEqual(
      namedEvents
        ? { event: 'message_start', data: '{"type":"message_start"}' }
        : { data: '{"type":"message_start"}' },
    );
    expect(frames).toHaveLength(doneData === undefined ? 2 : 3);
  });

  it.each(emulatorApis)('%s: every error class is an HTTP error of its own shape', (api) => {
    const scripts = protocolErrors(api);
    expect(scripts.length).toBe(5);
    for (const [, script] of scripts) expect(script.status).toBeGreaterThanOrEqual(400);
  });

  it('answers a model listing in the protocol the credentials name', async () => {
    const emulator = await startEmulator();
    try {
      const anthropic = await fetch(`${emulator.url}/v1/models`, { headers: { 'x-api-key': 'k' } });
      expect(((await anthropic.json()) as { has_more: boolean }).has_more).toBe(false);
      const gemini = await fetch(`${emulator.url}/v1beta/models?key=k`);
      expect(((await gemini.json()) as { models: unknown[] }).models.length).toBeGreaterThan(0);
      const openai = await fetch(`${emulator.url}/v1/models`, { headers: { authorization: 'Bearer k' } });
      expect(((await openai.json()) as { object: string }).object).toBe('list');
      expect(emulator.requests.map((request) => request.api)).toEqual([
        'anthropic-messages',
        'gemini',
        'openai-chat',
      ]);
      expect(inferApi({ method: 'GET', path: '/v1/models', headers: {}, query: {} })).toBe('openai-chat');
    } finally {
      await emulator.close();
    }
  });
});
