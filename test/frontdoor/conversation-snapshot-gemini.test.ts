/**
 * Conversation snapshots with Gemini prompt caching (#18 point 5): the conversation round-trips
 * through `toJSON` / `fromJSON` (JSON text) and keeps working; cache names in a snapshot are
 * untrusted — a tampered one never reaches a URL (no DELETE, with the key, to a path it names).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent/agent.ts';
import { createMemoryLogger } from '../../src/core/logger.ts';
import type { ConversationSnapshot } from '../../src/conversation/conversation.ts';
import type { Switchyard } from '../../src/switchyard.ts';
import type { Emulator, ScriptedScript } from '../../src/testing/emulator/index.ts';
import { startEmulatedSwitchyard } from '../support/emulated.ts';

let emulator: Emulator;
let sy: Switchyard;
let close: () => Promise<void>;
const logger = createMemoryLogger();
beforeAll(async () => {
  ({
    emulator,
    switchyard: sy,
    close,
  } = await startEmulatedSwitchyard({
    logger,
    adapters: { gemini: 'gemini' },
    apiKey: 'snapshot-gemini-key-0123',
  }));
});
afterAll(() => close());

const answer = (text: string): ScriptedScript => ({ type: 'scripted', content: [{ type: 'text', text }] });

function cachedConversation() {
  return sy.conversation({
    model: 'gemini:gemini-2.5-flash',
    system: 'You are a careful librarian with a very long and stable system prompt.',
    cache: { ttl: '5m' },
  });
}

function requestsSince(since: number) {
  return emulator.requests.slice(since).map((request) => `${request.method} ${request.path}`);
}

describe('gemini conversation with prompt caching: snapshots', () => {
  it('round-trips through toJSON / JSON text / fromJSON and keeps caching', async () => {
    const chat = cachedConversation();
    emulator.enqueue(answer('Which one?'));
    await chat.send('Find me a book');
    emulator.enqueue(answer('Here.'));
    const second = await chat.send('Any will do');
    expect(second.metadata?.['gemini.cachedContent']).toMatch(/^cachedContents\//);
    const text = JSON.stringify(chat.toJSON());
    const restored = sy.conversation.fromJSON(JSON.parse(text) as ConversationSnapshot);
    emulator.enqueue(answer('Another.'));
    const third = await restored.send('And another');
    expect(third.text).toBe('Another.');
    expect(restored.turns).toBe(3);
  });

  it.each([
    ['path traversal', 'cachedContents/../../models/gemini-2.5-pro'],
    ['another collection', 'files/abc123'],
    ['a query and fragment', 'cachedContents/abc?alt=x#y'],
    ['an absolute URL', 'https://evil.example/x'],
    ['an encoded slash', 'cachedContents/a%2F..%2Fb'],
    ['a control character', 'cachedContents/ab\r\nx'],
    ['not a string', 42],
  ])('a tampered cache name (%s) never reaches a URL', async (_label, name) => {
    const chat = cachedConversation();
    emulator.enqueue(answer('Which one?'));
    await chat.send('Find me a book');
    emulator.enqueue(answer('Here.'));
    await chat.send('Any will do');
    const snapshot = JSON.parse(JSON.stringify(chat.toJSON())) as ConversationSnapshot;
    const state = snapshot.session.state.find(([key]) => key === 'gemini.cache');
    expect(state).toBeDefined();
    const entries = (state![1] as { entries: Array<{ name: unknown; expiresAt: number }> }).entries;
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      entry.name = name;
      entry.expiresAt = Date.now() + 3_600_000;
    }
    const restored = sy.conversation.fromJSON(snapshot);
    const since = emulator.requests.length;
    emulator.enqueue(answer('Another.'));
    const reply = await restored.send('And another');
    expect(reply.text).toBe('Another.');
    await restored.close();
    const sent = requestsSince(since);
    expect(
      sent.filter(
        (request) =>
          request.startsWith('DELETE') && !/^DELETE \/v1beta\/cachedContents\/[A-Za-z0-9_-]+$/.test(request),
      ),
    ).toEqual([]);
    expect(sent.join('\n')).not.toMatch(/evil|files\/|gemini-2\.5-pro|%2F|\?alt/);
    expect(logger.entries.some((entry) => entry.message.includes('dropped the prompt cache entries'))).toBe(
      true,
    );
  });

  it('a well-formed cache name this process did not create is never used nor deleted', async () => {
    const chat = cachedConversation();
    emulator.enqueue(answer('Which one?'));
    await chat.send('Find me a book');
    emulator.enqueue(answer('Here.'));
    await chat.send('Any will do');
    const snapshot = JSON.parse(JSON.stringify(chat.toJSON())) as ConversationSnapshot;
    const state = snapshot.session.state.find(([key]) => key === 'gemini.cache');
    const entries = (state![1] as { entries: Array<{ name: string; expiresAt: number }> }).entries;
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      entry.name = 'cachedContents/not-created-by-this-session';
      entry.expiresAt = Date.now() + 3_600_000;
    }
    const restored = sy.conversation.fromJSON(snapshot);
    const since = emulator.requests.length;
    emulator.enqueue(answer('Another.'));
    const reply = await restored.send('And another');
    expect(reply.text).toBe('Another.');
    const created = reply.metadata?.['gemini.cachedContent'] as string;
    expect(created).toMatch(/^cachedContents\//);
    expect(created).not.toBe('cachedContents/not-created-by-this-session');
    await restored.close();
    const sent = emulator.requests.slice(since);
    expect(JSON.stringify(sent.map((request) => [request.path, request.body]))).not.toContain(
      'not-created-by-this-session',
    );
    expect(sent.filter((request) => request.method === 'DELETE').map((request) => request.path)).toEqual([
      `/v1beta/${created}`,
    ]);
  });
});

describe('paid Gemini caches end with the conversation or the agent run, not with sy.close()', () => {
  it('conversation.close() deletes the cache entries it created', async () => {
    const chat = cachedConversation();
    emulator.enqueue(answer('Which one?'));
    await chat.send('Find me a book');
    emulator.enqueue(answer('Here.'));
    const reply = await chat.send('Any will do');
    const name = reply.metadata?.['gemini.cachedContent'] as string;
    const since = emulator.requests.length;
    await chat.close();
    expect(requestsSince(since)).toEqual([`DELETE /v1beta/${name}`]);
  });

  it('an agent run on its own session deletes its cache entries when it ends', async () => {
    const agent = createAgent({
      client: sy,
      model: 'gemini:gemini-2.5-flash',
      instructions: 'You are a careful librarian with a very long and stable system prompt.',
      request: { cache: { ttl: '5m' } },
    });
    const since = emulator.requests.length;
    emulator.enqueue(answer('Done.'));
    const result = await agent
      .run([
        { kind: 'user', parts: [{ type: 'text', text: 'Find it' }] },
        { kind: 'assistant', parts: [{ type: 'text', text: 'Which one?' }] },
        { kind: 'user', parts: [{ type: 'text', text: 'Any' }] },
      ])
      .result();
    expect(result.outcome).toBe('completed');
    const sent = requestsSince(since);
    const created = sent.filter((request) => request === 'POST /v1beta/cachedContents');
    expect(created).toHaveLength(1);
    expect(sent.filter((request) => request.startsWith('DELETE /v1beta/cachedContents/'))).toHaveLength(1);
  });
});
