/**
 * Provider artifacts a client protocol has no field for: a tool call's signature (Gemini thought
 * signatures) and the signed reasoning of the message that made the call, kept in the state store
 * by tool-call id and put back when the client sends the call again. Stored Responses transcripts
 * (`store` + `previous_response_id`) live in the same store. Every entry belongs to the gateway
 * key that made it (its `scope`, the key's name; '' without keys): another key's request can
 * neither continue a stored response nor receive another tenant's signed reasoning by naming its id.
 */
import { createHash } from 'node:crypto';
import type { Item, Part, ReasoningPart, ToolCallPart } from '../core/transcript.ts';
import { untaggedItemIdKey } from '../codecs/opaque.ts';
import { pushAll } from '../core/arrays.ts';
import { untaggedItemKey } from '../codecs/openai-responses/client-calls.ts';
import { type GatewayStore, maxArtifactReads, type ReadBudget } from './store.ts';
import { saveTextSignatures } from './text-signatures.ts';

interface CallArtifacts {
  provider?: string;
  signature?: string;
  reasoning?: ReasoningPart[];
  /**
   * Where each reasoning part sat: how many of the message's other parts came before it (text
   * between two thinking blocks keeps them apart when they are put back).
   */
  at?: number[];
  /**
   * How many of the message's tool calls came before each reasoning part: reasoning that followed
   * a call goes back after it (reasoning, call, reasoning, call keeps alternating). Entries written
   * before this field put every part in front of the first call.
   */
  calls?: number[];
  /**
   * On the reply's first call, the ids of its other calls: a client that sends them back as
   * separate turns (each call followed by its output) has them joined into one again.
   */
  together?: string[];
}

/** Reads a call's stored entry once per request (the turn join and the restore both want the first call's). */
type Lookup = (id: string) => Promise<CallArtifacts | undefined>;

/** The scope of a gateway key's entries: its name ('' without keys), length-prefixed so no two collide. */
export const scopeOf = (keyName: string | undefined): string =>
  keyName === undefined ? '' : `${keyName.length}.${keyName}`;
const callKey = (scope: string, id: string) => `call:${scope}:${id}`;

/**
 * A client's `prompt_cache_key` as sent upstream: under a gateway key, a hash of that key's scope
 * and the client's value (64 characters, OpenAI's most), so clients of two keys — one operator
 * account — never share cache routing by choosing the same value; without gateway keys (one
 * tenant) the client's own value.
 */
export function scopedCacheKey(scope: string, key: string): string {
  if (scope === '') return key;
  return `sy-${createHash('sha256').update(scope).update('\0').update(key).digest('hex').slice(0, 61)}`;
}
/** The store key of a stored Responses transcript. */
export const responseKey = (scope: string, id: string) => `response:${scope}:${id}`;

/**
 * The scope in a store key (`kind:scope:id`, the scope length-prefixed), '' for the unscoped: the
 * memory store's group, so that one key's entries never evict every other key's.
 */
export function scopeOfStoreKey(storeKey: string): string {
  const start = storeKey.indexOf(':') + 1;
  const dot = storeKey.indexOf('.', start);
  const length = Number(storeKey.slice(start, dot));
  if (start === 0 || dot === -1 || !Number.isSafeInteger(length) || length < 0) return '';
  return storeKey.slice(start, dot + 1 + length);
}

/**
 * Keeps the signatures and signed reasoning of a response's tool calls, and the signatures of its
 * signed text (`text-signatures.ts`); undefined when it has none of them.
 */
export function saveArtifacts(
  content: readonly Part[],
  provider: string,
  store: GatewayStore,
  ttlMs: number,
  scope: string,
): Promise<void> | undefined {
  const texts = saveTextSignatures(content, store, ttlMs, scope);
  const calls = content.filter((part): part is ToolCallPart => part.type === 'tool-call');
  const saved = calls.length === 0 ? undefined : saveCalls(calls, content, provider, store, ttlMs, scope);
  if (texts === undefined || saved === undefined) return texts ?? saved;
  return Promise.all([texts, saved]).then(() => undefined);
}

