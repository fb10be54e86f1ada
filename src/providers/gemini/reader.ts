/**
 * Reads Gemini response chunks (a whole response is one chunk) into StreamBuilder calls. Shared by
 * `parseResponse` and the stream parser, so both produce the same content for the same parts.
 */
import { createRequestId } from '../../core/ids.ts';
import { isJsonObject, type JsonObject, type JsonValue, jsonTypeName } from '../../core/json.ts';
import {
  geminiCandidateFields,
  geminiPartStartsKey,
  geminiPromptFeedbackKey,
  type MetadataMap,
} from '../../core/metadata.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import type { Usage } from '../../core/usage.ts';
import type { ProviderContext } from '../common/definition.ts';
import { canonicalToolId, provenanceOf } from '../common/projection.ts';
import { besideValueWarning } from '../common/wrapped-schema.ts';
import {
  type GeminiCandidate,
  type GeminiFunctionCall,
  type GeminiPart,
  type GeminiResponse,
  type GeminiUsageMetadata,
} from './api.ts';
import { hashId } from '../../core/tool-id-map.ts';
import { type AnswerFunction, answerFunctionOf, answerText } from './answer-function.ts';
import { preparedCall } from './cache.ts';
import { keepsFirstCallOnly, warnDroppedCall } from './serial-calls.ts';
import { generatedIdPrefix, signatureMetadataKey, signatureOffsetMetadataKey } from './messages.ts';
import type { DeltaScanner } from './delta-scanner.ts';
import { invalidArguments, PartialArguments } from './partial-arguments.ts';
import { convertUsage, hasUsageCounts, mapFinishReason, trafficTier } from './response.ts';
import { parseJson } from '../../core/json-text.ts';
import { redactSecrets } from '../../core/redaction.ts';

type PartKind = 'thought' | 'text' | 'function-call' | 'signature' | 'other';

/** Candidate fields kept as response metadata, and their keys (`gemini.<field>`): see `geminiCandidateFields`. */
const candidateFields = geminiCandidateFields;
const candidateMetadata = Object.fromEntries(
  candidateFields.map((field) => [field, `gemini.${field}`]),
) as Record<(typeof candidateFields)[number], string>;

/** The open text or thought block. */
interface OpenBlock {
  kind: 'text' | 'reasoning';
  key: string;
  /** Characters (UTF-16 units) of text read so far. */
  length: number;
  /** A text block's signature and the offset where the signed wire part ended. */
  signature: { value: string; offset: number } | undefined;
}

interface StreamingCall {
  key: string;
  arguments: PartialArguments;
  signature: string | undefined;
  /** A call of the answer function: read into text when whole, never a tool call. */
  answer?: AnswerFunction;
  /** A call dropped (parallel calls forbidden): its streamed arguments are read, never emitted. */
  dropped?: boolean;
}

/**
 * Part kinds are told apart by field presence. Text and thoughts that Gemini streams in pieces are
 * merged into one part. A signature closes a thought (it belongs to the thought it ends). Text stays
 * open across a signature, so an answer is one canonical text part however Gemini signs it (2.5
 * signs the first part, 3 the last): the part keeps `gemini.thoughtSignature` and, when more text
 * followed the signed wire part, `gemini.thoughtSignatureOffset` (where that part ended), which
 * `convertMessages` uses to split the text again. Only a second signature closes a text block.
 * function calls come whole, or (Vertex `streamFunctionCallArguments`) as a start, `partialArgs`
 * pieces and an end. Unknown part types are kept whole as `custom` parts (`provider: 'gemini'`,
 * `kind` = the part's field name), which `convertMessages` sends back verbatim.
 *
 * Shapes that are not what the API documents never crash the reader: a candidate, part,
 * `functionCall` or `usageMetadata` that is not a JSON object is skipped with a WARN; `args` that
 * are not an object become `{}` with the raw value in `switchyard.raw_input`; a non-string
 * `thoughtSignature` or `text` is ignored. Streamed `partialArgs` that cannot be applied throw a
 * `ServerError` `invalid_stream` (see `PartialArguments`): skipping them would silently drop input.
 *
 * When the request asked for its structured answer through an answer function (`answer-function.ts`),
 * a call of that function is the reply's text (its arguments as JSON), never a tool call, and the
 * model's own text (a preamble beside the call) is dropped with a WARN, so the text is the answer.
 * Text is held until it is known whether the answer call comes: it is dropped when the call comes,
 * and kept when a tool call comes first (before that call) or when the reply ends without the
 * answer call. A reply with neither the answer nor a tool call (text only: `ANY` does not always
 * force a call) WARNs, and its text is the reply, so the caller's structured-output check reports it.
 * The answer call's text is itself held until the reply ends: a real tool call in the same turn
 * (before or after it) wins, and the answer — given before the tool's result, so premature — is
 * dropped with a WARN; the reply finishes `tool-call` and the model answers once it has the result.
 */
