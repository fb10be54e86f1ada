/** Emits contract-abiding stream events from a provider parser's calls, and builds the response. */
import { ResponseAccumulator } from './accumulator.ts';
import type { StreamEvent } from './events.ts';
import type { FinishReason } from './finish-reason.ts';
import type { RequestId, ToolCallId } from './ids.ts';
import { hasProtoKey, type JsonObject, type JsonValue, removeProtoKeys } from './json.ts';
import { type MetadataMap, stopSequenceKey } from './metadata.ts';
import { JsonFragments } from './partial-json.ts';
import { losesNumberDigits } from './json-text.ts';
import { RepeatedPrefix } from './repeated-prefix.ts';
import { LimitExceededError } from './limit-exceeded.ts';
import { keptArgumentsText } from './tool-arguments.ts';
import type { CanonicalResponse } from './request.ts';
import type { CustomPart, Part } from './transcript.ts';
import { emptyUsage, serviceTierName, tokenCount, type Usage } from './usage.ts';

/** A key the provider parser uses for a block (Anthropic block index, OpenAI tool index, …). */
export type BlockKey = string | number;

/** What a provider parser may pass when ending a part. */
export interface EndFields {
  /** The provider's authoritative tool input (otherwise the fragments are parsed). */
  input?: JsonObject;
  signature?: string;
  data?: string;
  redacted?: boolean;
  metadata?: MetadataMap;
  /** The runtime closes the part because the response was cut: marks it `incomplete`. */
  partial?: boolean;
  /** The provider ended its message with this part still open: marks it `incomplete`. */
  incomplete?: boolean;
}

type OpenPart =
  | { type: 'text'; index: number }
  | { type: 'reasoning'; index: number }
  | {
      type: 'tool-call';
      index: number;
      id: ToolCallId;
      /** The JSON text received, kept unless the provider parser reads the input itself. */
      fragments: JsonFragments | undefined;
      currentInput: (() => JsonObject) | undefined;
      /** Set by {@link StreamBuilder.holdToolArguments} for this call's name: its deltas are held. */
      filter: ((text: string) => string) | undefined;
    };

/**
 * Rewrites a text part's deltas on their way out (`StreamBuilder.transformText`): one per text
 * part, fed each delta in order; `end` when the part ends gives what it still holds.
 */
export interface TextTransform {
  /** The text that goes out for `delta` ('' while it is held). */
  feed(delta: string): string;
  /** The part ended: the text still held that goes out. */
  end(): string;
}

/** Fixed facts about the call the builder reports in `message-start` and `finish`. */
export interface StreamBuilderContext {
  requestId: RequestId;
  provider: string;
  /** The tag of the response's parts when it is not `provider` (`vertex/anthropic`): sent in `message-start`. */
  provenance?: string;
  /** Canonical model id requested; replaced by what the provider reports. */
  model: string;
  startedAt: number;
  /**
   * The reply is read from one whole body (`complete()`): a tool call's arguments text that is not
   * its input's JSON (`{"n": 1.0}`) is kept in metadata `switchyard.arguments_text`, so a client
   * whose protocol carries the text gets it exactly. A stream's deltas carry the text already, and
   * its calls pay nothing for this.
   */
  wholeReply?: true;
}

/**
 * Provider parsers call this builder; it assigns part indices, enforces start → delta* → end,
 * keeps parts sequential (starting a new part ends every open one, so indices never go back;
 * a later delta or end for an already-ended key is ignored — parsers for protocols that
 * interleave parts must buffer themselves),
 * emits events and accumulates the response, so every adapter meets the stream contract by
 * construction. On error or abort, `close()` ends open parts (tool inputs: whatever parses, else
 * `{}`) and emits the one `finish`.
 */
/**
 * Most characters of text, reasoning and tool arguments one reply may stream (64 Mi, the SSE event
 * limit's size): all of it is held until the reply ends, so a hostile upstream's endless deltas —
 * each event small, under every per-event limit — would otherwise grow the process until V8 aborts.
 */
