/** Reads Chat Completions messages and stream deltas into StreamBuilder calls: one code path for both. */
import { splitAnnotations } from '../../core/annotations.ts';
import { isJsonObject, type JsonObject, type JsonValue, jsonTypeName } from '../../core/json.ts';
import type { MetadataMap } from '../../core/metadata.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import type { ProviderContext } from '../common/definition.ts';
import type {
  ReasoningDetail,
  WireChoice,
  WireCompletion,
  WireContentItem,
  WireDelta,
  WireToolCall,
  WireUsage,
} from './api.ts';
import { readAnnotations } from './annotations.ts';
import { convertErrorBody } from './errors.ts';
import { convertUsage, mapFinishReason } from './response.ts';
import type { ChunkKind } from './delta-scanner.ts';
import type { ChatQuirks } from './quirks.ts';
import { appendReasoningDetail } from './reasoning-details.ts';
import { ToolCallTracker } from './tool-calls.ts';
import { holdStrictOutput } from '../openai/strict-nulls.ts';
import { pushAll } from '../../core/arrays.ts';

const textKey = 'text';
const reasoningKey = 'reasoning';
const refusalKey = 'refusal';

/** The kind of part currently open; a new kind closes it, so part indices never go back. */
type OpenKind = 'text' | 'reasoning' | 'refusal' | 'tool';

/**
 * The first choice. A chunk or body listing one choice: that one, whatever its `index` (hosts that
 * send one choice may number it per chunk: Foundry Local, older TGI). Listing several: the one at
 * `index` 0 (or with no index), wherever it is in the list — another choice is never read as the
 * first (Switchyard never asks for `n > 1`). Undefined when there is none.
 */
export function firstChoice(choices: WireChoice[] | null | undefined): WireChoice | undefined {
  if (!Array.isArray(choices)) return undefined;
  if (choices.length === 1) return choices[0];
  for (const choice of choices)
    if (isJsonObject(choice) && (choice.index === 0 || choice.index === undefined || choice.index === null))
      return choice;
  return undefined;
}

/**
 * Turns message / delta objects into builder calls. A whole response is read as one big delta, so
 * both paths share every rule:
 * - reasoning (the first of `quirks.reasoningFields` present; OpenRouter `reasoning_details` give
 *   the part its text, signature and encrypted data, and are kept as received, stream pieces joined,
 *   in metadata `<provider>.reasoning_details` for verbatim replay), then content (a string, or Mistral's array of `text` /
 *   `thinking` items; any other item type becomes a provider-tagged `custom` part, kept for replay),
 *   then `refusal` (a text part with metadata `openai.refusal: true`), then tool calls (and the
 *   legacy `function_call`, read as call 0); other unknown fields are ignored;
 * - tool calls go through a {@link ToolCallTracker}; other content ends the open call;
 * - empty strings never open a part; usage (top-level, Moonshot's on the choice, or Groq's
 *   `x_groq.usage`) and citations are remembered and emitted once, at the end; the top-level
 *   `service_tier` is given to the builder as soon as it is read (before the start);
 * - `annotations` (OpenAI's `url_citation`s, in any delta; read first) are kept until the text
 *   part holding the span they cite ends and given with it (see `annotations.ts`).
 */
export class ResponseReader {
  private readonly tools: ToolCallTracker;
  private current: OpenKind | undefined;
  private identified = false;
  private refused = false;
  private rawFinish: string | undefined;
  private completed = false;
  private pendingUsage: WireUsage | undefined;
  /** A chunk carried usage once the finish reason had arrived (with it or after it). */
  private usageAfterFinish = false;
  private citations: JsonValue | undefined;
  /**
   * Annotations read (canonical, offsets in the whole message text) and not yet given to the text
   * part they cite: at a text part's end, those within it are its; at the end, the rest the response's.
   */
  private annotations: JsonObject[] | undefined;
  /** Characters of message text so far, and where the open text part starts in it. */
  private textLength = 0;
  private textStart = 0;
  private searchResults: JsonValue | undefined;
  private reasoningSignature: string | undefined;
  private reasoningData: string | undefined;
  private reasoningFormat: string | undefined;
  private reasoningDetails: JsonObject[] | undefined;
  private readonly refusalMetadata: MetadataMap = { 'openai.refusal': true };

