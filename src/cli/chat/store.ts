/**
 * The chat log: every conversation in SQLite (`node:sqlite`, no native build) in the user's data
 * folder — the canonical transcript, the model, usage and cost of each turn. Each transcript item is
 * stored once, keyed by the SHA-256 of its lossless JSON (`stringifyTranscript`), as llm 0.32 does;
 * a conversation is an ordered list of those keys.
 */
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { Item, Transcript } from '../../core/transcript.ts';
import { parseTranscript, stringifyTranscript } from '../../core/transcript-schema.ts';
import type { Usage } from '../../core/usage.ts';
import { parseJson } from '../../core/json-text.ts';

/** One model call of a conversation. */
export interface StoredTurn {
  model: string;
  usage: Usage;
  /** USD; `undefined` when the model has no known price. */
  cost: number | undefined;
  /** ISO time. */
  at: string;
  /** True when the answer was cut short by Ctrl-C. */
  interrupted?: boolean;
}

/** A whole conversation as stored. */
export interface ConversationRecord {
  id: string;
  /** The name given with `/save NAME`. */
  name?: string;
  /** The first words of the first user message. */
  title: string;
  /** The model of the last turn (or the one chosen). */
  model: string;
  createdAt: string;
  updatedAt: string;
  transcript: Transcript;
  turns: StoredTurn[];
  /** The session's tool-id map (`ToolIdMap.toJSON()`), so provider ids survive a resume. */
  toolIds?: Array<[string, string, string]>;
}

/** One line of `switchyard history`. */
export interface ConversationSummary {
  id: string;
  name?: string;
  title: string;
  model: string;
  updatedAt: string;
  messages: number;
  turns: number;
  /** Sum of the priced turns, USD. */
  cost: number;
  /** Some turn was interrupted: its figures, so `cost`, are an estimate. */
  estimated: boolean;
}

/** Where conversations are kept. */
export interface ChatStore {
  readonly path: string;
  save(record: ConversationRecord): void;
  /** By id, then by name; `undefined` when neither matches. */
  load(idOrName: string): ConversationRecord | undefined;
  /** The most recently updated conversation. */
  latest(): ConversationRecord | undefined;
  /** Newest first; `search` matches message text (case-insensitive), titles and names. */
  list(options?: { search?: string; limit?: number }): ConversationSummary[];
  close(): void;
}

/** A store that could not be opened: why, in one line. */
export interface StoreUnavailable {
  reason: string;
}

const schema = `
CREATE TABLE IF NOT EXISTS messages (hash TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS conversations (
  id TEXT PRIMARY KEY, name TEXT UNIQUE, title TEXT NOT NULL, model TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL, tool_ids TEXT);
CREATE TABLE IF NOT EXISTS conversation_messages (
  conversation_id TEXT NOT NULL, position INTEGER NOT NULL, hash TEXT NOT NULL,
  PRIMARY KEY (conversation_id, position));
CREATE TABLE IF NOT EXISTS turns (
  conversation_id TEXT NOT NULL, position INTEGER NOT NULL, model TEXT NOT NULL, usage TEXT NOT NULL,
  cost REAL, created_at TEXT NOT NULL, interrupted INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (conversation_id, position));
CREATE INDEX IF NOT EXISTS conversations_updated ON conversations (updated_at);
`;

/** The SHA-256 of an item's lossless JSON, and that JSON. */
export function itemKey(item: Item): { hash: string; body: string } {
  const body = stringifyTranscript([item]).slice(1, -1);
  return { hash: createHash('sha256').update(body).digest('hex'), body };
}

/**
 * Opens (creating if needed) the database at `path`. Never throws: a missing `node:sqlite`, a
 * read-only folder or file, or a file that is not a database gives a {@link StoreUnavailable}.
 */
export async function openStore(path: string): Promise<ChatStore | StoreUnavailable> {
  const sqlite = await loadSqlite();
  if (sqlite === undefined)
    return { reason: `node:sqlite is not available in Node ${process.versions.node} (Node ≥ 22.13 has it)` };
  let database: DatabaseSync | undefined;
  try {
    createPrivately(path);
    database = new sqlite.DatabaseSync(path);
    database.exec('PRAGMA busy_timeout = 2000;');
    database.exec(schema);
    // A read-only file (its mode, an immutable attribute, a read-only mount) opens and reads fine,
    // and an empty transaction writes nothing: a rolled-back header write finds out now rather
    // than at the first save, and leaves a writable file as it was.
    probeWrite(database);
    return createStore(database, path);
  } catch (error) {
    try {
      database?.close();
    } catch {
      // Already unusable.
    }
    return { reason: `cannot use ${path}: ${describeError(error)}` };
  }
}

