/** Tracks streamed tool calls by wire index: one call streams live, calls interleaved with it are buffered. */
import { createToolCallId } from '../../core/ids.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import type { ProviderContext } from '../common/definition.ts';
import { canonicalToolId } from '../common/projection.ts';
import type { WireToolCall } from './api.ts';
import { parseJson } from '../../core/json-text.ts';

/** One tool call, by its wire index. */
interface ToolSlot {
  key: string;
  /** The wire index (the array position when a host sends none): the order buffered calls end in. */
  index: number;
  providerId: string | undefined;
  /** `providerId` was made up (the call started before any id came): the first id arriving later is this call's. */
  madeUpId?: true;
  /** That late id: a fragment repeating it is this call's; another id at the index is a new call. */
  lateId?: string;
  /** The first non-empty name seen. */
  name: string | undefined;
  /** `deferred`: interleaved with the live call, so buffered until the tool calls close. */
  state: 'live' | 'deferred' | 'ended';
  /** Whether the builder started it (only the live call starts before the tool calls close). */
  started: boolean;
  /** Raw argument fragments not yet given to the builder: before the name, or while deferred. */
  pending: string[] | undefined;
  warnedLate: boolean;
}

/**
 * Tool calls are tracked per wire `index`: the id and name are taken on first sight (later empty
 * ids and names are ignored), argument fragments go to the builder raw, and the input is parsed
 * once, by the builder, when the call ends. A new id at a known index is a new call — unless the
 * call there started with no id (its name came first): then the id that follows is its own.
 *
 * The builder keeps parts sequential (a started part ends the open one), but hosts may interleave
 * the fragments of parallel calls. So one call at a time is live (started, its fragments streamed
 * as they come); when another index appears:
 * - if the live call's arguments are already a complete JSON value, the live call ends and the new
 *   one becomes live: the usual sequential stream is passed through with no buffering;
 * - otherwise the calls are interleaved: the new call, and every call after it, is deferred — its
 *   name and raw fragments are buffered while the live call keeps streaming — and when the tool
 *   calls close (finish reason, `[DONE]`, stream end, in-band error) the live call ends, then each
 *   deferred call, in index order, starts, replays its fragments as they arrived, and ends.
 *
 * Trade-offs: deferred calls are not live; a failure the parser never sees (transport error,
 * abort) leaves deferred calls out of the partial response. A fragment for an ended call is dropped
 * with one WARN; that happens only when other content (text, reasoning) ended the call, or after
 * its arguments were already complete JSON, which more text could only make invalid.
 */
export class ToolCallTracker {
  private readonly slots = new Map<number, ToolSlot>();
  /** Every call not yet ended, in order of first sight. */
  private unfinished: ToolSlot[] = [];
  private live: ToolSlot | undefined;
  /** Set once calls interleave: every later call is deferred until the tool calls close. */
  private interleaved = false;
  private count = 0;

  private readonly context: ProviderContext;
  private readonly builder: StreamBuilder;
  private readonly onStart: () => void;

  /** `onStart` runs before a call starts (the reader closes its open text or reasoning there). */
  constructor(context: ProviderContext, builder: StreamBuilder, onStart: () => void) {
    this.context = context;
    this.builder = builder;
    this.onStart = onStart;
  }

  /** Reads one `tool_calls` entry found at `position` of its array. */
  read(entry: WireToolCall, position: number): void {
    if (typeof entry !== 'object' || entry === null) return;
    const index = typeof entry.index === 'number' ? entry.index : position;
    const id = typeof entry.id === 'string' && entry.id !== '' ? entry.id : undefined;
    let slot = this.slots.get(index);
    let newCall = id !== undefined && slot?.providerId !== undefined && id !== slot.providerId;
    if (newCall && slot!.madeUpId === true && (slot!.lateId === undefined || slot!.lateId === id)) {
      slot!.lateId = id;
      newCall = false;
    }
    if (slot === undefined || newCall) {
      slot = this.open(index, id);
    } else if (slot.providerId === undefined && id !== undefined && !slot.started) {
      slot.providerId = id;
    }
    const call = entry.function;
    if (typeof call !== 'object' || call === null) return;
    if (slot.name === undefined && typeof call.name === 'string' && call.name !== '') {
      slot.name = call.name;
      if (slot.state === 'live') this.start(slot, call.name);
    }
    const input = call.arguments;
    if (input === undefined || input === null) return;
    // A few hosts send the arguments as an object rather than JSON text.
    const fragment = typeof input === 'string' ? input : JSON.stringify(input);
    if (fragment !== '') this.append(slot, fragment);
  }

