/** The protocol table drives the emulator: every protocol it lists is routed, framed, listed and has its errors. */
import { describe, expect, it } from 'vitest';
import { emulatorProtocolIds, isEmulatorProtocolId, protocolErrors, startEmulator } from './index.ts';
import { emulatorProtocols } from './protocols.ts';
import { framesFromChunks } from './replay.ts';
import { inferProtocol, inferProtocolFromFile, matchScriptedProtocol } from './routing.ts';

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
  it('lists exactly the protocols of its table, and only those are emulator protocols', () => {
    expect([...emulatorProtocolIds].sort()).toEqual(Object.keys(endpoints).sort());
    for (const protocol of emulatorProtocolIds) expect(isEmulatorProtocolId(protocol)).toBe(true);
    for (const name of ['anthropic', 'toString', '__proto__', undefined])
      expect(isEmulatorProtocolId(name)).toBe(false);
  });

  it.each(emulatorProtocolIds)('%s: its endpoint routes to it, behind any base-URL prefix', (protocol) => {
    expect(matchScriptedProtocol(endpoints[protocol])).toBe(protocol);
    expect(matchScriptedProtocol(`/proxy/tenant-1${endpoints[protocol]}`)).toBe(protocol);
  });

  it.each(emulatorProtocolIds)('%s: its fixture folders replay in it, with its framing', (protocol) => {
    const { fixtureFolders, namedEvents, doneData, eventStream } = emulatorProtocols[protocol];
    for (const folder of fixtureFolders)
      expect(inferProtocolFromFile(`/x/recorded/${folder}/a.chunks.txt`)).toBe(protocol);
    if (eventStream === 'converse') {
      // Converse lines are `{"<eventType>": payload}`: the key names the event-stream message.
      expect(framesFromChunks('{"messageStart":{"role":"assistant"}}\n', protocol)).toEqual([
        { event: 'messageStart', data: '{"role":"assistant"}' },
      ]);
      return;
    }
    if (eventStream === 'chunk') {
      // InvokeModel streams wrap each Anthropic event in a `chunk` message of base64 bytes.
      const [first] = framesFromChunks('{"type":"message_start"}\n', protocol);
      const bytes = Buffer.from('{"type":"message_start"}').toString('base64');
      expect(first).toEqual({ event: 'chunk', data: JSON.stringify({ bytes }) });
      return;
    }
    const frames = framesFromChunks('{"type":"message_start"}\n{"type":"ping"}\n', protocol);
    expect(frames[0]).toEqual(
      namedEvents
        ? { event: 'message_start', data: '{"type":"message_start"}' }
        : { data: '{"type":"message_start"}' },
    );
    expect(frames).toHaveLength(doneData === undefined ? 2 : 3);
  });

  it.each(emulatorProtocolIds)('%s: every error class is an HTTP error of its own shape', (protocol) => {
    const scripts = protocolErrors(protocol);
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
      expect(emulator.requests.map((request) => request.protocol)).toEqual([
        'anthropic-messages',
        'gemini',
        'openai-chat',
      ]);
      expect(inferProtocol({ method: 'GET', path: '/v1/models', headers: {}, query: {} })).toBe(
        'openai-chat',
      );
    } finally {
      await emulator.close();
    }
  });
});