/**
 * Creates the folder (0700, as the XDG base-directory spec asks) and an empty file (0600) when
 * missing: the log holds every conversation, which other users of the machine have no business
 * reading; SQLite gives its journal files the database's mode. An existing file or folder keeps
 * the mode it has (someone may have chosen it), as shells do with their history files.
 */
function createPrivately(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch {
    // It exists, or cannot be created: SQLite opens it, or says why in its own words.
  }
}

/** Fails (`attempt to write a readonly database`) when the database cannot be written; changes nothing. */
function probeWrite(database: DatabaseSync): void {
  const { user_version: version } = database.prepare('PRAGMA user_version').get() as { user_version: number };
  database.exec('BEGIN IMMEDIATE');
  try {
    database.exec(`PRAGMA user_version = ${Number(version)}`);
  } finally {
    database.exec('ROLLBACK');
  }
}

function describeError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!;
}

/** `node:sqlite`, without its one-time ExperimentalWarning on stderr; `undefined` where Node lacks it. */
async function loadSqlite(): Promise<typeof import('node:sqlite') | undefined> {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/SQLite/i.test(text)) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return await import('node:sqlite');
  } catch {
    return undefined;
  } finally {
    process.emitWarning = emitWarning;
  }
}

function createStore(database: DatabaseSync, path: string): ChatStore {
  const statements = {
    putMessage: database.prepare('INSERT OR IGNORE INTO messages (hash, body) VALUES (?, ?)'),
    putConversation: database.prepare(
      `INSERT INTO conversations (id, name, title, model, created_at, updated_at, tool_ids)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, title = excluded.title, model = excluded.model,
         updated_at = excluded.updated_at, tool_ids = excluded.tool_ids`,
    ),
    clearName: database.prepare('UPDATE conversations SET name = NULL WHERE name = ? AND id <> ?'),
    clearItems: database.prepare('DELETE FROM conversation_messages WHERE conversation_id = ?'),
    putItem: database.prepare(
      'INSERT INTO conversation_messages (conversation_id, position, hash) VALUES (?, ?, ?)',
    ),
    clearTurns: database.prepare('DELETE FROM turns WHERE conversation_id = ?'),
    putTurn: database.prepare(
      `INSERT INTO turns (conversation_id, position, model, usage, cost, created_at, interrupted)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    byId: database.prepare('SELECT * FROM conversations WHERE id = ?'),
    byName: database.prepare('SELECT * FROM conversations WHERE name = ?'),
    latest: database.prepare('SELECT * FROM conversations ORDER BY updated_at DESC, rowid DESC LIMIT 1'),
    items: database.prepare(
      `SELECT m.body AS body FROM conversation_messages c JOIN messages m ON m.hash = c.hash
       WHERE c.conversation_id = ? ORDER BY c.position`,
    ),
    turns: database.prepare('SELECT * FROM turns WHERE conversation_id = ? ORDER BY position'),
  };

  function save(record: ConversationRecord): void {
    database.exec('BEGIN IMMEDIATE');
    try {
      if (record.name !== undefined) statements.clearName.run(record.name, record.id);
      statements.putConversation.run(
        record.id,
        record.name ?? null,
        record.title,
        record.model,
        record.createdAt,
        record.updatedAt,
        record.toolIds === undefined ? null : JSON.stringify(record.toolIds),
      );
      statements.clearItems.run(record.id);
      record.transcript.forEach((item, position) => {
        const { hash, body } = itemKey(item);
        statements.putMessage.run(hash, body);
        statements.putItem.run(record.id, position, hash);
      });
      statements.clearTurns.run(record.id);
      record.turns.forEach((turn, position) => {
        statements.putTurn.run(
          record.id,
          position,
          turn.model,
          JSON.stringify(turn.usage),
          turn.cost ?? null,
          turn.at,
          turn.interrupted === true ? 1 : 0,
        );
      });
      database.exec('COMMIT');
    } catch (error) {
      database.exec('ROLLBACK');
      throw error;
    }
  }

  function read(row: Record<string, unknown> | undefined): ConversationRecord | undefined {
    if (row === undefined) return undefined;
    const id = String(row.id);
    const bodies = statements.items.all(id).map((item) => String(item.body));
    const parsed = parseTranscript(`[${bodies.join(',')}]`);
    if (!parsed.ok) throw new Error(`conversation ${id} is damaged: ${parsed.issues[0]?.message ?? ''}`);
    const turns = statements.turns.all(id).map((turn): StoredTurn => ({
      model: String(turn.model),
      usage: parseJson(String(turn.usage)) as Usage,
      cost: turn.cost === null ? undefined : Number(turn.cost),
      at: String(turn.created_at),
      ...(turn.interrupted === 1 ? { interrupted: true } : {}),
    }));
    const record: ConversationRecord = {
      id,
      title: String(row.title),
      model: String(row.model),
      createdAt: String(row.created_at),
      updatedAt: String(row.updated_at),
      transcript: parsed.value,
      turns,
    };
    if (row.name !== null) record.name = String(row.name);
    if (row.tool_ids !== null) record.toolIds = parseToolIds(String(row.tool_ids), id);
    return record;
  }

  return {
    path,
    save,
    load: (idOrName) =>
      read(
        (statements.byId.get(idOrName) ?? statements.byName.get(idOrName)) as
          Record<string, unknown> | undefined,
      ),
    latest: () => read(statements.latest.get() as Record<string, unknown> | undefined),
    list(options = {}) {
      const search = options.search === undefined ? undefined : `%${escapeLike(options.search)}%`;
      const rows = database
        .prepare(
          `SELECT c.*,
             (SELECT COUNT(*) FROM conversation_messages x WHERE x.conversation_id = c.id) AS messages,
             (SELECT COUNT(*) FROM turns t WHERE t.conversation_id = c.id) AS turn_count,
             (SELECT COALESCE(SUM(t.cost), 0) FROM turns t WHERE t.conversation_id = c.id) AS total,
             EXISTS (SELECT 1 FROM turns t WHERE t.conversation_id = c.id AND t.interrupted = 1) AS estimated
           FROM conversations c
           ${
             search === undefined
               ? ''
               : `WHERE c.title LIKE :search ESCAPE '\\' OR c.name LIKE :search ESCAPE '\\' OR EXISTS (
                    SELECT 1 FROM conversation_messages x JOIN messages m ON m.hash = x.hash
                    WHERE x.conversation_id = c.id AND m.body LIKE :search ESCAPE '\\')`
           }
           ORDER BY c.updated_at DESC, c.rowid DESC LIMIT :limit`,
        )
        .all(search === undefined ? { limit: options.limit ?? 50 } : { search, limit: options.limit ?? 50 });
      return rows.map((row) => {
        const summary: ConversationSummary = {
          id: String(row.id),
          title: String(row.title),
          model: String(row.model),
          updatedAt: String(row.updated_at),
          messages: Number(row.messages),
          turns: Number(row.turn_count),
          cost: Number(row.total),
          estimated: Number(row.estimated) === 1,
        };
        if (row.name !== null) summary.name = String(row.name);
        return summary;
      });
    },
    close: () => database.close(),
  };
}

/**
 * The `tool_ids` column of conversation `id`: the tool-id map's `[provider, canonical id, provider
 * id]` triples. Text that is not such a list (a damaged or hand-edited file) is an error naming the
 * conversation and the column, as a damaged transcript is.
 */
function parseToolIds(text: string, id: string): Array<[string, string, string]> {
  let value: unknown;
  try {
    value = parseJson(text);
  } catch {
    value = undefined;
  }
  const triple = (entry: unknown) =>
    Array.isArray(entry) && entry.length === 3 && entry.every((part) => typeof part === 'string');
  if (!Array.isArray(value) || !value.every(triple))
    throw new Error(
      `conversation ${id} is damaged: its tool_ids is not a list of [provider, id, provider id] triples`,
    );
  return value as Array<[string, string, string]>;
}

/** `%`, `_` and `\` taken literally in a LIKE pattern. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (match) => `\\${match}`);
}
