/** The content-block reader (wire → canonical) shared by the stream parser and whole responses: `ResponseReader`. */
import { createToolCallId } from '../../core/ids.ts';
import { isJsonObject, type JsonObject, type JsonValue, jsonTypeName } from '../../core/json.ts';
import { anthropicCallerMetadata, type MetadataMap } from '../../core/metadata.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import type { ProviderContext } from '../common/definition.ts';
import { canonicalToolId, provenanceOf } from '../common/projection.ts';
import type { WireDelta, WireResponseBlock } from './api.ts';
import { citationsKey } from './content.ts';
import type { PieceType } from './delta-scanner.ts';
import { parseJson } from '../../core/json-text.ts';
import { holdJsonText } from './json-mode.ts';

type OpenBlock =
  | { kind: 'text'; citations: JsonValue[] | undefined }
  | { kind: 'thinking'; signature: string }
  | { kind: 'redacted'; data: string }
  | { kind: 'tool'; input: JsonObject; streamed: boolean; metadata: MetadataMap | undefined }
  | { kind: 'custom'; block: WireResponseBlock; input: string[] | undefined; text: string[] | undefined };

/** The string field each piece delta carries. */
const pieceFields: Record<PieceType, 'text' | 'partial_json' | 'thinking'> = {
  text_delta: 'text',
  input_json_delta: 'partial_json',
  thinking_delta: 'thinking',
};

/**
 * Translates Anthropic content blocks, keyed by their wire `index`, into builder calls. Whole blocks
 * (a `complete()` body, blocks pre-filled in `message_start`) are a `start` then a `stop`; streamed
 * blocks get their deltas in between. Known blocks map to text, reasoning and tool-call parts.
 * Every other block — server tool calls and results (`server_tool_use`, `web_search_tool_result`,
 * `mcp_tool_use`, `compaction`, `container_upload`, …) and block types this adapter does not know
 * yet — is kept losslessly as a custom part `{provider:'anthropic', kind: block.type, data}` whose
 * data is the complete wire block (streamed input JSON and text assembled into it), so it
 * round-trips to Anthropic unchanged. Unknown delta types are skipped with a WARN. A custom part is
 * emitted whole at `content_block_stop`, so one still streaming when the call is cancelled or fails
 * is not part of the partial response (it could not be sent back half-formed anyway).
 */
export class ResponseReader {
  private readonly open = new Map<number, OpenBlock>();
  private readonly context: ProviderContext;
  private readonly builder: StreamBuilder;
  private directCalls = false;

  constructor(context: ProviderContext, builder: StreamBuilder) {
    this.context = context;
    this.builder = builder;
    holdJsonText(context, builder);
  }

  /**
   * Whether a `tool_use` block of the current message the model made itself (no caller, or `caller: {type:'direct'}`) was
   * read: a call for the client to run. One made by a program in code execution (programmatic tool
   * calling) was run inside the turn, its result already in the reply.
   */
  get hasDirectToolCalls(): boolean {
    return this.directCalls;
  }

  /**
   * A further message of one stream begins: its stop reason speaks for its own blocks, so the
   * calls of an earlier message (answered before it) no longer count.
   */
  beginMessage(): void {
    this.directCalls = false;
  }

  /** Emits a whole block. */
  whole(index: number, block: WireResponseBlock | null | undefined): void {
    this.start(index, block);
    this.stop(index);
  }