  private readonly context: ProviderContext;
  private readonly builder: StreamBuilder;
  private readonly quirks: ChatQuirks;

  constructor(context: ProviderContext, builder: StreamBuilder, quirks: ChatQuirks) {
    this.context = context;
    this.builder = builder;
    this.quirks = quirks;
    this.tools = new ToolCallTracker(context, builder, () => this.switchTo('tool'));
    holdStrictOutput(context, builder);
  }

  /** Whether a finish reason arrived. */
  get hasFinish(): boolean {
    return this.rawFinish !== undefined;
  }

  /** Whether the finish reason and then the usage arrived (in one chunk or two): all but `[DONE]`. */
  get hasFinalUsage(): boolean {
    return this.usageAfterFinish;
  }

  /** Reads one completion or chunk: identity, the first choice's message/delta and finish, usage. */
  read(completion: WireCompletion, choice: WireChoice | null | undefined): void {
    // The served tier (every chunk repeats it), before the start so that `message-start` says it.
    if (completion.service_tier !== undefined) this.builder.serviceTier(completion.service_tier);
    if (!this.identified) this.identify(completion);
    const delta = choice?.message ?? choice?.delta;
    if (delta !== undefined && delta !== null) this.readDelta(delta);
    const finishReason = choice?.finish_reason;
    if (typeof finishReason === 'string' && finishReason !== '') this.readFinish(finishReason);
    const usage = completion.usage ?? choice?.usage ?? completion.x_groq?.usage;
    if (typeof usage === 'object' && usage !== null) {
      this.pendingUsage = usage;
      if (this.rawFinish !== undefined) this.usageAfterFinish = true;
    }
    if (completion.citations !== undefined && completion.citations !== null)
      this.citations = completion.citations;
    if (completion.search_results !== undefined && completion.search_results !== null)
      this.searchResults = completion.search_results;
  }

  /**
   * A chunk read without `JSON.parse` (see DeltaScanner): what {@link read} does for a chunk whose
   * only content is this text or this tool call's argument fragment. False before the response is
   * identified (the first chunks go through `read`).
   */
  readPiece(kind: ChunkKind, index: number, piece: string): boolean {
    if (!this.identified) return false;
    if (kind === 'content') {
      if (piece !== '') this.appendText(piece);
    } else {
      this.tools.read({ index, function: { arguments: piece } }, 0);
    }
    return true;
  }

  /** Ends every open part and hands the remembered usage, citations and finish reason to the builder. */
  complete(): void {
    if (this.completed) return;
    this.completed = true;
    this.closeAll();
    this.flushUsage();
    const provider = this.context.provider;
    if (this.citations !== undefined) this.builder.setMetadata(`${provider}.citations`, this.citations);
    // Annotations no text part held (it had ended when they came, or they span parts): the
    // response's, offsets the whole message's; the client codecs place them (core/annotations.ts).
    if (this.annotations !== undefined && this.annotations.length > 0)
      this.builder.setMetadata(`${provider}.annotations`, this.annotations);
    this.annotations = undefined;
    if (this.searchResults !== undefined)
      this.builder.setMetadata(`${provider}.search_results`, this.searchResults);
    if (this.rawFinish === undefined)
      this.builder.setFinish(this.builder.hasToolCalls ? 'tool-call' : 'completed');
  }

  /** Emits the usage seen so far (kept even when the response then fails). */
  flushUsage(): void {
    if (this.pendingUsage === undefined) return;
    this.builder.usage(
      convertUsage(this.pendingUsage, {
        reasoningInCompletion: this.quirks.reasoningTokensInCompletion,
      }),
    );
    this.pendingUsage = undefined;
  }

  /**
   * For a failing response: ends the tool calls (buffered interleaved ones included) with whatever
   * input parses, and emits the usage seen.
   */
  closePartial(): void {
    this.tools.closeAll(true);
    this.flushUsage();
  }

