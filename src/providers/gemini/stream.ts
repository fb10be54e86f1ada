/** The `streamGenerateContent?alt=sse` parser: one JSON chunk per SSE event, no terminal event. */
import type { StreamBuilder } from '../../core/stream-builder.ts';
import type { ProviderContext, StreamParser } from '../common/definition.ts';
import { createTruncatedError } from '../common/errors.ts';
import { type GeminiResponse } from './api.ts';
import { DeltaScanner } from './delta-scanner.ts';
import { convertErrorBody } from './errors.ts';
import { createStrayLineReader } from './stray-errors.ts';
import { ResponseReader } from './reader.ts';
import { isJsonObject } from '../../core/json.ts';
import { parseJson } from '../../core/json-text.ts';

/**
 * How long a body still open after the response's finishReason and usage may take to send more
 * before the stream is over. Gemini has no terminal event, but its last chunk carries both (every
 * recording: test/fixtures/recorded/google), and its body ends right after it (nothing is waited
 * for then); a server that holds the connection open costs this window instead of the idle
 * timeout (120 s by default).
 */
export const lastChunkWindowMs = 50;

/**
 * Each event is a `GenerateContentResponse` chunk, parsed once. Gemini sends no terminal event: the
 * stream is whole when a chunk carried a `finishReason` (or a prompt block); a body that ends before
 * that throws a retryable `NetworkError` (`stream_truncated`); one held open after the finish and
 * its usage ends after {@link lastChunkWindowMs}. An `{error}` chunk throws the
 * classified error, and so does Google's error object written as raw lines (no `data:` event). Events that are not objects are skipped with a WARN (and so are candidates, parts,
 * function calls and usage that are not; see `ResponseReader`); streamed `partialArgs` that cannot be
 * applied throw a `ServerError` `invalid_stream`.
 */
export function createStreamParser(context: ProviderContext, builder: StreamBuilder): StreamParser {
  const reader = new ResponseReader(context, builder);
  const scanner = new DeltaScanner();
  return {
    onEvent(_event, data) {
      if (data === '' || data === '[DONE]') return;
      // Hot path: text and thought chunks of Gemini's exact shape are read in place (DeltaScanner);
      // every other chunk, and any the scanner does not take, goes to JSON.parse.
      if (scanner.scan(data) && reader.readScanned(scanner)) return;
      const chunk: unknown = parseJson(data);
      const error = convertErrorBody(chunk);
      if (error !== undefined) context.fail(error, error.status);
      if (!isJsonObject(chunk)) {
        context.warn('skipped a stream event that is not a JSON object', { reason: typeof chunk });
        return;
      }
      reader.read(chunk as GeminiResponse);
    },
    // Google's error object written raw into the body (stray-errors.ts): the error it names.
    onStrayLine: createStrayLineReader((value) => {
      const error = convertErrorBody(value);
      if (error !== undefined) context.fail(error, error.status);
    }),
    /** Whole once a chunk carried a finishReason; Gemini has no terminal event, so reading goes on. */
    isComplete: () => reader.complete,
    /**
     * A chunk with the finishReason and the usage is Gemini's last, though nothing says so: the
     * runtime waits {@link lastChunkWindowMs} for more, then stops reading (a held connection).
     */
    quietEndMs: () => (reader.measured ? lastChunkWindowMs : undefined),
    onEnd() {
      if (!reader.complete) {
        reader.flushUsage();
        throw createTruncatedError(
          context,
          `the body of ${context.model} ended before a chunk with a finishReason`,
        );
      }
      reader.finish();
    },
  };
}
