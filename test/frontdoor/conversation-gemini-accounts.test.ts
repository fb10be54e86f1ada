/**
 * One conversation with Gemini prompt caching on two accounts (two adapters, two keys): an entry
 * belongs to the project of the key that created it, so each adapter keeps its own entries — the
 * other account is never sent them, and each adapter's `endSession` deletes only its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/core/logger.ts';
import { createSwitchyard, type Switchyard } from '../../src/switchyard.ts';
import { type Emulator, type ScriptedScript, startEmulator } from '../../src/testing/emulator/index.ts';
import { emulatorBaseURL } from '../support/provider-types.ts';

let emulator: Emulator;
let sy: Switchyard;
beforeAll(async () => {
  emulator = await startEmulator();
  const account = (key: string) => ({
    type: 'gemini',
    base_url: emulatorBaseURL('gemini', emulator.url),
    api_key: key,
    max_retries: 0,
  });
  sy = createSwitchyard({
    logger: createMemoryLogger(),
    config: {
      builtins: false,
      adapters: { 'acct-a': account('gemini-key-AAAA-0001'), 'acct-b': account('gemini-key-BBBB-0002') },
    },
  });
});
afterAll(async () => {
  await sy.close();
  await emulator.close();
});

const answer = (text: string): ScriptedScript => ({ type: 'scripted', content: [{ type: 'text', text }] });

describe('gemini prompt caching across two accounts in one conversation', () => {
  it("sends the second account none of the first's entries, and each deletes only its own", async () => {
    const chat = sy.conversation({
      model: 'acct-a:gemini-2.5-flash',
      system: 'You are a careful librarian with a very long and stable system prompt.',
      cache: { ttl: '5m' },
    });
    emulator.enqueue(answer('Which one?'));
    await chat.send('Find me a book');
    emulator.enqueue(answer('Here.'));
    const second = await chat.send('Any will do');
    const first = second.metadata?.['gemini.cachedContent'];
    expect(first).toMatch(/^cachedContents\//);
    chat.model = 'acct-b:gemini-2.5-flash';
    const since = emulator.requests.length;
    emulator.enqueue(answer('Another.'));
    const third = await chat.send('And another');
    expect(third.text).toBe('Another.');
    const sent = emulator.requests.slice(since).map((request) => request.body as { cachedContent?: string });
    expect(sent.map((body) => body.cachedContent)).not.toContain(first);
    const before = emulator.requests.length;
    await chat.close();
    const deletions = emulator.requests
      .slice(before)
      .map((request) => `${request.path.split('/').pop()} ${request.headers['x-goog-api-key']}`);
    expect(deletions).toContain(`${String(first).split('/').pop()} gemini-key-AAAA-0001`);
    expect(deletions).toHaveLength(2);
    expect(deletions.filter((line) => line.endsWith('gemini-key-BBBB-0002'))).toHaveLength(1);
  });
});