export class ResponseReader {
  private readonly context: ProviderContext;
  private readonly builder: StreamBuilder;
  private block: OpenBlock | undefined;
  private call: StreamingCall | undefined;
  private blockCount = 0;
  private responseId: string | undefined;
  private rawFinishReason: string | undefined;
  private blockReason: string | undefined;
  /** A chunk carried a candidate. */
  private answered = false;
  /** Characters of answer text (text parts, not thoughts) read so far. */
  private answerLength = 0;
  /** The raw counts of the last usage read (prompt, candidates, thoughts, cached, tool-use prompt). */
  private readonly lastCounts: Array<number | undefined> = [];
  /** The last usage emitted. */
  private lastUsage: Usage | undefined;
  /**
   * The newest counts not yet emitted (Gemini sends growing counts on every chunk); from a scanned
   * chunk, their JSON text, parsed only if they are still the newest when emitted.
   */
  private pendingUsage: GeminiUsageMetadata | string | undefined;
  private started = false;
  /** A chunk that was read whole (finish reason or prompt block) carried `usageMetadata`. */
  private usageAfterFinish = false;
  /** Candidates of another index were met (warned once per stream). */
  private otherCandidates = false;
  /** The answer function the request declared, if any (see `answer-function.ts`). */
  private readonly answer: AnswerFunction | undefined;
  /** The answer function was called (its text emitted), or text beside it dropped (warned once). */
  private answerRead = false;
  private textDropped = false;
  /** Text read while the answer function is active and its call has not come (see the class doc). */
  private heldText: Array<{ text: string; signature: string | undefined }> = [];
  /** Characters of `heldText`. */
  private heldLength = 0;
  /** The answer call's text and signature, written when the reply ends without a real tool call. */
  private heldAnswer: { text: string; signature: string | undefined } | undefined;
  /** The request forbade parallel calls: only the first function call is kept (`serial-calls.ts`). */
  private readonly firstCallOnly: boolean;
  /** The name of the first real function call read. */
  private firstCall: string | undefined;

  constructor(context: ProviderContext, builder: StreamBuilder) {
    this.context = context;
    this.builder = builder;
    this.answer = answerFunctionOf(context);
    this.firstCallOnly = keepsFirstCallOnly(context);
    const cache = preparedCall(context)?.cache;
    if (cache !== undefined) {
      builder.setMetadata('gemini.cachedContent', cache.name);
      if (cache.created) builder.setMetadata('gemini.cacheCreatedTokens', cache.tokens ?? null);
    }
  }

  /** True once a chunk carried a candidate (or a prompt block): something was answered. */
  get hasAnswer(): boolean {
    return this.answered || this.blockReason !== undefined;
  }

  /** True once a chunk carried a finish reason or a prompt block: the response is whole. */
  get complete(): boolean {
    return this.rawFinishReason !== undefined || this.blockReason !== undefined;
  }

  /**
   * True once the response is whole and a chunk carried its usage too (the finish chunk itself, as
   * Gemini sends it, or one after): what Gemini's last chunk holds, though nothing marks it last.
   */
  get measured(): boolean {
    return this.usageAfterFinish;
  }

