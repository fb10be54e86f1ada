/** The `streamGenerateContent?alt=sse` parser: one JSON chunk per SSE event, no terminal event. */
import type { StreamBuilder } from '../../core/stream-builder.ts';
import type { ProviderContext, StreamParser } from '../common/definition.ts';
import { createTruncatedError } from '../common/errors.ts';
import { type GeminiResponse } from './api.ts';
import { DeltaScanner } from './delta-scanner.ts';
import { convertErrorBody } from './errors.ts';
import { ResponseReader } from './reader.ts';
import { isJsonObject } from '../../core/json.ts';
import { parseJson } from '../../core/json-text.ts';

/**
 * Each event is a `GenerateContentResponse` chunk, parsed once. Gemini sends no terminal event: the
 * stream is whole when a chunk carried a `finishReason` (or a prompt block); a body that ends before
 * that throws a retryable `NetworkError` (`stream_truncated`). An `{error}` chunk throws the
 * classified error. Events that are not objects are skipped with a WARN (and so are candidates, parts,
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
    /** Whole once a chunk carried a finishReason; Gemini has no terminal event, so reading goes on. */
    isComplete: () => reader.complete,
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