  /**
   * Throws the classified error for an in-band error payload (an object, or any other JSON value,
   * whose text becomes the message), after keeping the tool calls and usage seen.
   */
  fail(error: unknown): never {
    this.closePartial();
    const wire = isJsonObject(error) ? error : typeof error === 'string' ? error : JSON.stringify(error);
    const body = convertErrorBody(wire) ?? {};
    return this.context.fail(body, body.status);
  }

  private identify(completion: WireCompletion): void {
    const responseId = typeof completion.id === 'string' && completion.id !== '' ? completion.id : undefined;
    const model =
      typeof completion.model === 'string' && completion.model !== '' ? completion.model : undefined;
    // Azure's leading prompt-filter chunk has neither: wait for a chunk that names the response.
    if (responseId === undefined && model === undefined) return;
    this.identified = true;
    // Prefixed here: wire names may hold a colon themselves (Ollama `qwen3:8b`).
    const start: { responseId?: string; model?: string } = {};
    if (responseId !== undefined) start.responseId = responseId;
    if (model !== undefined) start.model = `${this.context.provider}:${model}`;
    this.builder.start(start);
  }

  private readDelta(delta: WireDelta): void {
    // First: a message's annotations must be waiting when its tool calls end the text they cite.
    const annotations = delta.annotations;
    if (Array.isArray(annotations) && annotations.length > 0)
      pushAll((this.annotations ??= []), readAnnotations(annotations));
    this.readReasoning(delta);
    const content = delta.content;
    if (typeof content === 'string') {
      if (content !== '') this.appendText(content);
    } else if (Array.isArray(content)) {
      this.readContentItems(content);
    } else if (content !== undefined && content !== null) {
      // Not a shape to skip: the reply would read as whole without that text.
      throw new TypeError(`a choice's content is ${jsonTypeName(content)}, not text`);
    }
    const refusal = delta.refusal;
    if (typeof refusal === 'string' && refusal !== '') this.appendRefusal(refusal);
    const toolCalls = delta.tool_calls;
    if (Array.isArray(toolCalls)) {
      for (let position = 0; position < toolCalls.length; position++) {
        this.tools.read(toolCalls[position] as WireToolCall, position);
      }
    }
    const legacyCall = delta.function_call;
    if (typeof legacyCall === 'object' && legacyCall !== null) this.tools.read({ function: legacyCall }, 0);
  }

  private readReasoning(delta: WireDelta): void {
    const fields = this.quirks.reasoningFields;
    for (let position = 0; position < fields.length; position++) {
      const field = fields[position];
      if (field === 'reasoning_details') {
        const details = delta.reasoning_details;
        if (Array.isArray(details) && details.length > 0) {
          this.readReasoningDetails(details);
          return;
        }
        continue;
      }
      const value = field === undefined ? undefined : delta[field];
      if (typeof value === 'string' && value !== '') {
        this.appendReasoning(value);
        return;
      }
    }
  }

  private readReasoningDetails(details: ReasoningDetail[]): void {
    for (const detail of details) {
      if (typeof detail !== 'object' || detail === null) continue;
      this.reasoningDetails ??= [];
      appendReasoningDetail(this.reasoningDetails, detail, this.context.stream);
      if (typeof detail.signature === 'string' && detail.signature !== '')
        this.reasoningSignature = detail.signature;
      if (typeof detail.format === 'string') this.reasoningFormat = detail.format;
      if (detail.type === 'reasoning.encrypted' && typeof detail.data === 'string')
        this.reasoningData = (this.reasoningData ?? '') + detail.data;
      const text = detail.type === 'reasoning.summary' ? detail.summary : detail.text;
      if (typeof text === 'string' && text !== '') {
        this.appendReasoning(text);
      } else if (this.reasoningSignature !== undefined || this.reasoningData !== undefined) {
        this.switchTo('reasoning');
        this.builder.openText(reasoningKey, 'reasoning');
      }
    }
  }