  /** Reads one chunk. */
  read(chunk: GeminiResponse): void {
    // A chunk with nothing but metadata (`trafficType`) does not start the message, so a stream
    // cut before any content can still be retried.
    if (typeof chunk.responseId === 'string') this.responseId ??= chunk.responseId;
    if (!this.started && carriesContent(chunk)) {
      this.started = true;
      this.builder.start(startFields(chunk));
    }
    // The chunk's usage before its content: the first content event then goes out with the input
    // count known (an Anthropic client's `message_start` reports it, and some clients read it only there).
    const usage: unknown = chunk.usageMetadata;
    if (isJsonObject(usage)) this.queueUsage(usage as GeminiUsageMetadata);
    else if (usage !== undefined) this.skip('usageMetadata', usage);
    const candidate: unknown = firstCandidate(chunk.candidates);
    if (isJsonObject(candidate)) {
      this.answered = true;
      this.readCandidate(candidate as GeminiCandidate);
    } else if (candidate !== undefined) this.skip('a candidate', candidate);
    const listed = Array.isArray(chunk.candidates) ? chunk.candidates.length : 0;
    if (!this.otherCandidates && (listed > 1 || (listed === 1 && candidate === undefined))) {
      // Candidates of another index (the request asks for one) are never merged into the first.
      this.otherCandidates = true;
      this.context.warn('skipped candidates other than the first', { count: listed });
    }
    const blockReason = chunk.promptFeedback?.blockReason;
    if (typeof blockReason === 'string') {
      this.blockReason = blockReason;
      this.builder.setMetadata('gemini.blockReason', blockReason);
      this.builder.setMetadata(geminiPromptFeedbackKey, chunk.promptFeedback as JsonObject);
    }
    if (this.complete && isJsonObject(usage)) this.usageAfterFinish = true;
  }

  /**
   * Reads a chunk the stream's {@link DeltaScanner} took, as `read` would read the same chunk
   * parsed: its usage, then its one text or thought piece. False before the message started (the
   * first content chunk goes through `read`, which starts it); the caller then parses the chunk.
   */
  readScanned(scanner: DeltaScanner): boolean {
    if (!this.started) return false;
    if (scanner.responseId !== undefined) this.responseId ??= scanner.responseId;
    if (scanner.usage !== undefined) {
      this.queueUsage(scanner.usage);
      if (this.complete) this.usageAfterFinish = true;
    }
    this.onText(scanner.thought ? 'reasoning' : 'text', scanner.text, undefined);
    return true;
  }

  /**
   * The first counts are emitted at once (the input side is known early and survives a cut
   * stream); later ones only at the end, so a 20,000-chunk stream emits two usage events, not
   * 20,000. `flushUsage()` emits what is pending.
   */
  private queueUsage(usage: GeminiUsageMetadata | string): void {
    if (this.lastUsage === undefined) this.readUsage(usageOf(usage));
    else this.pendingUsage = usage;
  }

  /** Emits the newest pending usage, if any. */
  flushUsage(): void {
    const pending = this.pendingUsage;
    this.pendingUsage = undefined;
    if (pending !== undefined) this.readUsage(usageOf(pending));
  }

  /** Closes what is open and sets the finish reason (the runtime then calls `builder.finish()`). */
  finish(): void {
    this.closeBlock();
    this.closeCall();
    if (this.answer !== undefined && !this.answerRead) this.answerMissing();
    this.writeAnswer();
    this.flushUsage();
    if (this.blockReason !== undefined) {
      this.builder.setFinish('content-filter', this.blockReason);
    } else if (this.rawFinishReason !== undefined) {
      this.builder.setFinish(
        mapFinishReason(this.rawFinishReason, this.builder.hasToolCalls),
        this.rawFinishReason,
      );
    } else {
      this.builder.setFinish(this.builder.hasToolCalls ? 'tool-call' : 'completed');
    }
  }

  /** Logs a WARN for a wire value of an unexpected shape that is skipped. */
  private skip(what: string, value: unknown): void {
    this.context.warn(`skipped ${what} that is not a JSON object`, {
      reason: value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value,
    });
  }

