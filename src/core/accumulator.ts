/** Turns any canonical event stream into the response `complete()` would return. */
import type { StreamEvent } from './events.ts';
import type { ToolCallId } from './ids.ts';
import type { JsonObject } from './json.ts';
import type { MetadataMap } from './metadata.ts';
import type { CanonicalResponse } from './request.ts';
import type { Part } from './transcript.ts';
import { emptyUsage, type Usage } from './usage.ts';

type Building =
  | { type: 'text'; chunks: string[]; blocks?: number; incomplete?: true; metadata?: MetadataMap }
  | {
      type: 'reasoning';
      chunks: string[];
      blocks?: number;
      signature?: string;
      data?: string;
      redacted?: boolean;
      incomplete?: true;
      metadata?: MetadataMap;
    }
  | {
      type: 'tool-call';
      id: ToolCallId;
      name: string;
      input: JsonObject | undefined;
      signature?: string;
      incomplete?: true;
      metadata?: MetadataMap;
    }
  | { type: 'done'; part: Part };

/** Deltas per joined block: thousands of tiny delta strings cost far more heap than a few joined ones. */
const chunksPerBlock = 256;

/**
 * Appends a delta. Every `chunksPerBlock` loose deltas are joined into one block string in place
 * (`chunks` holds `blocks` joined blocks, then the loose deltas), so memory stays near the text's
 * size and the total work stays linear.
 */
function appendChunk(part: { chunks: string[]; blocks?: number }, delta: string): void {
  const chunks = part.chunks;
  chunks.push(delta);
  const blocks = part.blocks ?? 0;
  if (chunks.length - blocks < chunksPerBlock) return;
  const block = chunks.slice(blocks).join('');
  chunks.length = blocks;
  chunks.push(block);
  part.blocks = blocks + 1;
}

/**
 * Accumulates events into content parts. Text is collected as chunk arrays and joined once, so the
 * cost is linear in the response size.
 */
export class ResponseAccumulator {
  private readonly parts = new Map<number, Building>();
  private provider: string | undefined;
  private lastUsage: Usage = emptyUsage();
  private finished: CanonicalResponse | undefined;

  /** Feeds one event. */
  add(event: StreamEvent): void {
    switch (event.type) {
      case 'message-start':
        this.provider = event.provenance ?? event.provider;
        return;
      case 'text-start':
        this.parts.set(event.index, { type: 'text', chunks: [] });
        return;
      case 'reasoning-start':
        this.parts.set(event.index, { type: 'reasoning', chunks: [] });
        return;
      case 'text-delta':
      case 'reasoning-delta': {
        const part = this.parts.get(event.index);
        if (part !== undefined && (part.type === 'text' || part.type === 'reasoning'))
          appendChunk(part, event.delta);
        return;
      }
      case 'text-end':
      case 'reasoning-end':
        this.endTextLike(event);
        return;
      case 'tool-call-start':
        this.parts.set(event.index, { type: 'tool-call', id: event.id, name: event.name, input: undefined });
        return;
      case 'tool-call-delta':
        return;
      case 'tool-call-end': {
        const part = this.parts.get(event.index);
        if (part?.type === 'tool-call') {
          part.input = event.input;
          if (event.signature !== undefined) part.signature = event.signature;
          if (event.incomplete === true) part.incomplete = true;
          if (event.metadata !== undefined) part.metadata = event.metadata;
        }
        return;
      }
      case 'custom':
        this.parts.set(event.index, { type: 'done', part: event.part });
        return;
      case 'usage':
        this.lastUsage = event.usage;
        return;
      case 'finish':
        this.finished = event.response;
        return;
    }
  }

  private endTextLike(event: Extract<StreamEvent, { type: 'text-end' | 'reasoning-end' }>): void {
    const part = this.parts.get(event.index);
    if (part === undefined) return;
    if (part.type !== 'text' && part.type !== 'reasoning') return;
    if (event.metadata !== undefined) part.metadata = event.metadata;
    if (event.incomplete === true) part.incomplete = true;
    if (event.type === 'reasoning-end' && part.type === 'reasoning') {
      if (event.signature !== undefined) part.signature = event.signature;
      if (event.data !== undefined) part.data = event.data;
      if (event.redacted !== undefined) part.redacted = event.redacted;
    }
  }

  /** The content parts seen so far, in index order. */
  content(): Part[] {
    const indices = [...this.parts.keys()].sort((left, right) => left - right);
    return indices.map((index) => this.toPart(this.parts.get(index) as Building));
  }

  /** The last usage seen. */
  usage(): Usage {
    return this.lastUsage;
  }

  private toPart(building: Building): Part {
    switch (building.type) {
      case 'done':
        return building.part;
      case 'text': {
        const part: Part = { type: 'text', text: building.chunks.join('') };
        if (building.incomplete === true) part.incomplete = true;
        if (building.metadata !== undefined) part.metadata = building.metadata;
        return part;
      }
      case 'reasoning': {
        const part: Part = { type: 'reasoning', text: building.chunks.join('') };
        if (building.signature !== undefined) part.signature = building.signature;
        if (building.data !== undefined) part.data = building.data;
        if (building.redacted !== undefined) part.redacted = building.redacted;
        if (this.provider !== undefined) part.provider = this.provider;
        if (building.incomplete === true) part.incomplete = true;
        if (building.metadata !== undefined) part.metadata = building.metadata;
        return part;
      }
      case 'tool-call': {
        const part: Part = {
          type: 'tool-call',
          id: building.id,
          name: building.name,
          input: building.input ?? {},
        };
        if (building.signature !== undefined) part.signature = building.signature;
        if (this.provider !== undefined) part.provider = this.provider;
        if (building.incomplete === true) part.incomplete = true;
        if (building.metadata !== undefined) part.metadata = building.metadata;
        return part;
      }
    }
  }

  /**
   * The response: the `finish` event's fields with content rebuilt from the deltas. Throws when no
   * `finish` event was seen.
   */
  result(): CanonicalResponse {
    if (this.finished === undefined) throw new Error('ResponseAccumulator: the stream has no finish event');
    return { ...this.finished, content: this.content() };
  }
}

/** Accumulates a whole event list (or async iterable) into its response. */
export async function accumulateResponse(
  events: Iterable<StreamEvent> | AsyncIterable<StreamEvent>,
): Promise<CanonicalResponse> {
  const accumulator = new ResponseAccumulator();
  for await (const event of events) accumulator.add(event);
  return accumulator.result();
}