  /** `content_block_start`: opens the part; a pre-filled text, thinking or input is kept. */
  start(index: number, block: WireResponseBlock | null | undefined): void {
    if (!isJsonObject(block) || typeof block.type !== 'string') {
      this.skip(`a content block without a type at index ${index}`);
      return;
    }
    if (this.open.has(index)) this.stop(index);
    switch (block.type) {
      case 'text':
        if (block.text !== undefined && block.text !== null && typeof block.text !== 'string')
          throw new TypeError(`a text block's text is ${jsonTypeName(block.text)}, not a string`);
        this.builder.openText(index, 'text');
        if (typeof block.text === 'string' && block.text !== '') this.builder.text(index, block.text);
        this.open.set(index, {
          kind: 'text',
          citations:
            Array.isArray(block.citations) && block.citations.length > 0 ? [...block.citations] : undefined,
        });
        return;
      case 'thinking':
        this.builder.openText(index, 'reasoning');
        if (typeof block.thinking === 'string' && block.thinking !== '')
          this.builder.reasoning(index, block.thinking);
        this.open.set(index, { kind: 'thinking', signature: block.signature ?? '' });
        return;
      case 'redacted_thinking':
        this.builder.openRedacted(index);
        this.open.set(index, { kind: 'redacted', data: block.data ?? '' });
        return;
      case 'tool_use':
        this.startToolUse(index, block);
        return;
      default:
        this.open.set(index, { kind: 'custom', block, input: undefined, text: undefined });
    }
  }

  private startToolUse(index: number, block: WireResponseBlock): void {
    const id =
      typeof block.id === 'string' && block.id !== ''
        ? canonicalToolId(this.context, block.id)
        : createToolCallId();
    const metadata = anthropicCallerMetadata(block.caller);
    if (metadata === undefined) this.directCalls = true;
    // The caller rides on the start too: a consumer announcing the call (an Anthropic client's
    // `content_block_start`) has it before the input streams.
    this.builder.toolStart(index, id, typeof block.name === 'string' ? block.name : '', undefined, metadata);
    const input = isJsonObject(block.input) ? block.input : {};
    this.open.set(index, { kind: 'tool', input, streamed: false, metadata });
  }

  /** `content_block_delta`: one small handler per delta type. */
  delta(index: number, delta: WireDelta | null | undefined): void {
    if (!isJsonObject(delta)) {
      this.skip(`a content_block_delta without a delta at index ${index}`);
      return;
    }
    const block = this.open.get(index) ?? this.unstarted(index, String(delta.type));
    if (block === undefined) return;
    const field = Object.hasOwn(pieceFields, delta.type) ? pieceFields[delta.type as PieceType] : undefined;
    // A piece of another type is not a shape to skip: the reply would read as whole without it.
    if (
      field !== undefined &&
      delta[field] !== undefined &&
      delta[field] !== null &&
      typeof delta[field] !== 'string'
    )
      throw new TypeError(`a ${delta.type}'s ${field} is ${jsonTypeName(delta[field])}, not a string`);
    switch (delta.type) {
      case 'text_delta':
        this.onText(index, block, delta.text ?? '');
        return;
      case 'thinking_delta':
        this.onThinking(index, block, delta.thinking ?? '');
        return;
      case 'signature_delta':
        if (block.kind === 'thinking') block.signature += delta.signature ?? '';
        else this.skip(`a signature_delta for a ${block.kind} block`);
        return;
      case 'input_json_delta':
        this.onInputJson(index, block, delta.partial_json ?? '');
        return;
      case 'citations_delta':
        if (block.kind === 'text' && delta.citation !== undefined)
          (block.citations ??= []).push(delta.citation);
        else this.skip(`a citations_delta for a ${block.kind} block`);
        return;
      case 'compaction_delta':
        if (block.kind === 'custom') (block.text ??= []).push(delta.content ?? '');
        else this.skip(`a compaction_delta for a ${block.kind} block`);
        return;
      default:
        this.skip(`unknown delta type ${delta.type}`);
    }
  }

  /**
   * A text, tool-input or thinking piece read without `JSON.parse` (see DeltaScanner): what
   * {@link delta} does for those three types.
   */
  piece(index: number, type: PieceType, value: string): void {
    const block = this.open.get(index) ?? this.unstarted(index, type);
    if (block === undefined) return;
    if (type === 'text_delta') this.onText(index, block, value);
    else if (type === 'input_json_delta') this.onInputJson(index, block, value);
    else this.onThinking(index, block, value);
  }