  /**
   * Emits usage when the counts changed. Gemini repeats the same counts on almost every chunk, so
   * the raw counts are compared first and only new ones are converted.
   */
  private readUsage(usage: GeminiUsageMetadata): void {
    if (usage.trafficType !== undefined) this.builder.serviceTier(trafficTier(usage.trafficType));
    if (!hasUsageCounts(usage)) return;
    const last = this.lastCounts;
    if (
      last.length !== 0 &&
      last[0] === usage.promptTokenCount &&
      last[1] === usage.candidatesTokenCount &&
      last[2] === usage.thoughtsTokenCount &&
      last[3] === usage.cachedContentTokenCount &&
      last[4] === usage.toolUsePromptTokenCount
    ) {
      return;
    }
    last[0] = usage.promptTokenCount;
    last[1] = usage.candidatesTokenCount;
    last[2] = usage.thoughtsTokenCount;
    last[3] = usage.cachedContentTokenCount;
    last[4] = usage.toolUsePromptTokenCount;
    const converted = convertUsage(usage);
    const previous = this.lastUsage;
    if (
      previous !== undefined &&
      previous.input === converted.input &&
      previous.cacheRead === converted.cacheRead &&
      previous.output === converted.output &&
      previous.reasoning === converted.reasoning
    ) {
      return;
    }
    this.lastUsage = converted;
    this.builder.usage(converted);
  }

  private readCandidate(candidate: GeminiCandidate): void {
    const content: unknown = candidate.content;
    const parts: unknown = isJsonObject(content) ? content.parts : undefined;
    if (Array.isArray(parts)) {
      // Whole, a grounding segment's offsets may count from its part's start: say where each starts.
      const starts: number[] | undefined = !this.context.stream && parts.length > 1 ? [] : undefined;
      for (const part of parts as unknown[]) {
        starts?.push(this.answerLength + this.heldLength);
        if (isJsonObject(part)) this.readPart(part as GeminiPart);
        else this.skip('a part', part);
      }
      if (starts !== undefined) this.builder.setMetadata(geminiPartStartsKey, starts);
    } else if (parts !== undefined && parts !== null) {
      this.context.warn('skipped content parts that are not an array', { reason: typeof parts });
    }
    for (const field of candidateFields) {
      const value = candidate[field];
      if (value === undefined) continue;
      // The provider's own words, which may echo the request's key (a `finishMessage` quoting the
      // call): redacted here, once, before any reader — an error, a client's finish event.
      const kept = field === 'finishMessage' && typeof value === 'string' ? redactSecrets(value) : value;
      this.builder.setMetadata(candidateMetadata[field], kept as JsonValue);
    }
    if (typeof candidate.finishReason === 'string') this.rawFinishReason = candidate.finishReason;
  }

  private readPart(part: GeminiPart): void {
    // Text of another type is not a shape to skip: the reply would read as whole without it.
    if (part.text !== undefined && part.text !== null && typeof part.text !== 'string')
      throw new TypeError(`a part's text is ${jsonTypeName(part.text)}, not a string`);
    const signature = typeof part.thoughtSignature === 'string' ? part.thoughtSignature : undefined;
    switch (partKind(part)) {
      case 'thought':
        this.onText('reasoning', typeof part.text === 'string' ? part.text : '', signature);
        return;
      case 'text':
        this.onText('text', part.text as string, signature);
        return;
      case 'signature':
        this.onSignature(signature as string);
        return;
      case 'function-call':
        if (isJsonObject(part.functionCall)) this.onFunctionCall(part.functionCall, signature);
        else this.skip('a functionCall', part.functionCall);
        return;
      case 'other':
        this.onOther(part);
        return;
    }
  }

  private onText(kind: 'text' | 'reasoning', text: string, signature: string | undefined): void {
    this.closeCall();
    if (text === '' && signature === undefined) return;
    if (kind === 'text' && this.answer !== undefined) {
      if (this.answerRead) this.dropText(text);
      else {
        this.heldText.push({ text, signature });
        this.heldLength += text.length;
      }
      return;
    }
    this.writeText(kind, text, signature);
  }

