/**
 * Honest endings and the one projection policy, per protocol, on the emulator: a stream whose
 * connection closes early or whose body ends before the finish signal is `stream_truncated` with
 * its parts marked; every lossy drop logs the same WARN fields on every adapter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/core/events.ts';
import type { MessageId } from '../../src/core/ids.ts';
import { createMemoryLogger } from '../../src/core/logger.ts';
import type { Item, Part } from '../../src/core/transcript.ts';
import { droppedPartMessage } from '../../src/providers/common/projection.ts';
import { collectStream as collect } from '../../src/testing/collect.ts';
import { type Emulator, type EmulatorProtocolId, startEmulator } from '../../src/testing/emulator/index.ts';
import { assertStreamInvariants } from '../../src/testing/invariants.ts';
import { adapterOnEmulator, defaultModelFor, wireProtocols } from '../support/provider-types.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

async function adapterFor(protocol: EmulatorProtocolId) {
  const logger = createMemoryLogger();
  const adapter = await adapterOnEmulator(protocol, { baseURL: emulator.url, maxRetries: 0, logger });
  return { adapter, logger };
}

const longText = 'The quick brown fox jumps over the lazy dog. '.repeat(8);

function lastPart(events: StreamEvent[]): Part | undefined {
  const finish = events.at(-1);
  return finish?.type === 'finish' ? finish.response.content.at(-1) : undefined;
}

describe.each(wireProtocols)('honest endings over %s', (protocol) => {
  it('a connection closed mid-answer is stream_truncated, finish error, the open text marked', async () => {
    emulator.enqueue({
      type: 'scripted',
      protocol,
      content: [{ type: 'text', text: longText }],
      chunkSize: 8,
      fault: { disconnectAfterEvents: 4 },
    });
    const { adapter } = await adapterFor(protocol);
    const { events, error, response } = await collect(
      adapter.stream({
        model: defaultModelFor(protocol),
        maxOutputTokens: 256,
        transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'hi' }] }],
      }),
    );
    assertStreamInvariants(events);
    expect(error).toMatchObject({ errorClass: 'network', providerCode: 'stream_truncated', retryable: true });
    expect(response?.finishReason).toBe('error');
    const part = lastPart(events);
    if (part !== undefined) {
      expect(part).toMatchObject({ type: 'text', incomplete: true });
      expect(longText.startsWith((part as { text: string }).text)).toBe(true);
    }
    await adapter.close();
  });
});

/** Protocols that stream tool input in fragments (Gemini sends a scripted call whole, with its finish). */
const streamedInputProtocols = wireProtocols.filter((protocol) => protocol !== 'gemini');

describe('tool input cut short', () => {
  it.each(streamedInputProtocols)(
    '%s: a tool call cut mid-input is marked incomplete in tool-call-end and in finish',
    async (protocol) => {
      emulator.enqueue({
        type: 'scripted',
        protocol,
        content: [{ type: 'tool-call', name: 'lookup', input: { term: longText } }],
        chunkSize: 8,
        fault: { disconnectAfterEvents: 4 },
      });
      const { adapter } = await adapterFor(protocol);
      const { events, error, response } = await collect(
        adapter.stream({
          model: defaultModelFor(protocol),
          maxOutputTokens: 256,
          transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'hi' }] }],
        }),
      );
      assertStreamInvariants(events);
      expect(error).toMatchObject({ providerCode: 'stream_truncated' });
      expect(response?.finishReason).toBe('error');
      const ends = events.filter((event) => event.type === 'tool-call-end');
      for (const end of ends) expect(end).toMatchObject({ incomplete: true });
      for (const part of response?.content ?? [])
        if (part.type === 'tool-call') expect(part.incomplete).toBe(true);
      await adapter.close();
    },
  );
});

describe('one projection policy on every adapter', () => {
  const transcript: Item[] = [
    {
      id: 'msg_user' as MessageId,
      kind: 'user',
      parts: [
        { type: 'text', text: 'Describe it.' },
        {
          type: 'media',
          modality: 'image',
          mimeType: 'image/png',
          data: { type: 'handle', handle: 'artifact-7' },
        },
      ],
    },
    {
      kind: 'assistant',
      parts: [
        { type: 'reasoning', text: 'hmm', signature: 'sig', provider: 'elsewhere' },
        { type: 'text', text: 'Which one?' },
      ],
    },
    { kind: 'user', parts: [{ type: 'text', text: 'The first.' }] },
  ];
  const fields = [
    'adapter',
    'blockType',
    'itemIndex',
    'messageId',
    'partIndex',
    'reason',
    'requestId',
    'sessionId',
  ];

  it.each(wireProtocols)(
    '%s drops a handle and foreign reasoning with the same WARN fields',
    async (protocol) => {
      emulator.enqueue({ type: 'scripted', protocol, content: [{ type: 'text', text: 'Done.' }] });
      const { adapter, logger } = await adapterFor(protocol);
      const session = adapter.startSession();
      await adapter.complete(
        { model: defaultModelFor(protocol), maxOutputTokens: 256, transcript },
        { session },
      );
      const drops = logger.entries.filter((entry) => entry.message === droppedPartMessage);
      for (const drop of drops) expect(Object.keys(drop.fields).sort()).toEqual(fields);
      const where = drops.map((drop) => [
        drop.fields.messageId,
        drop.fields.itemIndex,
        drop.fields.partIndex,
        drop.fields.blockType,
      ]);
      expect(where).toContainEqual(['msg_user', 0, 1, 'media']);
      expect(where).toContainEqual([null, 1, 0, 'reasoning']);
      expect(
        drops.every((drop) => drop.fields.sessionId === session.id && drop.fields.adapter === adapter.name),
      ).toBe(true);
      await adapter.close();
    },
  );
});
