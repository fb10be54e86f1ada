/**
 * One conversation with Gemini prompt caching on two accounts (two adapters, two keys): an entry
 * belongs to the project of the key that created it, so each adapter keeps its own entries — the
 * other account is never sent them, and each adapter's `endSession` deletes only its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Switchyard } from '../../src/switchyard.ts';
import type { Emulator, ScriptedScript } from '../../src/testing/emulator/index.ts';
import { startEmulatedSwitchyard } from '../support/emulated.ts';

let emulator: Emulator;
let sy: Switchyard;
let close: () => Promise<void>;
beforeAll(async () => {
  const account = (key: string) => ({ type: 'gemini', api_key: key });
  ({
    emulator,
    switchyard: sy,
    close,
  } = await startEmulatedSwitchyard({
    adapters: { 'acct-a': account('gemini-key-AAAA-0001'), 'acct-b': account('gemini-key-BBBB-0002') },
  }));
});
afterAll(() => close());

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