export const maxStreamedChars = 64 * 1024 * 1024;

export class StreamBuilder {
  private readonly open = new Map<BlockKey, OpenPart>();
  /** Characters of deltas so far (text, reasoning, tool arguments), held to {@link maxStreamedChars}. */
  private heldChars = 0;
  private readonly accumulator = new ResponseAccumulator();
  private nextIndex = 0;
  private started = false;
  private finished = false;
  private usageValue: Usage = emptyUsage();
  private finishReason: FinishReason = 'completed';
  private rawFinishReason: string | undefined;
  private responseId: string | undefined;
  private model: string;
  private metadata: MetadataMap | undefined;
  private sawToolCall = false;
  private sawUsage = false;
  /** Set by {@link holdText}: each text part's deltas are held and emitted through it at the part's end. */
  private textFilter: ((text: string) => string) | undefined;
  private readonly heldText = new Map<number, string>();
  /** Set by {@link transformText}: makes each text part's transform. */
  private createTransform: (() => TextTransform) | undefined;
  /** The open text parts' transforms, by part index. */
  private readonly transforms = new Map<number, TextTransform>();
  /** Set by {@link holdToolArguments}: the filter, if any, a call's arguments go through at its end. */
  private toolFilter: ((name: string) => ((text: string) => string) | undefined) | undefined;
  /** Set by {@link stripRepeatedPrefix}: the first text part's start is matched against it. */
  private repeated: RepeatedPrefix | undefined;
  /** Set by {@link stopAt}: the sequences the reply's text ends before. */
  private stops: readonly StopSequence[] | undefined;
  /** The open text part's last characters, held while they may begin a stop sequence. */
  private stopTail = '';
  /** A stop sequence was met: the reply ends there, nothing more is taken but usage and metadata. */
  private stoppedAt: string | undefined;

  private readonly context: StreamBuilderContext;
  private readonly sink: (event: StreamEvent) => void;

  constructor(context: StreamBuilderContext, sink: (event: StreamEvent) => void) {
    this.context = context;
    this.sink = sink;
    this.model = context.model;
  }

  private hold(delta: string): void {
    this.heldChars += delta.length;
    if (this.heldChars > maxStreamedChars)
      throw new LimitExceededError(
        'a reply (text, reasoning and tool arguments)',
        maxStreamedChars,
        'characters',
      );
  }

  private emit(event: StreamEvent): void {
    this.accumulator.add(event);
    this.sink(event);
  }

  /** Emits `message-start` once; later calls only update the response id and model. */
  start(fields: { responseId?: string; model?: string } = {}): void {
    if (fields.responseId !== undefined && this.responseId === undefined) this.responseId = fields.responseId;
    if (fields.model !== undefined) this.setModel(fields.model);
    if (this.started) return;
    this.started = true;
    const event: StreamEvent = {
      type: 'message-start',
      requestId: this.context.requestId,
      model: this.model,
      provider: this.context.provider,
    };
    const provenance = this.context.provenance;
    if (provenance !== undefined && provenance !== this.context.provider) event.provenance = provenance;
    if (this.responseId !== undefined) event.responseId = this.responseId;
    if (this.usageValue.serviceTier !== undefined) event.serviceTier = this.usageValue.serviceTier;
    this.emit(event);
  }

  /** Records the provider's id of the response read outside the body (a header), before the message starts. */
  setResponseId(responseId: string): void {
    if (this.responseId === undefined && !this.started) this.responseId = responseId;
  }

  /** Records the model the provider reports (wire name, made canonical). */
  setModel(wireName: string): void {
    const prefix = `${this.context.provider}:`;
    this.model = wireName.startsWith(prefix) ? wireName : prefix + wireName;
  }