  /** Ends the live call, if it started (other content follows it). Deferred calls stay buffered. */
  endActive(): void {
    if (this.live?.started === true) this.end(this.live);
  }

  /**
   * Ends every call: the live one, then the deferred ones in index order. A call that never got a
   * name fails the response (the builder throws; see `StreamBuilder.toolStart`), or, when `partial`
   * (the response failed already), is dropped with a WARN. `partial` ends each input with whatever parses.
   */
  closeAll(partial = false): void {
    if (this.live?.started === true) this.end(this.live, partial);
    const rest = this.unfinished.filter((slot) => slot.state !== 'ended');
    rest.sort((first, second) => first.index - second.index);
    for (const slot of rest) {
      if (slot.name === undefined && partial) {
        // The response is failing already: a nameless call cannot be kept, and must not mask that error.
        this.context.warn('dropped a tool call that arrived without a name', { toolCallId: slot.providerId });
        continue;
      }
      // Without a name the builder throws: a classified, retryable `invalid_stream` error.
      this.start(slot, slot.name ?? '');
      this.end(slot, partial);
    }
    this.unfinished = [];
    this.live = undefined;
    this.interleaved = false;
  }

  /** Opens a call: live when nothing else is streaming, deferred when it interleaves with the live call. */
  private open(index: number, providerId: string | undefined): ToolSlot {
    const slot: ToolSlot = {
      key: `tool:${this.count++}`,
      index,
      providerId,
      name: undefined,
      state: 'deferred',
      started: false,
      pending: undefined,
      warnedLate: false,
    };
    this.slots.set(index, slot);
    this.unfinished.push(slot);
    if (!this.interleaved && this.live !== undefined && this.isComplete(this.live)) this.end(this.live);
    if (this.interleaved || this.live !== undefined) {
      this.interleaved = true;
    } else {
      slot.state = 'live';
      this.live = slot;
    }
    return slot;
  }

  /** Whether the live call has started and its arguments are a complete JSON value (read once per call). */
  private isComplete(slot: ToolSlot): boolean {
    if (!slot.started) return false;
    const text = this.builder.toolInputText(slot.key);
    if (text === undefined || text.trim() === '') return false;
    try {
      parseJson(text);
      return true;
    } catch {
      return false;
    }
  }

  private start(slot: ToolSlot, name: string): void {
    this.onStart();
    // A host that sends no id (or sends it after the name) still needs a unique one per session.
    if (slot.providerId === undefined) {
      slot.providerId = `call_${createToolCallId().slice(3)}`;
      slot.madeUpId = true;
    }
    this.builder.toolStart(slot.key, canonicalToolId(this.context, slot.providerId), name);
    slot.started = true;
    if (slot.pending !== undefined) {
      for (const fragment of slot.pending) this.builder.toolDelta(slot.key, fragment);
      slot.pending = undefined;
    }
  }

  private append(slot: ToolSlot, fragment: string): void {
    if (slot.state === 'ended') {
      if (!slot.warnedLate) {
        slot.warnedLate = true;
        this.context.warn('dropped tool-call arguments that arrived after the call ended', {
          toolCallId: slot.providerId,
        });
      }
      return;
    }
    if (slot.started) {
      this.builder.toolDelta(slot.key, fragment);
      return;
    }
    slot.pending ??= [];
    slot.pending.push(fragment);
  }

  private end(slot: ToolSlot, partial = false): void {
    if (slot.state === 'ended') return;
    slot.state = 'ended';
    if (this.live === slot) this.live = undefined;
    this.builder.end(slot.key, partial ? { partial } : {});
  }
}
