/**
 * Reads Converse content into the `StreamBuilder`: whole content blocks (a `converse` body) and the
 * ConverseStream block events, one shared reader so both paths make the same parts.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import { WarnOnce } from '../../core/lru.ts';
import { bedrockCitationsKey } from '../../core/metadata.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import type { ProviderContext } from '../common/definition.ts';
import { canonicalToolId, provenanceOf } from '../common/projection.ts';
import { type WireDelta } from './api.ts';
import { dropsToolCalls, warnDroppedCall } from './no-tool-calls.ts';

/** What an open streamed block has collected besides its deltas. */
interface OpenBlock {
  /** `dropped`: a tool call the request forbade (`no-tool-calls.ts`), its deltas ignored. */
  kind: 'text' | 'reasoning' | 'tool' | 'redacted' | 'dropped';
  signature?: string;
  data?: string;
  /** Citation deltas of a text block, kept as `bedrock.citations` metadata. */
  citations?: JsonValue[];
}

/** The most kinds of skipped content one response names in a WARN; one more WARN says the rest are not. */
export const maxSkipWarnings = 16;

/**
 * The WARNs of one response's skipped content, bounded as Gemini's reader bounds its own: each kind
 * (message and `what`) once, and at most {@link maxSkipWarnings} kinds, so a server repeating a bad
 * event thousands of times logs one line, not thousands.
 */
export class SkipWarnings {
  private readonly context: ProviderContext;
  private readonly once = new WarnOnce(maxSkipWarnings);

  constructor(context: ProviderContext) {
    this.context = context;
  }

  skip(message: string, what: string): void {
    const verdict = this.once.check(`${message}\n${what}`);
    if (verdict === 'warn')
      this.context.warn(message, { what, repeats: 'not logged again for this response' });
    else if (verdict === 'capped')
      this.context.warn(message, {
        what: `more than ${maxSkipWarnings} kinds of it: the rest are not logged for this response`,
      });
  }
}

/** Metadata key of a text part's Converse citations. */
export const citationsKey = bedrockCitationsKey;

/**
 * One reader per response. Keys are Converse's `contentBlockIndex`. A block of a kind the reader
 * does not know (`guardContent`, future types) is kept whole as a custom part (`{provider, kind,
 * data}`), sent back verbatim to the same provider. A `citationsContent` block is answer text with
 * its citations: one text part carrying them as `bedrock.citations`, as the streamed form gives.
 */
export class ResponseReader {
  private readonly context: ProviderContext;
  private readonly builder: StreamBuilder;
  private readonly open = new Map<number, OpenBlock>();
  private readonly warnings: SkipWarnings;
  private readonly dropsCalls: boolean;
  private dropped = false;

  /** `warnings`: the response's bounded WARNs, shared with its stream parser (default: the reader's own). */
  constructor(context: ProviderContext, builder: StreamBuilder, warnings = new SkipWarnings(context)) {
    this.context = context;
    this.builder = builder;
    this.warnings = warnings;
    this.dropsCalls = dropsToolCalls(context);
  }

  /** Whether a tool call the request forbade was dropped from the reply (`no-tool-calls.ts`). */
  get droppedCalls(): boolean {
    return this.dropped;
  }

  /** A tool call the request forbade: left out, the reply's first one named in a WARN. */
  private drop(name: unknown): void {
    if (!this.dropped) warnDroppedCall(this.context, name);
    this.dropped = true;
  }

  /** A whole content block of a `converse` response (or of a `messageStart` that carries content). */
  whole(index: number, block: unknown): void {
    if (!isJsonObject(block)) {
      this.warnings.skip('skipped unexpected response content', 'a content block that is not an object');
      return;
    }
    if (typeof block.text === 'string') {
      this.builder.openText(index, 'text');
      this.builder.text(index, block.text);
      this.builder.end(index);
      return;
    }
    if (isJsonObject(block.toolUse)) {
      const toolUse = block.toolUse;
      if (this.dropsCalls) return this.drop(toolUse.name);
      const input = isJsonObject(toolUse.input) ? (toolUse.input as JsonObject) : {};
      this.startTool(index, toolUse.toolUseId, toolUse.name);
      this.builder.end(index, { input });
      return;
    }
    if (isJsonObject(block.reasoningContent)) {
      this.wholeReasoning(index, block.reasoningContent);
      return;
    }
    if (isJsonObject(block.citationsContent)) {
      const { content, citations } = block.citationsContent;
      const text = (Array.isArray(content) ? content : [])
        .map((entry) => (isJsonObject(entry) && typeof entry.text === 'string' ? entry.text : ''))
        .join('');
      this.builder.openText(index, 'text');
      if (text !== '') this.builder.text(index, text);
      this.builder.end(
        index,
        Array.isArray(citations) ? { metadata: { [citationsKey]: citations as JsonValue[] } } : {},
      );
      return;
    }
    this.builder.custom({
      type: 'custom',
      provider: provenanceOf(this.context),
      kind: Object.keys(block)[0] ?? 'block',
      data: block as JsonObject,
    });
  }

  private wholeReasoning(index: number, content: Record<string, unknown>): void {
    if (typeof content.redactedContent === 'string') {
      this.builder.openRedacted(index);
      this.builder.end(index, { redacted: true, data: content.redactedContent });
      return;
    }
    this.builder.openText(index, 'reasoning');
    const text = isJsonObject(content.reasoningText) ? content.reasoningText : {};
    if (typeof text.text === 'string' && text.text !== '') this.builder.reasoning(index, text.text);
    this.builder.end(index, typeof text.signature === 'string' ? { signature: text.signature } : {});
  }