  private readContentItems(items: unknown[]): void {
    for (const item of items) {
      if (typeof item === 'string') {
        if (item !== '') this.appendText(item);
        continue;
      }
      if (typeof item !== 'object' || item === null) continue;
      const entry = item as WireContentItem;
      if (entry.type === 'text') {
        if (typeof entry.text === 'string' && entry.text !== '') this.appendText(entry.text);
      } else if (entry.type === 'thinking') {
        this.readThinking(entry.thinking);
      } else {
        this.switchTo(undefined);
        const kind = typeof entry.type === 'string' ? entry.type : 'unknown';
        this.builder.custom({
          type: 'custom',
          provider: this.context.provider,
          kind,
          data: item as JsonValue,
        });
      }
    }
  }

  private readThinking(thinking: WireContentItem['thinking']): void {
    if (typeof thinking === 'string') {
      if (thinking !== '') this.appendReasoning(thinking);
      return;
    }
    if (!Array.isArray(thinking)) return;
    for (const inner of thinking) {
      if (typeof inner?.text === 'string' && inner.text !== '') this.appendReasoning(inner.text);
    }
  }

  private appendText(text: string): void {
    this.switchTo('text');
    this.textLength += text.length;
    this.builder.text(textKey, text);
  }

  private appendReasoning(text: string): void {
    this.switchTo('reasoning');
    this.builder.reasoning(reasoningKey, text);
  }

  private appendRefusal(text: string): void {
    this.refused = true;
    this.switchTo('refusal');
    this.builder.text(refusalKey, text, this.refusalMetadata);
  }

  private readFinish(raw: string): void {
    this.closeAll();
    this.rawFinish = raw;
    // A refusal that ends with a plain stop is a content filter, whatever else came with it.
    const refusal = this.refused && mapFinishReason(raw) === 'completed';
    this.builder.setFinish(refusal ? 'content-filter' : mapFinishReason(raw, this.builder.hasToolCalls), raw);
  }

  private switchTo(kind: OpenKind | undefined): void {
    if (this.current === kind) return;
    switch (this.current) {
      case 'text':
        this.endText();
        break;
      case 'reasoning':
        this.endReasoning();
        break;
      case 'refusal':
        this.builder.end(refusalKey, { metadata: this.refusalMetadata });
        break;
      case 'tool':
        this.tools.endActive();
        break;
    }
    this.current = kind;
    if (kind === 'text') this.textStart = this.textLength;
  }

  /**
   * Ends the text part with the annotations read so far (whichever delta brought them, before or
   * after the text) that cite a span within it, their offsets made the part's: metadata
   * `<provider>.annotations`. The others wait for a later part, or the end.
   */
  private endText(): void {
    const pending = this.annotations;
    const { inside, outside } =
      pending === undefined
        ? { inside: [], outside: [] }
        : splitAnnotations(pending, this.textStart, this.textLength);
    this.annotations = outside.length === 0 ? undefined : outside;
    if (inside.length === 0) this.builder.end(textKey);
    else this.builder.end(textKey, { metadata: { [`${this.context.provider}.annotations`]: inside } });
  }

  private endReasoning(): void {
    const fields: { signature?: string; data?: string; metadata?: MetadataMap } = {};
    if (this.reasoningSignature !== undefined) fields.signature = this.reasoningSignature;
    if (this.reasoningData !== undefined) fields.data = this.reasoningData;
    const provider = this.context.provider;
    const metadata: MetadataMap = {};
    if (this.reasoningFormat !== undefined) metadata[`${provider}.reasoning_format`] = this.reasoningFormat;
    if (this.reasoningDetails !== undefined)
      metadata[`${provider}.reasoning_details`] = this.reasoningDetails;
    if (Object.keys(metadata).length > 0) fields.metadata = metadata;
    this.builder.end(reasoningKey, fields);
    this.reasoningSignature = undefined;
    this.reasoningData = undefined;
    this.reasoningFormat = undefined;
    this.reasoningDetails = undefined;
  }

  /** Closes the open part and every tool call. */
  private closeAll(): void {
    this.switchTo(undefined);
    this.tools.closeAll();
    this.current = undefined;
  }
}