  private onThinking(index: number, block: OpenBlock, text: string): void {
    if (block.kind === 'thinking') this.builder.reasoning(index, text);
    else this.skip(`a thinking_delta for a ${block.kind} block`);
  }

  private onText(index: number, block: OpenBlock, text: string): void {
    if (block.kind === 'text') this.builder.text(index, text);
    else if (block.kind === 'custom') (block.text ??= []).push(text);
    else this.skip(`a text_delta for a ${block.kind} block`);
  }

  private onInputJson(index: number, block: OpenBlock, fragment: string): void {
    if (block.kind === 'tool') {
      if (fragment === '') return;
      block.streamed = true;
      this.builder.toolDelta(index, fragment);
    } else if (block.kind === 'custom') {
      (block.input ??= []).push(fragment);
    } else {
      this.skip(`an input_json_delta for a ${block.kind} block`);
    }
  }

  /** `content_block_stop`: ends the part (tool input parsed once by the builder) or emits the custom part. */
  stop(index: number): void {
    const block = this.open.get(index);
    if (block === undefined) return;
    this.open.delete(index);
    switch (block.kind) {
      case 'text':
        this.builder.end(
          index,
          block.citations === undefined ? {} : { metadata: { [citationsKey]: block.citations } },
        );
        return;
      case 'thinking':
        this.builder.end(index, block.signature === '' ? {} : { signature: block.signature });
        return;
      case 'redacted':
        this.builder.end(index, { redacted: true, data: block.data });
        return;
      case 'tool': {
        const fields = block.streamed ? {} : { input: block.input };
        this.builder.end(
          index,
          block.metadata === undefined ? fields : { ...fields, metadata: block.metadata },
        );
        return;
      }
      case 'custom':
        this.builder.custom({
          type: 'custom',
          provider: provenanceOf(this.context),
          kind: block.block.type,
          data: this.assemble(block),
        });
    }
  }

  /** The complete wire block of a custom part: streamed input parsed once, streamed text joined. */
  private assemble(block: Extract<OpenBlock, { kind: 'custom' }>): JsonObject {
    const data = block.block as JsonObject;
    if (block.input !== undefined) {
      const text = block.input.join('');
      try {
        const input: unknown = text.trim() === '' ? {} : parseJson(text);
        data.input = input as JsonValue;
      } catch {
        this.skip(`the unparseable streamed input of a ${data.type} block`);
      }
    }
    if (block.text !== undefined) {
      const field = data.type === 'compaction' ? 'content' : 'text';
      const before = data[field];
      data[field] = (typeof before === 'string' ? before : '') + block.text.join('');
    }
    return data;
  }

  /** Ends every open block (a message ended without `content_block_stop`). */
  stopAll(): void {
    for (const index of [...this.open.keys()]) this.stop(index);
  }

  /** Whether any block is open. */
  get hasOpen(): boolean {
    return this.open.size > 0;
  }

  /**
   * A delta for a block that was never started (or already stopped): text and thinking open one so
   * the content is kept; a tool input cannot (no call id, no name): the stream fails, classified,
   * with what arrived so far. Anything else is skipped with a WARN.
   */
  private unstarted(index: number, type: string): OpenBlock | undefined {
    if (type === 'input_json_delta')
      this.context.fail({
        code: 'api_error',
        message: `anthropic: a tool input arrived for content block ${index}, which was never started`,
      });
    if (type !== 'text_delta' && type !== 'thinking_delta') {
      this.skip(`a ${type} for block ${index}, which is not open`);
      return undefined;
    }
    this.skip(`a ${type} for block ${index}, which was not started: opened it`);
    this.start(index, { type: type === 'text_delta' ? 'text' : 'thinking' });
    return this.open.get(index);
  }

  private skip(what: string): void {
    this.context.warn('skipped unexpected stream content', { what });
  }
}