  private openPart(
    key: BlockKey,
    type: 'text' | 'reasoning',
    startMetadata?: MetadataMap,
    redacted = false,
  ): number {
    const existing = this.open.get(key);
    if (existing !== undefined) {
      if (existing.type === type) return existing.index;
      this.end(key);
    }
    this.start();
    this.endAll();
    const index = this.nextIndex++;
    this.open.set(key, { type, index });
    this.emit(
      type === 'reasoning'
        ? redacted
          ? { type: 'reasoning-start', index, redacted: true }
          : { type: 'reasoning-start', index }
        : startMetadata === undefined
          ? { type: 'text-start', index }
          : { type: 'text-start', index, metadata: startMetadata },
    );
    return index;
  }

  /**
   * Appends text to the text part `key`, opening it if needed; `startMetadata` rides on the part's
   * `text-start` when this opens it (see `TextStartEvent.metadata`).
   */
  text(key: BlockKey, delta: string, startMetadata?: MetadataMap): void {
    if (this.stoppedAt !== undefined) return;
    const index = this.openPart(key, 'text', startMetadata);
    // A non-string delta is provider garbage: dropped, never emitted as a non-string event.
    if (typeof delta === 'string' && delta !== '') {
      this.hold(delta);
      this.forwardText(key, index, this.repeated === undefined ? delta : this.repeated.feed(delta));
    }
  }

  /** Text on its way out: cut at a stop sequence ({@link stopAt}), else passed. */
  private forwardText(key: BlockKey, index: number, delta: string): void {
    if (this.repeated?.done === true) this.repeated = undefined;
    if (delta === '') return;
    if (this.stops === undefined) this.passText(index, delta);
    else this.textBeforeStop(key, index, delta);
  }

  /**
   * From now on the reply's first text part loses `prefix` when it begins with it: its first
   * characters (at most `prefix.length`) are held until they are known to be the prefix or not; text
   * that does not begin with it goes out whole. For a prefill the provider could not continue
   * (`providers/common/prefill.ts`).
   */
  stripRepeatedPrefix(prefix: string): void {
    if (prefix !== '') this.repeated = new RepeatedPrefix(prefix);
  }

  /** A text delta out: held for the part's filter ({@link holdText}), else emitted. */
  private passText(index: number, delta: string): void {
    if (this.textFilter !== undefined) this.heldText.set(index, (this.heldText.get(index) ?? '') + delta);
    else this.emitText(index, delta);
  }

  /** A text delta emitted, through the part's transform ({@link transformText}) when there is one. */
  private emitText(index: number, delta: string): void {
    if (this.createTransform !== undefined) {
      let transform = this.transforms.get(index);
      if (transform === undefined) this.transforms.set(index, (transform = this.createTransform()));
      delta = transform.feed(delta);
    }
    if (delta !== '') this.emit({ type: 'text-delta', index, delta });
  }

  /**
   * From now on each text part's text goes out through a transform of its own (`create()`), last
   * of all: after the stop sequences ({@link stopAt}) and the whole-text filter ({@link holdText}).
   * For a reply the provider was asked for in another form than the caller's (an answer wrapped as
   * `{ value }`, an enum value as a JSON string: `providers/common/output-text.ts`).
   */
  transformText(create: () => TextTransform): void {
    this.createTransform = create;
  }

  /**
   * From now on the reply's text ends before the first of `sequences` it completes (each text part
   * on its own; of two completed at once, the longer): the text before it goes out, the part ends, the finish is `stop-sequence` (metadata
   * `switchyard.stop_sequence` names the sequence; `tool-call` when a tool call came before the
   * stop, which the caller must still answer) and nothing else of the reply is taken but its
   * usage and metadata — see {@link stopped}. Text that may begin a sequence is held until it is
   * known not to. For stop sequences the provider could not be sent (`providers/common/stop-sequences.ts`).
   */
  stopAt(sequences: readonly string[]): void {
    const stops = sequences.filter((sequence) => typeof sequence === 'string' && sequence !== '');
    if (stops.length > 0)
      this.stops = stops.map((text) => ({ text, failure: prefixFunction(text), state: 0 }));
  }