  private writeText(kind: 'text' | 'reasoning', text: string, signature: string | undefined): void {
    // A text block holds one signature: a second one (not a documented shape) starts a new block.
    if (this.block?.kind !== kind || (signature !== undefined && this.block.signature !== undefined)) {
      this.openBlock(kind);
    }
    const block = this.block as OpenBlock;
    block.length += text.length;
    if (kind === 'text') this.answerLength += text.length;
    if (kind === 'text') this.builder.text(block.key, text);
    else this.builder.reasoning(block.key, text);
    if (signature !== undefined) this.sign(block, signature);
  }

  /** A part holding only a signature: it signs the open text or thought, else stands as empty text. */
  private onSignature(signature: string): void {
    if (this.block === undefined || this.block.signature !== undefined) this.onText('text', '', signature);
    else this.sign(this.block, signature);
  }

  private openBlock(kind: 'text' | 'reasoning'): void {
    this.closeBlock();
    this.block = { kind, key: `block:${this.blockCount++}`, length: 0, signature: undefined };
    this.builder.openText(this.block.key, kind);
  }

  /** A thought ends at its signature; text stays open and remembers where the signed part ended. */
  private sign(block: OpenBlock, signature: string): void {
    if (block.kind === 'reasoning') {
      this.block = undefined;
      this.builder.end(block.key, { signature });
    } else {
      block.signature = { value: signature, offset: block.length };
    }
  }

  /** The held text is written where it stands: no answer call came before it ended (a tool call or the reply). */
  private releaseText(): void {
    const held = this.heldText;
    if (held.length === 0) return;
    this.heldText = [];
    this.heldLength = 0;
    for (const { text, signature } of held) this.writeText('text', text, signature);
    this.closeBlock();
  }

  /** The held text is dropped: the answer call came. */
  private dropHeldText(): void {
    for (const { text } of this.heldText) this.dropText(text);
    this.heldText = [];
    this.heldLength = 0;
  }

  /**
   * The reply ended without the answer call: its held text stays. With no tool call either, the
   * structured answer the request asked for did not come (WARN).
   */
  private answerMissing(): void {
    this.releaseText();
    if (this.builder.hasToolCalls || this.blockReason !== undefined) return;
    this.context.warn(
      'the structured answer did not come (asked for as a function call): the reply is the text',
      {
        model: this.context.model,
        function: (this.answer as AnswerFunction).name,
      },
    );
  }

  /** Text beside the answer function's call is not the answer: dropped, with one WARN. */
  private dropText(text: string): void {
    if (text === '' || this.textDropped) return;
    this.textDropped = true;
    this.context.warn('dropped text beside the structured answer (asked for as a function call)', {
      model: this.context.model,
    });
  }

  /**
   * The answer function's arguments → the reply's text, held until the reply ends (`writeAnswer`):
   * a real tool call may still come. A second call is dropped.
   */
  private onAnswer(answer: AnswerFunction, args: JsonValue | undefined, signature: string | undefined): void {
    if (this.answerRead) {
      this.context.warn('dropped a second call of the answer function', { function: answer.name });
      return;
    }
    this.answerRead = true;
    this.dropHeldText();
    if (answer.wrapped && isJsonObject(args)) {
      const beside = Object.keys(args).filter((key) => key !== 'value');
      if (beside.length > 0)
        this.context.warn(besideValueWarning, {
          model: this.context.model,
          // The members' names (the model's, so bounded), never their values.
          dropped: beside.slice(0, 8).map((key) => (key.length > 40 ? `${key.slice(0, 40)}…` : key)),
        });
    }
    this.heldAnswer = { text: answerText(answer, args), signature };
  }

