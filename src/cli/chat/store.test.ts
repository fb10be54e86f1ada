/** The chat log: lossless round trip, each message stored once by content, search, and stores that cannot be used. */
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { makeReadOnly } from '../../../test/support/read-only.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import type { Transcript } from '../../core/transcript.ts';
import { runCli } from '../run.ts';
import { type ChatStore, type ConversationRecord, openStore } from './store.ts';

const folder = () => mkdtempSync(join(tmpdir(), 'switchyard-store-'));

async function open(path: string): Promise<ChatStore> {
  const store = await openStore(path);
  if ('reason' in store) throw new Error(store.reason);
  return store;
}

const transcript: Transcript = [
  { kind: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
  { kind: 'user', parts: [{ type: 'text', text: 'Weather in Paris?' }] },
  {
    kind: 'assistant',
    parts: [
      { type: 'reasoning', text: 'call the tool', signature: 'sig-1' },
      { type: 'tool-call', id: 'call_1' as never, name: 'weather', input: { city: 'Paris' } },
    ],
    metadata: { 'switchyard.model': 'anthropic:claude-sonnet-4-5' },
  },
  {
    kind: 'tool',
    parts: [
      {
        type: 'tool-result',
        callId: 'call_1' as never,
        name: 'weather',
        output: { type: 'text', text: '18 °C' },
        isError: false,
      },
    ],
  },
  {
    kind: 'user',
    parts: [
      {
        type: 'media',
        modality: 'image',
        mimeType: 'image/png',
        data: { type: 'base64', data: 'iVBORw0KGgo=' },
      },
    ],
  },
];

function record(id: string, items: Transcript, extra: Partial<ConversationRecord> = {}): ConversationRecord {
  return {
    id,
    title: 'Weather in Paris?',
    model: 'sonnet',
    createdAt: '2026-11-26T10:00:00.000Z',
    updatedAt: `2026-11-26T10:0${id.length % 10}:00.000Z`,
    transcript: items,
    turns: [
      {
        model: 'anthropic:claude-sonnet-4-5',
        usage: {
          input: 10,
          cacheRead: 0,
          cacheWrite: 0,
          output: 5,
          reasoning: 0,
          cost: { amount: 0.000105, currency: 'USD' },
        },
        cost: 0.000105,
        at: '2026-11-26T10:00:01.000Z',
      },
    ],
    toolIds: [['call_1', 'anthropic', 'toolu_1']],
    ...extra,
  };
}

describe('the chat log', () => {
  const saved = process.env.SWITCHYARD_DATA_DIR;
  afterEach(() => {
    if (saved === undefined) delete process.env.SWITCHYARD_DATA_DIR;
    else process.env.SWITCHYARD_DATA_DIR = saved;
  });

  it('restores a conversation exactly, and stores a message shared by two conversations once', async () => {
    const path = join(folder(), 'chat.db');
    const store = await open(path);
    store.save(record('A', transcript, { name: 'paris' }));
    store.save(
      record('BB', [
        ...transcript.slice(0, 2),
        { kind: 'user', parts: [{ type: 'text', text: 'And Lyon?' }] },
      ]),
    );
    expect(store.load('A')).toEqual(record('A', transcript, { name: 'paris' }));
    expect(store.load('paris')?.id).toBe('A');
    store.close();
    const database = new DatabaseSync(path);
    expect(database.prepare('SELECT COUNT(*) AS n FROM messages').get()).toEqual({ n: 6 });
    expect(database.prepare('SELECT COUNT(*) AS n FROM conversation_messages').get()).toEqual({ n: 8 });
    database.close();
  });

  it('lists newest first and searches message text, titles and names (LIKE characters taken literally)', async () => {
    const store = await open(join(folder(), 'chat.db'));
    store.save(record('A', transcript));
    store.save(
      record('BB', [{ kind: 'user', parts: [{ type: 'text', text: '100% sure?' }] }], {
        title: '100% sure?',
      }),
    );
    expect(store.list().map((entry) => entry.id)).toEqual(['BB', 'A']);
    expect(store.list({ search: 'paris' }).map((entry) => entry.id)).toEqual(['A']);
    expect(store.list({ search: '100%' }).map((entry) => entry.id)).toEqual(['BB']);
    expect(store.list({ search: '0_' })).toEqual([]);
    expect(store.list()[1]).toMatchObject({ messages: 5, turns: 1, cost: 0.000105, estimated: false });
    const cut = record('A', transcript);
    cut.turns[0]!.interrupted = true;
    store.save(cut);
    expect(store.list().find((entry) => entry.id === 'A')).toMatchObject({ cost: 0.000105, estimated: true });
    store.close();
  });

  it('a conversation whose tool_ids column is not a list of triples is reported by id, not as a TypeError', async () => {
    const path = join(folder(), 'chat.db');
    const store = await open(path);
    store.save(record('A', transcript));
    store.save(record('BB', transcript));
    const database = new DatabaseSync(path);
    for (const damaged of ['{"a":1}', '[["p","c"]]', '[["p","c",3]]', 'not json']) {
      database.prepare('UPDATE conversations SET tool_ids = ? WHERE id = ?').run(damaged, 'A');
      expect(() => store.load('A')).toThrow(
        'conversation A is damaged: its tool_ids is not a list of [provider, id, provider id] triples',
      );
    }
    database.close();
    expect(store.load('BB')?.id).toBe('BB'); // The others are fine.
    store.close();
  });

  it('a corrupt file or a folder that cannot be made gives one reason, never a throw', async () => {
    const corrupt = join(folder(), 'chat.db');
    writeFileSync(corrupt, 'this is not a database, just text '.repeat(200));
    const damaged = await openStore(corrupt);
    expect(damaged).toEqual({
      reason: expect.stringMatching(/^cannot use .*chat\.db: file is not a database/),
    });
    expect(readFileSync(corrupt, 'utf8')).toMatch(/^this is not a database/); // Left as it was.
    // A data folder that cannot be made (a file is in the way): the same one-line reason.
    const blocked = join(folder(), 'not-a-folder');
    writeFileSync(blocked, '');
    expect(await openStore(join(blocked, 'chat.db'))).toEqual({
      reason: expect.stringMatching(/^cannot use .*not-a-folder\/chat\.db: EEXIST/),
    });
  });

  it('a read-only file (even to root) gives one reason at open, not at the first save, and is left as it was', async () => {
    const path = join(folder(), 'chat.db');
    const store = await open(path);
    store.save(record('A', transcript));
    store.close();
    const before = readFileSync(path);
    const readOnly = makeReadOnly(path);
    try {
      expect(await openStore(path)).toEqual({
        reason: expect.stringMatching(/^cannot use .*chat\.db: attempt to write a readonly database$/),
      });
      expect(readFileSync(path).equals(before) || readOnly.how === 'sqlite-header').toBe(true);
    } finally {
      readOnly.undo();
    }
    // Writable again: the probe changed nothing, the conversation is intact.
    const reopened = await open(path);
    expect(reopened.load('A')?.transcript).toEqual(transcript);
    reopened.close();
  });

  it('a new log and its folder are private to the user (0600 and 0700); an existing file keeps its mode', async () => {
    const dataDir = join(folder(), 'nested', 'switchyard');
    const path = join(dataDir, 'chat.db');
    (await open(path)).close();
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    chmodSync(path, 0o640);
    (await open(path)).close();
    expect(statSync(path).mode & 0o777).toBe(0o640);
  });

  it('`switchyard history` lists, searches and prints JSON from $SWITCHYARD_DATA_DIR', async () => {
    const dataDir = folder();
    const store = await open(join(dataDir, 'chat.db'));
    store.save(record('A', transcript, { name: 'paris' }));
    store.close();
    process.env.SWITCHYARD_DATA_DIR = dataDir;
    const lines: string[] = [];
    const output = { stdout: (line: string) => lines.push(line), stderr: (line: string) => lines.push(line) };
    expect(await runCli(['history'], output)).toBe(0);
    expect(lines[0]).toMatch(/^id\s+name\s+updated\s+model\s+turns\s+cost\s+title$/);
    expect(lines[1]).toMatch(
      /^A\s+paris\s+2026-11-26 10:01\s+sonnet\s+1\s+\$0\.000105\s+Weather in Paris\?$/,
    );
    lines.length = 0;
    expect(await runCli(['history', '--search', 'lyon', '--json'], output)).toBe(0);
    expect(JSON.parse(lines.join('\n'))).toEqual([]);
  });

  it('`switchyard history` prints stored titles, names and models without their escape sequences', async () => {
    const dataDir = folder();
    const store = await open(join(dataDir, 'chat.db'));
    const hostile = (text: string) => `${text}\x1b]0;PWNED\x07\x1b[2J`;
    store.save(
      record('B', transcript, { name: hostile('n'), model: hostile('m'), title: hostile('t\nsecond') }),
    );
    store.close();
    const previous = process.env.SWITCHYARD_DATA_DIR;
    process.env.SWITCHYARD_DATA_DIR = dataDir;
    const lines: string[] = [];
    const output = { stdout: (line: string) => lines.push(line), stderr: (line: string) => lines.push(line) };
    try {
      expect(await runCli(['history'], output)).toBe(0);
    } finally {
      process.env.SWITCHYARD_DATA_DIR = previous;
    }
    expect(lines[1]).toMatch(/^B\s+n\]0;PWNED\s+\S+ \S+\s+m\]0;PWNED\s+1\s+\S+\s+t second\]0;PWNED$/);
  });
});