async function saveCalls(
  calls: ToolCallPart[],
  content: readonly Part[],
  provider: string,
  store: GatewayStore,
  ttlMs: number,
  scope: string,
): Promise<void> {
  const reasoning: ReasoningPart[] = [];
  const at: number[] = [];
  const callsBefore: number[] = [];
  let others = 0;
  let callsSeen = 0;
  // Unsigned reasoning too: a host that wants its own back (DeepSeek's `reasoning_content` on a
  // tool-call turn) must find it tagged with its provider, whether or not the client sent it back.
  for (const part of content) {
    if (part.type !== 'reasoning') {
      others++;
      if (part.type === 'tool-call') callsSeen++;
    } else if (part.signature !== undefined || part.data !== undefined || part.text !== '') {
      reasoning.push(part);
      at.push(others);
      callsBefore.push(callsSeen);
    }
  }
  await Promise.all(
    calls.map((call, index) => {
      const artifacts: CallArtifacts = { provider: call.provider ?? provider };
      if (call.signature !== undefined) artifacts.signature = call.signature;
      if (index === 0 && reasoning.length > 0) {
        artifacts.reasoning = reasoning.map((part) => ({ ...part, provider: part.provider ?? provider }));
        artifacts.at = at;
        artifacts.calls = callsBefore;
      }
      if (index === 0 && calls.length > 1) artifacts.together = calls.slice(1).map((other) => other.id);
      if (
        artifacts.signature === undefined &&
        artifacts.reasoning === undefined &&
        artifacts.together === undefined
      )
        return undefined;
      return store.put(callKey(scope, call.id), artifacts, ttlMs);
    }),
  );
}

async function restoreItem(item: Item, lookup: Lookup): Promise<void> {
  const calls = item.parts.filter((part): part is ToolCallPart => part.type === 'tool-call');
  const hasReasoning = item.parts.some((part) => part.type === 'reasoning');
  // Only what the client did not send back is looked up: a call's signature, the message's reasoning.
  const needed = calls.map((call, index) => call.signature === undefined || (index === 0 && !hasReasoning));
  if (!needed.includes(true)) return;
  const found = await Promise.all(calls.map((call, index) => (needed[index] ? lookup(call.id) : undefined)));
  calls.forEach((call, index) => {
    const artifacts = found[index];
    if (artifacts === undefined || call.signature !== undefined) return;
    if (artifacts.signature !== undefined) call.signature = artifacts.signature;
    if (artifacts.provider !== undefined) call.provider = artifacts.provider;
  });
  const first = found[0];
  if (first?.reasoning === undefined) return;
  if (!hasReasoning) item.parts = placeReasoning(item.parts, first);
  else adoptProvider(item.parts, first.reasoning[0]?.provider);
}

/**
 * The client sent the message's reasoning back as text its protocol carries with no tag (Chat
 * Completions' `reasoning_content`): the provider that made it, as the stored entry of the
 * message's call says, so that provider's adapter takes it back.
 */
function adoptProvider(parts: Part[], provider: string | undefined): void {
  if (provider === undefined) return;
  for (const part of parts)
    if (
      part.type === 'reasoning' &&
      part.provider === undefined &&
      part.signature === undefined &&
      part.data === undefined
    )
      part.provider = provider;
}

/**
 * The item's parts with the stored reasoning put back where it sat among them (all in front when a
 * stored entry has no positions): Anthropic wants interleaved thinking in its order, and OpenAI's
 * Responses API takes a reasoning item only when the item that followed it comes next. A part goes
 * after as many of the item's calls as preceded it in the reply (`calls`) and, among the other
 * parts, before the one it preceded (`at`) — never after a call it came before: a client that
 * merged or left out text has fewer parts than the reply had.
 */
function placeReasoning(parts: Part[], artifacts: CallArtifacts): Part[] {
  const reasoning = artifacts.reasoning!;
  const { at, calls } = artifacts;
  if (at === undefined || at.length !== reasoning.length) return [...reasoning, ...parts];
  // An entry without call counts (written before they were kept): every part before the first call.
  const callsBefore = calls?.length === reasoning.length ? calls : undefined;
  const placed: Part[] = [];
  let next = 0;
  let callsSeen = 0;
  parts.forEach((part, index) => {
    while (next < reasoning.length) {
      const afterCalls = callsBefore === undefined || callsBefore[next]! <= callsSeen;
      if (!afterCalls || (at[next]! > index && part.type !== 'tool-call')) break;
      placed.push(reasoning[next++]!);
    }
    placed.push(part);
    if (part.type === 'tool-call') callsSeen++;
  });
  while (next < reasoning.length) placed.push(reasoning[next++]!);
  return placed;
}

