/** Gemini `cachedContents` lifetime: entries a session created are deleted when the session ends. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../core/request.ts';
import { systemText, userText } from '../../core/transcript.ts';
import { type Emulator, type ScriptedScript, startEmulator } from '../../testing/emulator/index.ts';
import { emulatedGemini, testApiKey } from './test-support.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

const answer: ScriptedScript = { type: 'scripted', content: [{ type: 'text', text: 'Done.' }] };

function cachedRequest(topic: string): CanonicalRequest {
  return {
    model: 'gemini:gemini-2.5-flash',
    transcript: [
      systemText(`You are a careful librarian for ${topic}.`),
      userText('Find it'),
      { kind: 'assistant', parts: [{ type: 'text', text: 'Which one?' }] },
      userText('Any'),
    ],
    maxOutputTokens: 100,
    cache: { ttl: '5m' },
  };
}

/** The names of the cache entries the emulator holds (what Google would bill for). */
async function liveEntries(): Promise<string[]> {
  const response = await fetch(`${emulator.url}/v1beta/cachedContents`, {
    headers: { 'x-goog-api-key': testApiKey },
  });
  const body = (await response.json()) as { cachedContents: Array<{ name: string }> };
  return body.cachedContents.map((entry) => entry.name);
}

function deletions(since: number): string[] {
  return emulator.requests
    .slice(since)
    .filter((request) => request.method === 'DELETE')
    .map((request) => request.path);
}

describe('cachedContents are deleted when their session ends', () => {
  it('endSession deletes the entry the session created and reused', async () => {
    const since = emulator.requests.length;
    const before = await liveEntries();
    const { adapter, logger } = emulatedGemini(emulator);
    const session = adapter.startSession();
    emulator.enqueue(answer);
    emulator.enqueue(answer);
    const first = await adapter.complete(cachedRequest('atlases'), { session });
    await adapter.complete(cachedRequest('atlases'), { session });
    const name = first.metadata?.['gemini.cachedContent'] as string;
    expect(name).toMatch(/^cachedContents\//);
    expect(await liveEntries()).toEqual([...before, name]);
    await adapter.endSession(session);
    expect(deletions(since)).toEqual([`/v1beta/${name}`]);
    expect(await liveEntries()).toEqual(before);
    // Ending it again does nothing; the adapter keeps working for other sessions.
    await adapter.endSession(session);
    expect(deletions(since)).toHaveLength(1);
    expect(logger.entries.filter((entry) => entry.message.includes('could not'))).toEqual([]);
    await adapter.close();
  });

  it('close() deletes the entries of every session the adapter still holds', async () => {
    const since = emulator.requests.length;
    const before = await liveEntries();
    const { adapter } = emulatedGemini(emulator);
    const sessions = [adapter.startSession(), adapter.startSession()];
    for (const [index, session] of sessions.entries()) {
      emulator.enqueue(answer);
      await adapter.complete(cachedRequest(`globes ${index}`), { session });
    }
    expect(await liveEntries()).toHaveLength(before.length + 2);
    await adapter.close();
    expect(deletions(since)).toHaveLength(2);
    expect(await liveEntries()).toEqual(before);
  });

  it('a call made without a session makes no entry (nobody could reuse it: it would cost more than it saves), with a WARN', async () => {
    const before = await liveEntries();
    const sent = emulator.requests.length;
    const { adapter, logger } = emulatedGemini(emulator);
    emulator.enqueue(answer);
    const response = await adapter.complete(cachedRequest('maps'));
    expect(response.metadata?.['gemini.cachedContent']).toBeUndefined();
    emulator.enqueue(answer);
    const events = [];
    for await (const event of adapter.stream(cachedRequest('charts'))) events.push(event);
    expect(events.at(-1)?.type).toBe('finish');
    // Two calls, two requests: no cachedContents creation or deletion around them.
    expect(emulator.requests.slice(sent).map((request) => request.method)).toEqual(['POST', 'POST']);
    expect(await liveEntries()).toEqual(before);
    expect(logger.entries.filter((entry) => entry.message === 'prompt cache not used')).toHaveLength(2);
    await adapter.close();
  });

  it('an entry already gone provider-side ends the session quietly', async () => {
    const { adapter, logger } = emulatedGemini(emulator);
    const session = adapter.startSession();
    emulator.enqueue(answer);
    const response = await adapter.complete(cachedRequest('sextants'), { session });
    const name = response.metadata?.['gemini.cachedContent'] as string;
    await fetch(`${emulator.url}/v1beta/${name}`, {
      method: 'DELETE',
      headers: { 'x-goog-api-key': testApiKey },
    });
    await expect(adapter.endSession(session)).resolves.toBeUndefined();
    expect(logger.entries.filter((entry) => entry.message.includes('could not'))).toEqual([]);
    await adapter.close();
  });

  it('a deletion that fails is a WARN naming the entry and its expiry, never an error', async () => {
    const { adapter, logger } = emulatedGemini(emulator);
    const session = adapter.startSession();
    emulator.enqueue(answer);
    const response = await adapter.complete(cachedRequest('compasses'), { session });
    const name = response.metadata?.['gemini.cachedContent'] as string;
    const { adapter: broken, logger: brokenLogger } = emulatedGemini(emulator, {
      fetch: async (input, init) =>
        init?.method === 'DELETE' ? new Response('down', { status: 503 }) : fetch(input, init),
    });
    // The broken adapter holds the same session (its state names the entry).
    emulator.enqueue(answer);
    await broken.complete(cachedRequest('compasses'), { session });
    await expect(broken.endSession(session)).resolves.toBeUndefined();
    expect(brokenLogger.entries).toContainEqual({
      message: 'could not delete a prompt cache entry; it lapses at its TTL',
      fields: expect.objectContaining({ adapter: 'gemini', cachedContent: name, sessionId: session.id }),
    });
    expect(logger.entries.filter((entry) => entry.message.includes('could not'))).toEqual([]);
    await adapter.close();
    await broken.close();
  });
});
