/**
 * Explicit context caching: the canonical cache request becomes a `cachedContents` entry holding the
 * stable prefix (system instruction, tools, tool config, turns before the newest user turn), created
 * once per session, reused while valid, recreated after expiry. Only a call with a session makes
 * one (see `prepareCache`). Caching never fails a call: when creation fails the call goes out
 * uncached and a WARN says why.
 *
 * Lifetime: every entry is created with a TTL of at most one hour (`cache.ttl: '5m'` → 300 s, else
 * 3600 s) and is deleted when its session ends — `adapter.endSession(session)` or `adapter.close()`
 * (every session the adapter still holds) — so a long-running process does not accumulate paid caches.
 *
 * Trust: only entries this process created are ever sent as `cachedContent` or deleted. A session
 * restored from a snapshot (`conversation.fromJSON`) drops the snapshot's entries with a WARN and
 * creates a new one on its next cached call (see `cacheState`).
 *
 * Usage: reads of the entry arrive as `cachedContentTokenCount` (→ `cacheRead`). Creating the entry
 * is a separate API call, so its token count is not folded into this call's disjoint buckets; it is
 * reported as response metadata `gemini.cacheCreatedTokens` (and the entry as `gemini.cachedContent`).
 */
import { createHash } from 'node:crypto';
import type { AdapterSession } from '../../core/adapter.ts';
import { AdapterError } from '../../core/errors/adapter-error.ts';
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import { encodePathSegments } from '../../core/model-name.ts';
import { type CanonicalRequest, isKeyOnly } from '../../core/request.ts';
import { callOf, type ProviderContext, type SessionEndContext } from '../common/definition.ts';
import { type GeminiCachedContent, type GeminiContent } from './api.ts';
import {
  type ConvertedRequest,
  convertRequest,
  modelPath,
  type PreparedCall,
  type RequestSettings,
} from './request.ts';

/** One cache entry known to the session. */
interface CacheEntry {
  name: string;
  model: string;
  headHash: string;
  contentsHash: string;
  contentCount: number;
  expiresAt: number;
}

/** The session state: plain JSON, so a conversation snapshot carries it (`toJSON` / `fromJSON`). */
interface CacheState {
  entries: CacheEntry[];
  /** Prefixes whose creation the API refused (too small, unsupported): not retried this session. */
  refused: string[];
}

/** A `cachedContents` entry name as the API issues it; anything else is never put in a URL. */
const cacheNamePattern = /^cachedContents\/[A-Za-z0-9_-]{1,128}$/;
/** Entries and refused prefixes a session remembers (the oldest are forgotten first). */
const maxEntries = 64;
const maxRefused = 256;

/** An entry closer than this to its expiry is treated as expired (the call may take a while). */
const expiryMarginMs = 30_000;
/**
 * The session-state key of one adapter's entries (`<adapter>.cache`): an entry belongs to the project
 * of the key that created it, so a conversation that switches adapters (two accounts) neither sends one
 * adapter's entry to another nor has one adapter's `endSession` delete another's entries.
 */
function stateKeyOf(provider: string): string {
  return `${provider}.cache`;
}
const preparedCalls = new WeakMap<object, PreparedCall>();

/** The preparation `prepare` stored for this call, if any. */
export function preparedCall(context: ProviderContext): PreparedCall | undefined {
  return preparedCalls.get(callOf(context));
}