  /** Whether the reply met a stop sequence ({@link stopAt}): nothing more of its content is taken. */
  get stopped(): boolean {
    return this.stoppedAt !== undefined;
  }

  private textBeforeStop(key: BlockKey, index: number, delta: string): void {
    const stops = this.stops!;
    // Each sequence's Knuth–Morris–Pratt state is carried from delta to delta (reset when a text
    // part ends): every character costs one step per sequence, however the deltas split the text —
    // re-scanning the held tail per delta cost a client's 64 sequences of 256 characters 0.7 ms
    // per one-character delta. The sequence completed first ends the text (a model stops there,
    // token by token); of two completed at once, the longer (it starts sooner).
    for (let position = 0; position < delta.length; position++) {
      const code = delta.charCodeAt(position);
      let matched: StopSequence | undefined;
      for (const stop of stops) {
        let state = stop.state;
        while (state > 0 && stop.text.charCodeAt(state) !== code) state = stop.failure[state - 1]!;
        if (stop.text.charCodeAt(state) === code) state++;
        stop.state = state;
        if (state === stop.text.length && (matched === undefined || state > matched.text.length))
          matched = stop;
      }
      if (matched !== undefined) {
        const text = this.stopTail + delta.slice(0, position + 1);
        let at = text.length - matched.text.length;
        // A sequence beginning with the second half of a surrogate pair does not split the character.
        if (at > 0 && isLowSurrogate(text.charCodeAt(at)) && isHighSurrogate(text.charCodeAt(at - 1))) at--;
        this.stopTail = '';
        if (at > 0) this.passText(index, text.slice(0, at));
        this.end(key);
        this.stoppedAt = matched.text;
        // A tool call before the stopped text stays the reply's finish: it came whole before the
        // stop (a provider stopping there itself, as Anthropic's `stop_sequence` does, generates
        // nothing after it, so never drops what came before), and the caller must still answer it
        // — `stop-sequence` would read as a reply with nothing left to do. The metadata still
        // names the sequence: the text was cut at it.
        this.finishReason = this.sawToolCall ? 'tool-call' : 'stop-sequence';
        this.setMetadata(stopSequenceKey, matched.text);
        return;
      }
    }
    // The longest end of the text that begins a sequence (the largest state) is held back.
    let held = 0;
    for (const stop of stops) if (stop.state > held) held = stop.state;
    const text = this.stopTail + delta;
    // Nor is a character's first half sent before its second, which may begin a sequence.
    if (held < text.length && isHighSurrogate(text.charCodeAt(text.length - held - 1))) held++;
    this.stopTail = text.slice(text.length - held);
    if (held < text.length) this.passText(index, text.slice(0, text.length - held));
  }

  /**
   * From now on each text part's deltas are held and, when the part ends (also when the runtime
   * closes it early), emitted as ONE delta: `filter` of the part's whole text. For a reply that has
   * to be rewritten whole before it can go out (the OpenAI adapters' strict output, see
   * `providers/openai/strict-nulls.ts`).
   */
  holdText(filter: (text: string) => string): void {
    this.textFilter = filter;
  }

  /**
   * From now on a tool call whose name `filterFor` gives a filter has its argument deltas held and,
   * when it ends (also when the runtime closes it early), emitted as ONE delta: the filter of the
   * whole arguments text, which is also the text its input is parsed from. Other calls stream
   * unchanged. For arguments that have to be rewritten whole (the OpenAI adapters' strict tools,
   * see `providers/openai/strict-nulls.ts`). Calls whose parser reads the input itself
   * (`currentInput`) are not held.
   */
  holdToolArguments(filterFor: (name: string) => ((text: string) => string) | undefined): void {
    this.toolFilter = filterFor;
  }

