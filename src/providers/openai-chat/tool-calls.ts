/** Tracks streamed tool calls by wire index: start on first sight, raw fragments, end once. */
import { createToolCallId } from '../../core/ids.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import type { ProviderContext } from '../shared/definition.ts';
import { canonicalToolId } from '../shared/projection.ts';
import type { WireToolCall } from './api.ts';

/** One tool call, by its wire index. */
interface ToolSlot {
  key: string;
  providerId: string | undefined;
  started: boolean;
  ended: boolean;
  /** Argument fragments that arrived before the name. */
  pending: string[] | undefined;
  warnedLate: boolean;
}

/**
 * Tool calls are tracked per wire `index` (the position in the array when a host sends none): the id
 * and name are taken on first sight (later empty ids and names are ignored), argument fragments are
 * passed to the builder raw, and the input is parsed once, by the builder, when the call ends.
 * Calls are sequential on the wire, so a new call ends the open one; a fragment arriving for an
 * ended call is dropped with one WARN. A new id at a known index is a new call.
 */
export class ToolCallTracker {
  private readonly slots = new Map<number, ToolSlot>();
  private active: ToolSlot | undefined;
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
    if (slot === undefined || (id !== undefined && slot.providerId !== undefined && id !== slot.providerId)) {
      slot = this.open(index, id);
    } else if (slot.providerId === undefined && id !== undefined && !slot.started) {
      slot.providerId = id;
    }
    const call = entry.function;
    if (typeof call !== 'object' || call === null) return;
    if (!slot.started && typeof call.name === 'string' && call.name !== '') this.start(slot, call.name);
    const input = call.arguments;
    if (input === undefined || input === null) return;
    // A few hosts send the arguments as an object rather than JSON text.
    const fragment = typeof input === 'string' ? input : JSON.stringify(input);
    if (fragment !== '') this.append(slot, fragment);
  }

  /** Ends the open call, if any. */
  endActive(): void {
    if (this.active !== undefined) this.end(this.active);
  }

  /** Ends every call; one that never got a name starts as `unknown_tool`, with a WARN. */
  closeAll(): void {
    this.endActive();
    for (const slot of this.slots.values()) {
      if (slot.started || slot.ended) continue;
      this.context.warn('a tool call arrived without a name', { toolCallId: slot.providerId });
      this.start(slot, 'unknown_tool');
      this.end(slot);
    }
  }

  private open(index: number, providerId: string | undefined): ToolSlot {
    const slot: ToolSlot = {
      key: `tool:${this.count++}`,
      providerId,
      started: false,
      ended: false,
      pending: undefined,
      warnedLate: false,
    };
    this.slots.set(index, slot);
    return slot;
  }

  private start(slot: ToolSlot, name: string): void {
    this.onStart();
    if (this.active !== undefined && this.active !== slot) this.end(this.active);
    // A host that sends no id still needs a unique one per session.
    slot.providerId ??= `call_${createToolCallId().slice(3)}`;
    this.builder.toolStart(slot.key, canonicalToolId(this.context, slot.providerId), name);
    slot.started = true;
    this.active = slot;
    if (slot.pending !== undefined) {
      for (const fragment of slot.pending) this.builder.toolDelta(slot.key, fragment);
      slot.pending = undefined;
    }
  }

  private append(slot: ToolSlot, fragment: string): void {
    if (slot.ended) {
      if (!slot.warnedLate) {
        slot.warnedLate = true;
        this.context.warn('dropped tool-call arguments that arrived after the call ended', {
          toolCallId: slot.providerId,
        });
      }
      return;
    }
    if (!slot.started) {
      slot.pending ??= [];
      slot.pending.push(fragment);
      return;
    }
    this.builder.toolDelta(slot.key, fragment);
  }

  private end(slot: ToolSlot): void {
    if (slot.ended) return;
    slot.ended = true;
    if (this.active === slot) this.active = undefined;
    this.builder.end(slot.key);
  }
}