/** The definition's `prepare` hook: finds or creates the cache entry when the request asks for one. */
export async function prepareCache(
  request: CanonicalRequest,
  context: ProviderContext,
  settings: RequestSettings,
): Promise<void> {
  if (request.cache === undefined) return;
  // Without a session the entry would be deleted when the call ends (nobody could reuse it): made,
  // it bills the prefix at the input rate and again as a cache read, and costs two more requests.
  // Every gateway request is such a call (a client such as Claude Code marks every one cached).
  if (context.sessionLess === true) {
    if (!isKeyOnly(request.cache))
      context.warn('prompt cache not used', {
        reason:
          'the call has no session: an entry would end with it, unused again, costing more than it saves',
      });
    return;
  }
  const converted = convertRequest(request, context, settings);
  const prepared: PreparedCall = { converted };
  preparedCalls.set(callOf(context), prepared);
  // A model without explicit caching never gets here: the runtime's pre-flight check drops
  // `cache` with a WARN (providers/common/preflight.ts).
  const prefixCount = stablePrefixLength(converted.contents);
  const head = cacheHead(converted, context.model);
  const headHash = hashOf(head);
  const state = cacheState(context.session, stateKeyOf(context.provider), context.warn);
  const now = Date.now();
  const reusable = findEntry(state, converted.contents, { headHash, prefixCount, model: context.model });
  if (reusable !== undefined && reusable.expiresAt - expiryMarginMs > now) {
    prepared.cache = { name: reusable.name, contentCount: reusable.contentCount, created: false };
    return;
  }
  if (reusable !== undefined) state.entries = state.entries.filter((entry) => entry !== reusable);
  const prefix = converted.contents.slice(0, prefixCount);
  if (Object.keys(head).length === 1 && prefix.length === 0) {
    context.warn('prompt cache not used', { reason: 'the request has no stable prefix to cache' });
    return;
  }
  const contentsHash = hashOf(prefix);
  if (state.refused.includes(headHash + contentsHash)) return;
  const ttlSeconds = request.cache.ttl === '5m' ? 300 : 3600;
  const body: JsonObject = { ...head, ttl: `${ttlSeconds}s` };
  if (prefix.length > 0) body.contents = prefix as unknown as JsonObject[];
  try {
    const created = readCachedContent(await context.fetchJson('POST', '/cachedContents', body));
    const expiresAt = Date.parse(created.expireTime ?? '') || now + ttlSeconds * 1000;
    if (state.entries.length >= maxEntries) state.entries.shift();
    state.entries.push({
      name: created.name,
      model: context.model,
      headHash,
      contentsHash,
      contentCount: prefix.length,
      expiresAt,
    });
    prepared.cache = { name: created.name, contentCount: prefix.length, created: true };
    const tokens = created.usageMetadata?.totalTokenCount;
    if (tokens !== undefined) prepared.cache.tokens = tokens;
  } catch (error) {
    const errorClass = AdapterError.isInstance(error) ? error.errorClass : 'other';
    if (errorClass === 'cancelled') throw error;
    if (errorClass === 'invalid_request') {
      if (state.refused.length >= maxRefused) state.refused.shift();
      state.refused.push(headHash + contentsHash);
    }
    context.warn('prompt cache creation failed; the call proceeds uncached', {
      reason: error instanceof Error ? error.message : String(error),
      errorClass,
    });
  }
}

/** The number of leading contents that are stable: everything before the newest user turn. */
export function stablePrefixLength(contents: readonly GeminiContent[]): number {
  for (let index = contents.length - 1; index >= 0; index--) {
    if (contents[index]?.role === 'user') return index;
  }
  return 0;
}

/** The cache-entry fields other than contents: model, system instruction, tools, tool config. */
function cacheHead(converted: ConvertedRequest, model: string): JsonObject {
  const head: JsonObject = { model: modelPath(model) };
  if (converted.systemInstruction !== undefined) {
    head.systemInstruction = converted.systemInstruction as unknown as JsonObject;
  }
  if (converted.tools !== undefined) head.tools = converted.tools;
  if (converted.toolConfig !== undefined) head.toolConfig = converted.toolConfig as unknown as JsonObject;
  return head;
}

/** The longest known entry whose prefix this request starts with. */
function findEntry(
  state: CacheState,
  contents: readonly GeminiContent[],
  wanted: { headHash: string; prefixCount: number; model: string },
): CacheEntry | undefined {
  const candidates = state.entries
    .filter(
      (entry) =>
        entry.model === wanted.model &&
        entry.headHash === wanted.headHash &&
        entry.contentCount <= wanted.prefixCount,
    )
    .sort((left, right) => right.contentCount - left.contentCount);
  return candidates.find((entry) => hashOf(contents.slice(0, entry.contentCount)) === entry.contentsHash);
}