  /** Appends reasoning to the reasoning part `key`, opening it if needed. */
  reasoning(key: BlockKey, delta: string): void {
    if (this.stoppedAt !== undefined) return;
    const index = this.openPart(key, 'reasoning');
    if (typeof delta === 'string' && delta !== '') {
      this.hold(delta);
      this.emit({ type: 'reasoning-delta', index, delta });
    }
  }

  /**
   * Begins summary part `part` (1, 2, …) of the reasoning part `key`: a `reasoning-delta` of
   * `separator` (the text joining the parts) that says so (see `ReasoningDeltaEvent.part`).
   */
  reasoningPart(key: BlockKey, part: number, separator = '\n\n'): void {
    if (this.stoppedAt !== undefined) return;
    const index = this.openPart(key, 'reasoning');
    this.hold(separator);
    this.emit({ type: 'reasoning-delta', index, delta: separator, part });
  }

  /** Opens a text or reasoning part without content yet. */
  openText(key: BlockKey, type: 'text' | 'reasoning' = 'text'): void {
    if (this.stoppedAt !== undefined) return;
    this.openPart(key, type);
  }

  /**
   * Opens a reasoning part that is the provider's redacted reasoning: its `reasoning-start` says
   * `redacted: true`; `end` gives its payload (`{ redacted: true, data }`).
   */
  openRedacted(key: BlockKey): void {
    if (this.stoppedAt !== undefined) return;
    this.openPart(key, 'reasoning', undefined, true);
  }

  /**
   * Starts a tool call. A second start for an open key is ignored. A call without a name (empty,
   * missing, not a string) can be neither executed nor replayed, so it throws: the runtime turns
   * that into a retryable `ServerError` (`invalid_stream` / `invalid_response`) that keeps the content
   * received before it.
   *
   * `currentInput`: a parser that builds the input itself (Gemini's streamed `partialArgs`) passes
   * how to read it; the builder then keeps no copy of the JSON text (it would be a second copy of
   * the arguments held until the call ends) and, when the runtime closes the call early, takes the
   * input received so far from it instead of repairing the text.
   *
   * `metadata` (after `currentInput`, so an adapter written for the four-argument form keeps
   * working): what is known of the call as it opens (Anthropic's `anthropic.caller`), carried on its
   * `tool-call-start` (see `ToolCallStartEvent.metadata`); `end` still gives the part's whole
   * metadata.
   */
  toolStart(
    key: BlockKey,
    id: ToolCallId,
    name: string,
    currentInput?: () => JsonObject,
    metadata?: MetadataMap,
  ): void {
    if (this.open.has(key) || this.stoppedAt !== undefined) return;
    if (typeof name !== 'string' || name === '')
      throw new Error('the provider sent a tool call without a name');
    this.start();
    this.endAll();
    const index = this.nextIndex++;
    this.sawToolCall = true;
    const fragments = currentInput === undefined ? new JsonFragments() : undefined;
    const filter = fragments === undefined ? undefined : this.toolFilter?.(name);
    this.open.set(key, { type: 'tool-call', index, id, fragments, currentInput, filter });
    this.emit(
      metadata === undefined
        ? { type: 'tool-call-start', index, id, name }
        : { type: 'tool-call-start', index, id, name, metadata },
    );
  }

  /** Passes a raw tool-input JSON fragment through. Ignored when `key` is not an open tool call. */
  toolDelta(key: BlockKey, fragment: string): void {
    const part = this.open.get(key);
    if (part?.type !== 'tool-call' || typeof fragment !== 'string' || fragment === '') return;
    this.hold(fragment);
    part.fragments?.append(fragment);
    if (part.filter === undefined)
      this.emit({ type: 'tool-call-delta', index: part.index, id: part.id, delta: fragment });
  }

  /** The raw input text accumulated so far for an open tool call. */
  toolInputText(key: BlockKey): string | undefined {
    const part = this.open.get(key);
    return part?.type === 'tool-call' ? part.fragments?.text() : undefined;
  }