  /**
   * The held answer as the reply's text, in a block of its own — unless the turn called a real tool
   * too: the tool calls win, the answer (given before their results) is dropped with a WARN, and the
   * reply finishes `tool-call`.
   */
  private writeAnswer(): void {
    const held = this.heldAnswer;
    if (held === undefined) return;
    this.heldAnswer = undefined;
    if (this.builder.hasToolCalls) {
      this.context.warn(
        'dropped the structured answer (asked for as a function call) called beside a tool: the tool calls are the reply',
        { model: this.context.model, function: (this.answer as AnswerFunction).name },
      );
      return;
    }
    this.openBlock('text');
    const block = this.block as OpenBlock;
    block.length += held.text.length;
    this.answerLength += held.text.length;
    this.builder.text(block.key, held.text);
    if (held.signature !== undefined) this.sign(block, held.signature);
    this.closeBlock();
  }

  private onFunctionCall(functionCall: GeminiFunctionCall, signature: string | undefined): void {
    this.closeBlock();
    const starts = typeof functionCall.name === 'string' && functionCall.name !== '';
    if (this.call !== undefined && !starts) {
      this.continueCall(this.call, functionCall, signature);
      return;
    }
    this.closeCall();
    // A stray end marker (`functionCall: {}`) with no call open is skipped; a whole call (`args`)
    // without a name reaches the builder, which fails the response (see `StreamBuilder.toolStart`).
    if (!starts && functionCall.args === undefined) return;
    const answer = this.answer?.name === functionCall.name ? this.answer : undefined;
    if (answer !== undefined && functionCall.willContinue !== true) {
      this.onAnswer(answer, functionCall.args as JsonValue | undefined, signature);
      return;
    }
    if (answer === undefined && this.firstCallOnly && this.firstCall !== undefined) {
      this.dropCall(functionCall, signature);
      return;
    }
    if (answer === undefined) {
      this.firstCall ??= functionCall.name ?? '';
      this.releaseText();
    } else this.dropHeldText();
    const key = `call:${this.blockCount++}`;
    if (answer !== undefined) {
      // Streamed arguments of the answer: gathered, read as text when the call ends (`closeCall`).
      this.call = { key, arguments: new PartialArguments(this.context), signature, answer };
      this.continueCall(this.call, functionCall, undefined);
      return;
    }
    // Without a Gemini id, derive a stable one from the response id and the call's position, so a
    // replayed response (cassette, retry of a recorded session) yields the same wire ids.
    const providerId =
      (typeof functionCall.id === 'string' ? functionCall.id : undefined) ??
      `${generatedIdPrefix}${this.responseId === undefined ? createRequestId() : hashId(`${this.responseId}:${key}`, 16)}`;
    const id = canonicalToolId(this.context, providerId);
    if (functionCall.willContinue === true) {
      // Streamed arguments: the builder reads the input from the tree built here (see toolStart).
      const streamed = new PartialArguments(this.context);
      this.builder.toolStart(key, id, functionCall.name ?? '', () => streamed.input);
      this.call = { key, arguments: streamed, signature };
      this.continueCall(this.call, functionCall, undefined);
      return;
    }
    this.builder.toolStart(key, id, functionCall.name ?? '');
    const args: unknown = functionCall.args;
    const input = isJsonObject(args) ? args : {};
    let metadata: MetadataMap | undefined;
    if (args !== undefined && args !== null && input !== args) {
      metadata = { 'switchyard.raw_input': JSON.stringify(args) };
      this.context.warn('function-call args are not a JSON object; the input is {}', {
        reason: Array.isArray(args) ? 'array' : typeof args,
      });
    }
    this.builder.toolDelta(key, JSON.stringify(input));
    // A repaired input is marked incomplete: the model's arguments are not what `input` holds.
    this.builder.end(key, { input, signature, metadata, incomplete: metadata !== undefined });
  }

  /** A call after the first where the request forbade parallel calls: dropped with a WARN, its streamed arguments read. */
  private dropCall(functionCall: GeminiFunctionCall, signature: string | undefined): void {
    warnDroppedCall(this.context, functionCall.name, this.firstCall as string);
    if (functionCall.willContinue !== true) return;
    const key = `call:${this.blockCount++}`;
    this.call = { key, arguments: new PartialArguments(this.context), signature, dropped: true };
    this.continueCall(this.call, functionCall, undefined);
  }

