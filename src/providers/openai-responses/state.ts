/**
 * Server-side state for the stateful modes: what the server holds for this session, and whether a
 * transcript extends it (then only the new items go out) or not (then a full replay, never a mix).
 */
import type { Item } from '../../core/transcript.ts';
import type { ProviderContext } from '../common/definition.ts';
import { itemIdOf } from './messages.ts';
import type { ResponsesStateMode } from './options.ts';

/** What the server holds after a stored response: the transcript sent, then the response's output items. */
export interface HeldState {
  responseId: string;
  /** Number of transcript items the request carried. */
  count: number;
  /** Fingerprint of those items. */
  fingerprint: string;
  /** Ids of the output items that became canonical parts, in order. */
  outputItemIds: string[];
}

/** The per-session entry (`session.state.get(<adapter name>)`). */
interface SessionEntry {
  held?: HeldState;
  /** A conversation the transcript diverged from: every later turn is a full stateless replay. */
  abandoned?: boolean;
  /** The request in flight: committed as `held` when its response completes. */
  pending?: { requestId: string; count: number; fingerprint: string };
}

/** How one request is sent. */
export type InputPlan =
  | { kind: 'full'; store: boolean }
  | {
      kind: 'delta';
      items: readonly Item[];
      from: number;
      previousResponseId?: string;
      conversation?: string;
    };

function entryOf(context: ProviderContext): SessionEntry {
  const key = `${context.provider}:responses`;
  let entry = context.session.state.get(key) as SessionEntry | undefined;
  if (entry === undefined || !checkedEntries.has(entry)) {
    // Restored from a snapshot (untrusted) or new: only a well-formed held state is kept.
    entry = checkedEntry(entry);
    checkedEntries.add(entry);
    context.session.state.set(key, entry);
  }
  return entry;
}

const checkedEntries = new WeakSet<object>();

function checkedEntry(value: unknown): SessionEntry {
  if (typeof value !== 'object' || value === null) return {};
  const { held, abandoned } = value as Record<string, unknown>;
  const entry: SessionEntry = {};
  if (abandoned === true) entry.abandoned = true;
  if (typeof held === 'object' && held !== null) {
    const { responseId, count, fingerprint, outputItemIds } = held as Record<string, unknown>;
    if (
      typeof responseId === 'string' &&
      /^[A-Za-z0-9_-]{1,256}$/.test(responseId) &&
      Number.isInteger(count) &&
      (count as number) >= 0 &&
      typeof fingerprint === 'string' &&
      Array.isArray(outputItemIds) &&
      outputItemIds.every((id) => typeof id === 'string')
    ) {
      entry.held = {
        responseId,
        count: count as number,
        fingerprint,
        outputItemIds: outputItemIds as string[],
      };
    }
  }
  return entry;
}

/** A stable text of a transcript prefix (binary data included), compared to detect edits. */
export function fingerprintOf(items: readonly Item[]): string {
  return JSON.stringify(items, (_key, value: unknown) =>
    value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value,
  );
}

/**
 * Where the held output items sit in `transcript` after the held prefix: the index after the last
 * of them, or -1 when the assistant items there are not exactly the held output (a turn served
 * elsewhere, an edited answer).
 */
function afterHeldOutput(transcript: readonly Item[], held: HeldState, provider: string): number {
  const seen: string[] = [];
  let index = held.count;
  while (index < transcript.length && transcript[index]?.kind === 'assistant') {
    for (const part of transcript[index]?.parts ?? []) {
      const id = itemIdOf(part, provider);
      if (id === undefined) return -1;
      if (seen[seen.length - 1] !== id) seen.push(id);
    }
    index++;
  }
  if (seen.length !== held.outputItemIds.length) return -1;
  return seen.every((id, position) => id === held.outputItemIds[position]) ? index : -1;
}

/**
 * Decides what to send. Stateless: everything, `store: false`. Stateful: the items after what the
 * server holds, when the transcript extends it exactly (same prefix, then the held response's
 * output, then at least one new item); otherwise a full replay (stored for `previous-response`, so
 * a new chain starts; not stored for a conversation, which cannot be rewound), with a WARN.
 */
export function planInput(
  transcript: readonly Item[],
  context: ProviderContext,
  mode: ResponsesStateMode,
): InputPlan {
  if (mode === 'stateless') return { kind: 'full', store: false };
  const entry = entryOf(context);
  if (entry.abandoned === true) return { kind: 'full', store: false };
  const fingerprint = fingerprintOf(transcript);
  entry.pending = { requestId: context.requestId, count: transcript.length, fingerprint };
  const held = entry.held;
  const conversation = typeof mode === 'object' ? mode.conversation : undefined;
  if (held === undefined) {
    // The first turn: a conversation receives the whole transcript; a chain starts stored.
    if (conversation !== undefined) return { kind: 'delta', items: transcript, from: 0, conversation };
    return { kind: 'full', store: true };
  }
  const from = extendsHeld(transcript, held, context.provider);
  if (from !== undefined) {
    const items = transcript.slice(from);
    if (conversation !== undefined) return { kind: 'delta', items, from, conversation };
    return { kind: 'delta', items, from, previousResponseId: held.responseId };
  }
  context.warn('sent the whole transcript: it no longer extends what the server holds', {
    previousResponseId: held.responseId,
  });
  if (conversation !== undefined) {
    entry.pending = undefined;
    entry.held = undefined;
    entry.abandoned = true;
    return { kind: 'full', store: false };
  }
  return { kind: 'full', store: true };
}

function extendsHeld(transcript: readonly Item[], held: HeldState, provider: string): number | undefined {
  if (transcript.length <= held.count) return undefined;
  if (fingerprintOf(transcript.slice(0, held.count)) !== held.fingerprint) return undefined;
  const from = afterHeldOutput(transcript, held, provider);
  return from < 0 || from >= transcript.length ? undefined : from;
}

/**
 * Records a completed, stored response as what the server now holds (the request's transcript plus
 * the response's output items). Called by the reader on `response.completed` / `incomplete`.
 */
export function commitResponse(context: ProviderContext, responseId: string, outputItemIds: string[]): void {
  const entry = context.session.state.get(`${context.provider}:responses`) as SessionEntry | undefined;
  const pending = entry?.pending;
  if (entry === undefined || pending === undefined || pending.requestId !== context.requestId) return;
  entry.held = { responseId, count: pending.count, fingerprint: pending.fingerprint, outputItemIds };
  entry.pending = undefined;
}