  /**
   * Ends part `key`. For a tool call, `fields.input` is the provider's authoritative input; absent,
   * the fragments are parsed (an unparseable input becomes its repair plus `switchyard.raw_input`
   * metadata, and the part is marked `incomplete`). `partial` (the runtime closes the part because
   * the response was cut) marks any part `incomplete`; so does `incomplete` (the provider's message
   * ended while this part was still open).
   */
  end(key: BlockKey, fields: EndFields = {}): void {
    const part = this.open.get(key);
    if (part === undefined) return;
    // The first text part ended on a start of the repeated prefix: it is the reply's. Where that
    // text completes a stop sequence, the part is ended there (`textBeforeStop`): not again here.
    if (this.repeated !== undefined && part.type === 'text') {
      this.forwardText(key, part.index, this.repeated.flush());
      if (!this.open.has(key)) return;
    }
    this.open.delete(key);
    const incomplete = fields.partial === true || fields.incomplete === true;
    if (part.type === 'text') {
      if (this.stopTail !== '') {
        // The part ended on text that only began a stop sequence: it is the reply's.
        const tail = this.stopTail;
        this.stopTail = '';
        this.passText(part.index, tail);
      }
      // Each text part is matched on its own.
      if (this.stops !== undefined) for (const stop of this.stops) stop.state = 0;
      const held = this.heldText.get(part.index);
      if (held !== undefined && this.textFilter !== undefined) {
        this.heldText.delete(part.index);
        const delta = filtered(this.textFilter, held);
        if (delta !== '') this.emitText(part.index, delta);
      }
      const transform = this.transforms.get(part.index);
      if (transform !== undefined) {
        this.transforms.delete(part.index);
        const rest = transform.end();
        if (rest !== '') this.emit({ type: 'text-delta', index: part.index, delta: rest });
      }
      const event: StreamEvent = { type: 'text-end', index: part.index };
      if (incomplete) event.incomplete = true;
      this.emit(withMetadata(event, fields.metadata));
    } else if (part.type === 'reasoning') {
      const event: Extract<StreamEvent, { type: 'reasoning-end' }> = {
        type: 'reasoning-end',
        index: part.index,
      };
      if (fields.signature !== undefined) event.signature = fields.signature;
      if (fields.data !== undefined) event.data = fields.data;
      if (fields.redacted !== undefined) event.redacted = fields.redacted;
      if (incomplete) event.incomplete = true;
      this.emit(withMetadata(event, fields.metadata));
    } else {
      this.endToolCall(part, fields, incomplete);
    }
  }

  private endToolCall(
    part: Extract<OpenPart, { type: 'tool-call' }>,
    fields: EndFields,
    incomplete: boolean,
  ): void {
    if (part.filter !== undefined && part.fragments !== undefined) {
      // Held arguments: the filtered whole goes out as one delta and is what the input is parsed from.
      const text = filtered(part.filter, part.fragments.text());
      part.fragments = new JsonFragments();
      part.fragments.append(text);
      if (text !== '') this.emit({ type: 'tool-call-delta', index: part.index, id: part.id, delta: text });
    }
    let input = fields.input ?? part.currentInput?.();
    let metadata = fields.metadata;
    let repaired = false;
    if (input === undefined) {
      const fragments = part.fragments ?? new JsonFragments();
      const parsed = fragments.parse();
      input = parsed ?? fragments.parsePartial();
      const text = fragments.text();
      if (parsed === undefined) {
        repaired = true;
        metadata = { ...metadata, 'switchyard.raw_input': text };
      } else if (losesNumberDigits(text) || (this.context.wholeReply === true && isRewritten(text, input))) {
        // Parsed, but a number changed (a 19-digit id), or, in a whole reply, its JSON is not the
        // text (spacing, key order, `1.0`): the text as the model wrote it goes on.
        metadata = keptArgumentsText(metadata, text, input);
      }
    }
    // A `__proto__` key in the model's arguments cannot travel on (every copy drops it; the boundary
    // refuses it in a request): removed here, with the arguments as sent kept as raw input.
    if (hasProtoKey(input)) {
      // The model's own text when the input was parsed from it (exact digits); else the input as JSON.
      let raw =
        fields.input === undefined && part.currentInput === undefined ? part.fragments?.text() : undefined;
      if (raw === '') raw = undefined;
      try {
        raw ??= JSON.stringify(input);
      } catch {
        raw = undefined; // nested past the engine's limit: the input is still cleaned
      }
      removeProtoKeys(input);
      repaired = true;
      if (raw !== undefined) metadata = { ...metadata, 'switchyard.raw_input': raw };
    }
    const event: Extract<StreamEvent, { type: 'tool-call-end' }> = {
      type: 'tool-call-end',
      index: part.index,
      id: part.id,
      input,
    };
    if (fields.signature !== undefined) event.signature = fields.signature;
    if (incomplete || repaired) event.incomplete = true;
    this.emit(withMetadata(event, metadata));
  }