/**
 * Stored artifacts of the shape this module writes, or undefined: a store is outside the process
 * (Redis), and what another writer left under a call's key must not reach a transcript.
 */
function readable(value: unknown): CallArtifacts | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { provider, signature, reasoning, at, calls, together } = value as Record<string, unknown>;
  if (together !== undefined && !(Array.isArray(together) && together.every((id) => typeof id === 'string')))
    return undefined;
  if (provider !== undefined && typeof provider !== 'string') return undefined;
  if (!isCountList(at) || !isCountList(calls)) return undefined;
  if (signature !== undefined && typeof signature !== 'string') return undefined;
  if (
    reasoning !== undefined &&
    !(
      Array.isArray(reasoning) &&
      reasoning.every(
        (part: unknown) =>
          typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'reasoning',
      )
    )
  )
    return undefined;
  return value as CallArtifacts;
}

/** Absent, or a list of counts (non-negative integers). */
const isCountList = (value: unknown): boolean =>
  value === undefined ||
  (Array.isArray(value) && value.every((index) => Number.isSafeInteger(index) && index >= 0));

const noEntry: Promise<undefined> = Promise.resolve(undefined);

/**
 * Puts stored artifacts back on the assistant items of a decoded transcript (in place), after
 * joining the calls of one reply that the client sent as separate turns ({@link joinSplitTurns});
 * undefined when no assistant item has a tool call (nothing to look up).
 */
export function restoreArtifacts(
  transcript: Item[],
  store: GatewayStore,
  scope: string,
  reads: ReadBudget = { left: maxArtifactReads },
): Promise<void> | undefined {
  if (!transcript.some(hasCalls)) return undefined;
  const entries = new Map<string, Promise<CallArtifacts | undefined>>();
  const lookup: Lookup = (id) => {
    let entry = entries.get(id);
    if (entry !== undefined) return entry;
    if (reads.left <= 0) return noEntry;
    reads.left--;
    entries.set(id, (entry = store.get(callKey(scope, id)).then(readable)));
    return entry;
  };
  // The latest items first: they get the reads when a long history has more calls than the bound.
  const restore = () =>
    Promise.all(
      transcript
        .filter(hasCalls)
        .reverse()
        .map((item) => restoreItem(item, lookup)),
    ).then(() => undefined);
  const joined = joinSplitTurns(transcript, lookup);
  return joined === undefined ? restore() : joined.then(restore);
}

const hasCalls = (item: Item): boolean =>
  item.kind === 'assistant' && item.parts.some((part) => part.type === 'tool-call');

const callIds = (item: Item): string[] =>
  item.parts.flatMap((part) => (part.type === 'tool-call' ? [part.id as string] : []));

/**
 * Whether `transcript[index]` is an assistant item with calls, followed by tool results only and
 * then an assistant item of calls only: a turn the client may have split after each call's output.
 */
function splitAt(transcript: readonly Item[], index: number): boolean {
  const [calls, results, more] = [transcript[index], transcript[index + 1], transcript[index + 2]];
  return (
    calls !== undefined &&
    hasCalls(calls) &&
    results?.kind === 'tool' &&
    results.parts.every((part) => part.type === 'tool-result') &&
    isCallsOnly(more)
  );
}

/**
 * Joins a reply's parallel calls that the client sent back one turn each, every call followed by
 * its output (`fc1, out1, fc2, out2`: a valid Responses input, as coding agents record each call as
 * they run it), into one assistant turn and their outputs into one tool turn, as the model made
 * them — Gemini 3 wants one signed model turn, Claude thinking at the head of the turn. The rule:
 * an assistant item of calls only, right after the tool results that follow an assistant item with
 * calls, joins that item when the stored entry of its first call names every one of those calls
 * as the same reply's (`together`). Anything else keeps the client's order: text or reasoning (a
 * new model turn), calls of another reply, or no stored entry (expired, another store, a reply the
 * gateway never made) — from the input alone a parallel turn sent so cannot be told from a
 * sequential tool loop, which sends exactly the same items. Undefined when no item is split so.
 */