  private startTool(index: number, id: unknown, name: unknown): void {
    const providerId =
      typeof id === 'string' && id !== '' ? id : `tooluse_${this.context.requestId}_${index}`;
    this.builder.toolStart(
      index,
      canonicalToolId(this.context, providerId),
      typeof name === 'string' ? name : '',
    );
  }

  /**
   * `contentBlockStart`: a tool call's id and name (text and reasoning blocks start with their first
   * delta). A start on an index still open (a server reusing it) ends that block whole first, as the
   * Anthropic reader does: both are kept, the call never vanishes into the text part.
   */
  start(index: number, start: unknown): void {
    const toolUse = isJsonObject(start) ? start.toolUse : undefined;
    if (!isJsonObject(toolUse)) return;
    if (this.open.has(index)) this.stop(index);
    if (this.dropsCalls) {
      this.open.set(index, { kind: 'dropped' });
      this.drop(toolUse.name);
      return;
    }
    this.open.set(index, { kind: 'tool' });
    this.startTool(index, toolUse.toolUseId, toolUse.name);
  }

  /** A delta the scanner read: text, a tool-input fragment or reasoning text (as `delta` would take it). */
  piece(index: number, kind: 'text' | 'toolUse' | 'reasoning', text: string): void {
    if (kind === 'text') {
      this.ensure(index, 'text');
      this.builder.text(index, text);
    } else if (kind === 'toolUse') {
      if (!this.open.has(index)) this.start(index, { toolUse: {} });
      this.toolInput(index, text);
    } else {
      this.ensure(index, 'reasoning');
      if (text !== '') this.builder.reasoning(index, text);
    }
  }

  /** `contentBlockDelta`. */
  delta(index: number, delta: WireDelta | undefined): void {
    if (delta === undefined) return;
    if (typeof delta.text === 'string') {
      this.ensure(index, 'text');
      this.builder.text(index, delta.text);
      return;
    }
    if (isJsonObject(delta.toolUse)) {
      if (!this.open.has(index)) this.start(index, { toolUse: { toolUseId: undefined, name: undefined } });
      if (typeof delta.toolUse.input === 'string') this.toolInput(index, delta.toolUse.input);
      return;
    }
    if (isJsonObject(delta.reasoningContent)) {
      this.reasoningDelta(index, delta.reasoningContent);
      return;
    }
    if (isJsonObject(delta.citation)) {
      const block = this.ensure(index, 'text');
      (block.citations ??= []).push(delta.citation as JsonValue);
      return;
    }
    this.warnings.skip(
      'skipped unexpected stream content',
      `a delta of kind ${Object.keys(delta)[0] ?? '(empty)'}`,
    );
  }

  /** A tool-input fragment: to the open call, or named in a WARN when block `index` is no call. */
  private toolInput(index: number, fragment: string): void {
    const kind = this.open.get(index)?.kind;
    if (kind === 'dropped') return;
    if (kind !== 'tool') {
      this.warnings.skip(
        'skipped unexpected stream content',
        `a tool input for a block that is a ${kind ?? 'closed'} block`,
      );
      return;
    }
    if (fragment !== '') this.builder.toolDelta(index, fragment);
  }

  private reasoningDelta(index: number, content: Record<string, unknown>): void {
    if (typeof content.redactedContent === 'string') {
      const block = this.ensure(index, 'redacted');
      block.data = (block.data ?? '') + content.redactedContent;
      return;
    }
    const block = this.ensure(index, 'reasoning');
    if (typeof content.text === 'string' && content.text !== '') this.builder.reasoning(index, content.text);
    if (typeof content.signature === 'string') block.signature = (block.signature ?? '') + content.signature;
  }

  private ensure(index: number, kind: OpenBlock['kind']): OpenBlock {
    const existing = this.open.get(index);
    if (existing !== undefined) return existing;
    const block: OpenBlock = { kind };
    this.open.set(index, block);
    if (kind === 'redacted') this.builder.openRedacted(index);
    else this.builder.openText(index, kind === 'text' ? 'text' : 'reasoning');
    return block;
  }

  /** `contentBlockStop`: ends the block with its signature, redacted data or (empty) tool input. */
  stop(index: number): void {
    const block = this.open.get(index);
    this.open.delete(index);
    if (block === undefined) return;
    switch (block.kind) {
      case 'dropped':
        return;
      case 'tool': {
        // A call without arguments streams `""`: its input is `{}`, not a malformed one.
        const text = this.builder.toolInputText(index);
        this.builder.end(index, text === undefined || text.trim() === '' ? { input: {} } : {});
        return;
      }
      case 'redacted':
        this.builder.end(index, { redacted: true, data: block.data ?? '' });
        return;
      case 'reasoning':
        this.builder.end(index, block.signature === undefined ? {} : { signature: block.signature });
        return;
      case 'text':
        this.builder.end(
          index,
          block.citations === undefined ? {} : { metadata: { [citationsKey]: block.citations } },
        );
    }
  }

  /** Ends every block still open (a `messageStop` that came first). */
  stopAll(): void {
    for (const index of [...this.open.keys()]) this.stop(index);
  }

  get hasOpen(): boolean {
    return this.open.size > 0;
  }
}