  /** Ends every open part (parts are sequential: a new part closes the ones before it). */
  private endAll(partial = false): void {
    for (const key of [...this.open.keys()]) this.end(key, { partial });
  }

  /** Emits a whole provider-specific part. */
  custom(part: CustomPart): void {
    if (this.stoppedAt !== undefined) return;
    this.start();
    this.endAll();
    this.emit({ type: 'custom', index: this.nextIndex++, part });
  }

  /**
   * Merges usage counts (the latest value of each bucket wins) and emits a `usage` event. Every
   * count passes through {@link tokenCount}: fractional counts are rounded, negative and non-finite
   * ones are dropped as absent.
   */
  usage(update: Partial<Usage>): void {
    this.start();
    this.sawUsage = true;
    this.usageValue = { ...this.usageValue, ...definedOnly(update) };
    this.emit({ type: 'usage', usage: this.usageValue });
  }

  /**
   * Records the service tier the provider says served the call ({@link serviceTierName}; another
   * value is ignored). Not a usage report: no event of its own (`message-start` when given before
   * {@link start}, the next `usage` event and the response carry it), and a reply whose provider
   * gave no counts is still estimated ({@link hasUsage} stays false).
   */
  serviceTier(tier: unknown): void {
    const name = serviceTierName(tier);
    if (name === undefined || name === this.usageValue.serviceTier) return;
    this.usageValue = { ...this.usageValue, serviceTier: name };
  }

  /** Sets the finish reason and the provider's raw value. */
  setFinish(reason: FinishReason, raw?: string): void {
    // Past a stop sequence the reply ended there, whatever the provider says of the rest (its raw
    // `end_turn` would otherwise be an Anthropic client's stop_reason).
    if (this.stoppedAt !== undefined) return;
    this.finishReason = reason;
    if (raw !== undefined) this.rawFinishReason = raw;
  }

  /** Adds a response metadata entry (`namespace.field`). */
  setMetadata(key: string, value: JsonValue): void {
    // Past a stop sequence cut here, the one a provider names (at the end of the rest) is not the reply's.
    if (key === stopSequenceKey && this.stoppedAt !== undefined && value !== this.stoppedAt) return;
    this.metadata = { ...this.metadata, [key]: value };
  }

  /** Whether the provider reported any usage. */
  get hasUsage(): boolean {
    return this.sawUsage;
  }

  /** The content parts so far (open parts included as they stand). */
  contentSoFar(): Part[] {
    return this.accumulator.content();
  }

  /** Whether any tool call was started. */
  get hasToolCalls(): boolean {
    return this.sawToolCall;
  }

  /** Whether `finish` was emitted. */
  get isFinished(): boolean {
    return this.finished;
  }