function joinSplitTurns(transcript: Item[], lookup: Lookup): Promise<void> | undefined {
  const heads = transcript.filter((_, index) => splitAt(transcript, index));
  if (heads.length === 0) return undefined;
  // The latest first, as the reads are bounded (`maxArtifactReads`).
  const lookups: Array<Promise<CallArtifacts | undefined>> = [];
  for (let index = heads.length - 1; index >= 0; index--) lookups[index] = lookup(callIds(heads[index]!)[0]!);
  return Promise.all(lookups).then((found) => {
    const joinAt = new Map<Item, ReadonlySet<string>>();
    heads.forEach((head, index) => {
      const together = found[index]?.together;
      if (together !== undefined) joinAt.set(head, new Set(together));
    });
    if (joinAt.size > 0) joinTurns(transcript, joinAt);
  });
}

/**
 * One pass over the transcript (in place): after each head of `joinAt` and its results, the
 * assistant items of calls only that its entry names, each with the results after it, join the
 * head and its results. Linear, and never a spread of a part list into a call's arguments (a
 * request may hold more parts than a call takes).
 */
function joinTurns(transcript: Item[], joinAt: ReadonlyMap<Item, ReadonlySet<string>>): void {
  const joined: Item[] = [];
  for (let index = 0; index < transcript.length; index++) {
    const head = transcript[index]!;
    joined.push(head);
    const together = joinAt.get(head);
    if (together === undefined) continue;
    // A head: tool results only after it, then an assistant item of calls only (`splitAt`).
    const results = transcript[++index]!;
    joined.push(results);
    for (;;) {
      const more = transcript[index + 1];
      if (!isCallsOnly(more) || !callIds(more).every((id) => together.has(id))) break;
      pushAll(head.parts, more.parts);
      index++;
      // Its results, when they follow it (else the next item of calls may join still).
      const next = transcript[index + 1];
      if (next?.kind !== 'tool' || !next.parts.every((part) => part.type === 'tool-result')) continue;
      pushAll(results.parts, next.parts);
      index++;
    }
  }
  transcript.length = 0;
  pushAll(transcript, joined);
}

const isCallsOnly = (item: Item | undefined): item is Item =>
  item?.kind === 'assistant' &&
  item.parts.length > 0 &&
  item.parts.every((part) => part.type === 'tool-call');

/**
 * Tags the client's untagged opaque values — a signature, encrypted reasoning or a Gemini call's
 * `thoughtSignature` sent as the provider wrote it, not wrapped by the gateway — as `provider`'s:
 * called when the request goes to an adapter of the client protocol's own provider type (a session
 * begun directly with Anthropic, then pointed at the gateway, keeps its thinking). Untagged, such a
 * value was dropped as unverifiable, even on its way back to the provider that made it. Custom parts
 * the client's codec tagged as its protocol's provider's (`clientTag`) become `provider`'s too.
 */
export function adoptUntaggedArtifacts(transcript: Item[], provider: string, clientTag?: string): void {
  for (const item of transcript) {
    if (item.kind !== 'assistant') continue;
    for (const part of item.parts)
      if (part.type === 'custom' && clientTag !== undefined && part.provider === clientTag) {
        // A block the client's codec kept as its protocol's own (an Anthropic server tool's call or
        // result): the route's adapter's, whatever its name (`work-claude`).
        part.provider = provider;
      } else if (
        (part.type === 'reasoning' || part.type === 'tool-call') &&
        part.provider === undefined &&
        ((part.type === 'reasoning' && part.data !== undefined) || part.signature !== undefined)
      ) {
        part.provider = provider;
        const itemId = part.metadata?.[untaggedItemIdKey];
        if (itemId === undefined) continue;
        const { [untaggedItemIdKey]: _, ...rest } = part.metadata!;
        part.metadata = { ...rest, [`${provider}.item_id`]: itemId };
      }
  }
}

/**
 * Makes the items a Responses client sent verbatim with its built-in calls and their answers
 * (`untaggedItemKey`: `apply_patch_call`, `shell_call_output`, …) `provider`'s own (`<provider>.item`):
 * called when the request goes to an adapter of the client protocol's own provider type, which
 * then sends each item back as it came. Elsewhere they stay untagged: the calls go as ordinary ones.
 */
export function adoptUntaggedItems(transcript: Item[], provider: string): void {
  for (const item of transcript)
    for (const part of item.parts) {
      if (part.type !== 'tool-call' && part.type !== 'tool-result') continue;
      const verbatim = part.metadata?.[untaggedItemKey];
      if (verbatim === undefined) continue;
      const { [untaggedItemKey]: _, ...rest } = part.metadata!;
      part.metadata = { ...rest, [`${provider}.item`]: verbatim };
    }
}