  private continueCall(
    call: StreamingCall,
    functionCall: GeminiFunctionCall,
    signature: string | undefined,
  ): void {
    if (signature !== undefined) call.signature ??= signature;
    const partialArgs: unknown = functionCall.partialArgs;
    if (Array.isArray(partialArgs)) {
      for (const argument of partialArgs as unknown[]) {
        const delta = call.arguments.apply(argument);
        if (call.answer === undefined && call.dropped !== true) this.builder.toolDelta(call.key, delta);
      }
    } else if (partialArgs !== undefined && partialArgs !== null) {
      throw invalidArguments(this.context, 'sent partialArgs that are not an array', true);
    }
    if (functionCall.willContinue !== true) this.closeCall();
  }

  private onOther(part: GeminiPart): void {
    this.closeBlock();
    this.closeCall();
    const kind = Object.keys(part).find((key) => key !== 'thoughtSignature' && key !== 'thought') ?? 'part';
    this.builder.custom({
      type: 'custom',
      provider: provenanceOf(this.context),
      kind,
      data: part as unknown as JsonObject,
    });
  }

  private closeBlock(): void {
    const block = this.block;
    if (block === undefined) return;
    this.block = undefined;
    const signature = block.signature;
    if (signature === undefined) {
      this.builder.end(block.key);
      return;
    }
    const metadata: MetadataMap = { [signatureMetadataKey]: signature.value };
    if (signature.offset < block.length) metadata[signatureOffsetMetadataKey] = signature.offset;
    this.builder.end(block.key, { metadata });
  }

  private closeCall(): void {
    const call = this.call;
    if (call === undefined) return;
    this.call = undefined;
    if (call.dropped === true) {
      call.arguments.close();
      return;
    }
    if (call.answer !== undefined) {
      call.arguments.close();
      this.onAnswer(call.answer, call.arguments.input, call.signature);
      return;
    }
    this.builder.toolDelta(call.key, call.arguments.close());
    if (call.arguments.diverged) {
      this.context.warn('streamed function-call arguments arrived out of order', {
        reason: 'the deltas stop early; the final input is complete',
      });
    }
    this.builder.end(call.key, { input: call.arguments.input, signature: call.signature });
  }
}

/** Usage as read, or from the JSON text a scan kept (an object by the scan's construction). */
function usageOf(usage: GeminiUsageMetadata | string): GeminiUsageMetadata {
  return typeof usage === 'string' ? (parseJson(usage) as GeminiUsageMetadata) : usage;
}

function carriesContent(chunk: GeminiResponse): boolean {
  if (chunk.candidates !== undefined || chunk.promptFeedback !== undefined) return true;
  return isJsonObject(chunk.usageMetadata) && hasUsageCounts(chunk.usageMetadata);
}

function startFields(chunk: GeminiResponse): { responseId?: string; model?: string } {
  const fields: { responseId?: string; model?: string } = {};
  if (typeof chunk.responseId === 'string') fields.responseId = chunk.responseId;
  if (typeof chunk.modelVersion === 'string') fields.model = chunk.modelVersion;
  return fields;
}

function partKind(part: GeminiPart): PartKind {
  if (part.functionCall !== undefined) return 'function-call';
  if (part.thought === true) return 'thought';
  if (typeof part.text === 'string') return 'text';
  const keys = Object.keys(part);
  if (typeof part.thoughtSignature === 'string' && keys.every((key) => key === 'thoughtSignature')) {
    return 'signature';
  }
  return 'other';
}

/**
 * The chunk's first candidate (`index` 0, or no index as a single candidate is sent), wherever it is
 * in the list; another candidate is never read as the first. `undefined` when there is none.
 */
function firstCandidate(candidates: unknown): unknown {
  if (!Array.isArray(candidates)) return (candidates as unknown[] | undefined)?.[0];
  for (const candidate of candidates as unknown[]) {
    if (!isJsonObject(candidate)) return candidate;
    if (candidate.index === undefined || candidate.index === 0) return candidate;
  }
  return undefined;
}