  /**
   * Closes open parts and emits the one `finish`. `override` forces the reason (`error`,
   * `cancelled`), in which case open tool calls get whatever input parses.
   */
  finish(override?: FinishReason): CanonicalResponse {
    if (this.finished) return this.accumulator.result();
    this.start();
    this.endAll(override !== undefined);
    if (override !== undefined) this.finishReason = override;
    this.finished = true;
    const response: CanonicalResponse = {
      requestId: this.context.requestId,
      model: this.model,
      provider: this.context.provider,
      content: this.accumulator.content(),
      finishReason: this.finishReason,
      usage: this.usageValue,
      latencyMs: Math.max(0, Math.round(performance.now() - this.context.startedAt)),
    };
    if (this.responseId !== undefined) response.responseId = this.responseId;
    if (this.rawFinishReason !== undefined) response.rawFinishReason = this.rawFinishReason;
    if (this.metadata !== undefined) response.metadata = this.metadata;
    this.emit({ type: 'finish', response });
    return response;
  }
}

/**
 * A stop sequence, its prefix function ({@link prefixFunction}) and its automaton's state in the
 * open text part (the length of the longest end of the part's text so far that begins it).
 */
interface StopSequence {
  text: string;
  failure: Int32Array;
  state: number;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * Knuth–Morris–Pratt's prefix function of `text`: for each length `n`, the length of the longest
 * proper prefix of `text.slice(0, n + 1)` that is also its suffix.
 */
function prefixFunction(text: string): Int32Array {
  const failure = new Int32Array(text.length);
  for (let index = 1, length = 0; index < text.length; index++) {
    while (length > 0 && text.charCodeAt(index) !== text.charCodeAt(length)) length = failure[length - 1]!;
    if (text.charCodeAt(index) === text.charCodeAt(length)) length++;
    failure[index] = length;
  }
  return failure;
}

function withMetadata<Event extends { metadata?: MetadataMap }>(
  event: Event,
  metadata: MetadataMap | undefined,
): Event {
  if (metadata !== undefined) event.metadata = metadata;
  return event;
}

function definedOnly(update: Partial<Usage>): Partial<Usage> {
  const result: Partial<Usage> = {};
  for (const key of Object.keys(update) as Array<keyof Usage>) {
    const value =
      key === 'cost'
        ? update.cost
        : key === 'byModel'
          ? checkedByModel(update.byModel)
          : key === 'serviceTier'
            ? serviceTierName(update.serviceTier)
            : tokenCount(update[key]);
    if (value !== undefined) (result as Record<string, unknown>)[key] = value;
  }
  return result;
}

/** Per-model usage with every count through {@link tokenCount} (absent counts are 0). */
function checkedByModel(byModel: Usage['byModel']): Usage['byModel'] {
  if (byModel === undefined || byModel === null || typeof byModel !== 'object') return undefined;
  const checked: NonNullable<Usage['byModel']> = {};
  for (const [model, usage] of Object.entries(byModel)) {
    const entry = {
      input: tokenCount(usage?.input) ?? 0,
      cacheRead: tokenCount(usage?.cacheRead) ?? 0,
      cacheWrite: tokenCount(usage?.cacheWrite) ?? 0,
      output: tokenCount(usage?.output) ?? 0,
      reasoning: tokenCount(usage?.reasoning) ?? 0,
    };
    const long = tokenCount(usage?.cacheWrite1h);
    checked[model] = long === undefined || long === 0 ? entry : { ...entry, cacheWrite1h: long };
  }
  return Object.keys(checked).length === 0 ? undefined : checked;
}

/** A held text through its filter; the text as received when the filter throws (never lost). */
function filtered(filter: (text: string) => string, text: string): string {
  try {
    return filter(text);
  } catch {
    return text;
  }
}

/** Whether arguments text that parsed to `input` is not `input` as JSON (and so would change if re-serialized). */
function isRewritten(text: string, input: JsonObject): boolean {
  if (text === '') return false; // no arguments: `{}` as before
  try {
    return text !== JSON.stringify(input);
  } catch {
    return true; // nested past the engine's limit: the text is the only form that travels
  }
}
