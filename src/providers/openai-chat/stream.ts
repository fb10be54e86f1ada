/** The Chat Completions SSE parser: `data:` chunks, in-band error events and the `[DONE]` terminator. */
import { isJsonObject } from '../../core/json.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import type { ProviderContext, StreamParser } from '../common/definition.ts';
import { createTruncatedError } from '../common/errors.ts';
import type { WireCompletion } from './api.ts';
import { DeltaScanner } from './delta-scanner.ts';
import type { ChatQuirks } from './quirks.ts';
import { firstChoice, ResponseReader } from './reader.ts';
import { parseJson } from '../../core/json-text.ts';

/**
 * How long a body still open after the finish reason and the usage may take to send `[DONE]` (or
 * anything) before the stream is over. Hosts send `[DONE]` with them or right behind (it ends the
 * stream at once, as does the body's end); one that never sends it and holds the connection open
 * costs this window instead of the idle timeout (120 s by default).
 */
export const missingDoneWindowMs = 50;

/** What one SSE event is. */
type EventKind = 'done' | 'empty' | 'chunk';

function classifyEvent(data: string): EventKind {
  if (data === '[DONE]') return 'done';
  return data === '' ? 'empty' : 'chunk';
}

/**
 * Creates the parser for one streamed response. Content and argument chunks of OpenAI's exact
 * shape are read by {@link DeltaScanner}; every other event is parsed with exactly one
 * `JSON.parse` (never `[DONE]`, which is not JSON); malformed JSON throws a `SyntaxError` that the
 * runtime classifies as `ServerError` `invalid_stream`. A chunk with an `error` object, or an
 * `event: error` event whatever its payload (a bare string or number is the message), fails the
 * stream with the classified error (`context.fail`). Any other event whose data is not a JSON object
 * (`42`, `null`, `"text"`, an array) is skipped with one WARN. The stream may end without `[DONE]`:
 * it completes when a finish reason arrived on a choice. Without one — the body ended, or `[DONE]`
 * came first — it throws a retryable `NetworkError` `stream_truncated` (keeping the content, tool
 * calls and usage that arrived), unless the host's `quirks.omitsFinishReason` says it never sends one.
 * `[DONE]` is the terminator: every event after it (text, tool calls, usage alike) is ignored, with
 * one WARN per stream; without it, a body held open after the finish reason and the usage ends after
 * {@link missingDoneWindowMs}.
 */
export function createStreamParser(
  context: ProviderContext,
  builder: StreamBuilder,
  quirks: ChatQuirks,
): StreamParser {
  const reader = new ResponseReader(context, builder, quirks);
  const scanner = new DeltaScanner();
  let done = false;
  let warnedNotObject = false;
  let warnedAfterDone = false;

  /** `[DONE]` is the terminator: anything after it (text, tool calls, usage) is ignored, with one WARN. */
  function ignoreAfterDone(event: string | undefined): void {
    if (warnedAfterDone) return;
    warnedAfterDone = true;
    context.warn('ignored stream data that arrived after [DONE]', { event });
  }

  function onChunk(event: string | undefined, data: string): void {
    // Hot path: content and argument chunks are read in place (see DeltaScanner for the measured
    // reason); every other chunk, and any the scanner does not take, goes to JSON.parse.
    if (
      event !== 'error' &&
      scanner.scan(data) &&
      reader.readPiece(scanner.kind, scanner.index, scanner.delta)
    )
      return;
    const payload: unknown = parseJson(data);
    if (quirks.inBandErrors && event === 'error') reader.fail(errorOf(payload));
    if (!isJsonObject(payload)) {
      if (!warnedNotObject) {
        warnedNotObject = true;
        context.warn('skipped a stream event whose data is not a JSON object', {
          event,
          dataType: payload === null ? 'null' : Array.isArray(payload) ? 'array' : typeof payload,
        });
      }
      return;
    }
    const chunk = payload as WireCompletion;
    if (quirks.inBandErrors && chunk.error !== undefined && chunk.error !== null) reader.fail(chunk.error);
    const choice = firstChoice(chunk.choices);
    reader.read(chunk, choice);
  }

  return {
    onEvent(event, data) {
      if (done) {
        ignoreAfterDone(event);
        return;
      }
      switch (classifyEvent(data)) {
        case 'done':
          done = true;
          endStream('[DONE] arrived before any finish_reason');
          return;
        case 'empty':
          return;
        case 'chunk':
          onChunk(event, data);
          return;
      }
    },
    onEnd() {
      if (!done) endStream('the body ended before any finish_reason');
    },
    /** Whole once a finish reason arrived (the usage chunk may still follow). */
    isComplete: () => reader.hasFinish,
    isTerminated: () => done,
    /**
     * A host that sends the finish reason and the usage but no `[DONE]`, holding the connection:
     * waited for {@link missingDoneWindowMs}, not the idle timeout.
     */
    quietEndMs: () => (!done && reader.hasFinalUsage ? missingDoneWindowMs : undefined),
  };

  /** The one rule for the end of a stream: no finish reason means truncated, unless the host omits it. */
  function endStream(detail: string): void {
    if (!reader.hasFinish && !quirks.omitsFinishReason) {
      reader.closePartial();
      throw createTruncatedError(context, detail);
    }
    reader.complete();
  }
}

/** The error an `event: error` payload carries: its `error` field, else the payload itself. */
function errorOf(payload: unknown): unknown {
  if (isJsonObject(payload) && payload.error !== undefined && payload.error !== null) return payload.error;
  return payload;
}