/**
 * The definition's `endSession`: deletes every `cachedContents` entry this adapter created for the session that has
 * not expired yet (expired ones are gone already), then forgets them. A deletion that fails is
 * logged as a WARN and left to lapse at its TTL (at most one hour); "not found" counts as deleted.
 */
export async function releaseCaches(session: AdapterSession, context: SessionEndContext): Promise<void> {
  const stateKey = stateKeyOf(context.provider);
  if (!session.state.has(stateKey)) return;
  const state = cacheState(session, stateKey, context.warn);
  if (state.entries.length === 0) return;
  const entries = state.entries;
  state.entries = [];
  const now = Date.now();
  await Promise.all(
    entries
      .filter((entry) => entry.expiresAt > now)
      .map(async (entry) => {
        try {
          await context.fetchJson('DELETE', `/${encodePathSegments(entry.name)}`);
        } catch (error) {
          const status = AdapterError.isInstance(error) ? error.status : undefined;
          if (status === 403 || status === 404) return;
          context.warn('could not delete a prompt cache entry; it lapses at its TTL', {
            cachedContent: entry.name,
            expiresAt: new Date(entry.expiresAt).toISOString(),
            reason: error instanceof Error ? error.message : String(error),
          });
        }
      }),
  );
}

/**
 * The session's cache state. Entries are only ever ones this process created (`prepareCache`'s
 * POST): a state restored from a snapshot is untrusted — a cache name in it cannot be told from any
 * other cache of the user's project (another session's, another tenant's, a production one), and
 * using it would send that cache's system instruction and tools, and ending the session would DELETE
 * it with the user's key. So a restored state's entries are all dropped with one WARN: the next call
 * creates a new entry, and the one the snapshot named lapses at its TTL (at most one hour). Its
 * refused prefixes (hashes that only suppress a creation attempt) are kept when well-formed.
 */
function cacheState(
  session: AdapterSession,
  stateKey: string,
  warn: (message: string, fields: Record<string, unknown>) => void,
): CacheState {
  const existing = session.state.get(stateKey);
  if (isCacheState(existing)) return existing;
  const record = isJsonObject(existing) ? existing : {};
  const restored = Array.isArray(record.entries) ? record.entries.length : 0;
  const refused = Array.isArray(record.refused)
    ? record.refused.filter(
        (item): item is string => typeof item === 'string' && /^[0-9a-f]{128}$/.test(item),
      )
    : [];
  if (restored > 0) {
    warn('dropped the prompt cache entries of a restored session; a new entry is created when needed', {
      dropped: restored,
      reason:
        'cache names in a snapshot are not trusted: only entries this process created are used or deleted',
    });
  }
  const checked: CacheState = { entries: [], refused: refused.slice(-maxRefused) };
  checkedStates.add(checked);
  session.state.set(stateKey, checked);
  return checked;
}

/** Whether `value` is a state this module made in this process (its entries are all its own). */
function isCacheState(value: unknown): value is CacheState {
  return checkedStates.has(value as object);
}
const checkedStates = new WeakSet<object>();

function readCachedContent(body: unknown): GeminiCachedContent {
  if (!isJsonObject(body) || typeof body.name !== 'string' || !cacheNamePattern.test(body.name)) {
    throw new Error('the cachedContents response has no valid name (cachedContents/<id>)');
  }
  const entry: GeminiCachedContent = { name: body.name };
  if (typeof body.expireTime === 'string') entry.expireTime = body.expireTime;
  const usage = body.usageMetadata;
  if (isJsonObject(usage) && typeof usage.totalTokenCount === 'number') {
    entry.usageMetadata = { totalTokenCount: usage.totalTokenCount };
  }
  return entry;
}

function hashOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}
