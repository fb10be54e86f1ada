/**
 * The ConverseStream parser and its framing: AWS event-stream messages (decoded and CRC-checked by
 * `src/transport/event-stream.ts`), one JSON payload per event, `:event-type` naming it. An
 * exception message inside the 200 stream (`:message-type: exception`) is the classified error.
 */
import type { StreamBuilder } from '../../core/stream-builder.ts';
import { ServerError } from '../../core/errors/server-error.ts';
import {
  EventStreamDecoder,
  EventStreamFrameError,
  type EventStreamMessage,
} from '../../transport/event-stream.ts';
import type { ProviderContext, StreamDecoder, StreamParser } from '../common/definition.ts';
import { createTruncatedError } from '../common/errors.ts';
import { type WireDelta } from './api.ts';
import { DeltaScanner } from './delta-scanner.ts';
import { convertErrorBody } from './errors.ts';
import { ResponseReader, SkipWarnings } from './reader.ts';
import { applyResponseFields, applyServiceTier, applyStopReason, convertUsage } from './response.ts';
import { isJsonObject } from '../../core/json.ts';
import { parseJson } from '../../core/json-text.ts';

/** The event name the decoder gives an exception message: `exception:<exceptionType>`. */
export const exceptionPrefix = 'exception:';

/**
 * Decodes an event-stream body into `parser.onEvent(eventType, payload)`; exceptions (and
 * `:message-type: error`, its `:error-message` as the payload's `message`) arrive as `exception:<type>`. Malformed frames (bad prelude, bad CRC)
 * are a retryable `ServerError` `invalid_stream`; a body ending inside a frame is `stream_truncated`.
 */
export function createStreamDecoder(
  parser: StreamParser,
  maxEventBytes: number,
  site: { provider: string; requestId?: string } = { provider: 'bedrock' },
): StreamDecoder {
  const decoder = new EventStreamDecoder((message) => {
    if (message.messageType === 'event') parser.onEvent(message.type, message.payload);
    else parser.onEvent(exceptionPrefix + (message.type || message.messageType), exceptionPayload(message));
  }, maxEventBytes);
  return {
    feed: (chunk) => guard(site, () => decoder.feed(chunk)),
    end: () => guard(site, () => decoder.end()),
  };
}

/**
 * The payload of an exception or error message: an error message's text is its `:error-message`
 * header (the payload empty), read as an exception's `{"message": …}`.
 */
function exceptionPayload(message: EventStreamMessage): string {
  if (message.errorMessage === undefined || message.payload.trim() !== '') return message.payload;
  return JSON.stringify({ message: message.errorMessage });
}

function guard(site: { provider: string; requestId?: string }, run: () => void): void {
  try {
    run();
  } catch (error) {
    if (!(error instanceof EventStreamFrameError)) throw error;
    if (error.code === 'truncated_frame') throw createTruncatedError(site, error.message);
    throw new ServerError({
      message: `${site.provider}: the event stream is malformed (${error.code}): ${error.message}`,
      provider: site.provider,
      providerCode: error.code === 'frame_too_large' ? 'response_too_large' : 'invalid_stream',
      retryable: error.code !== 'frame_too_large',
      ...(site.requestId === undefined ? {} : { requestId: site.requestId }),
    });
  }
}

/** Throws the classified error of an exception message (`throttlingException` → rate_limit, …). */
export function failWithException(context: ProviderContext, event: string, data: string): never {
  let payload: unknown;
  try {
    payload = parseJson(data);
  } catch {
    payload = { message: data.slice(0, 500) };
  }
  const type = event.slice(exceptionPrefix.length);
  context.fail(convertErrorBody(payload, type) ?? { code: type });
}

/**
 * Stream state: `messageStart` opens the message, block events go to the shared reader,
 * `messageStop` carries the stop reason and `metadata` the usage (in either order: recordings
 * have both). The stream is whole once `messageStop` arrived, over once `metadata` did too (the
 * body is not read further); a body that ends before `messageStop` is
 * `stream_truncated`. Unknown event types are skipped with a WARN (each kind once: `SkipWarnings`).
 */
class ConverseStream implements StreamParser {
  private readonly context: ProviderContext;
  private readonly builder: StreamBuilder;
  private readonly reader: ResponseReader;
  private readonly warnings: SkipWarnings;
  private stopped = false;
  /** `metadata` (the usage) arrived: with `messageStop`, the last event ConverseStream sends. */
  private measured = false;
  private readonly scanner = new DeltaScanner();

  constructor(context: ProviderContext, builder: StreamBuilder) {
    this.context = context;
    this.builder = builder;
    this.warnings = new SkipWarnings(context);
    this.reader = new ResponseReader(context, builder, this.warnings);
  }

  onEvent(event: string | undefined, data: string): void {
    // Hot path: text, tool-input and reasoning deltas are read in place (see DeltaScanner); every
    // other event, and any delta the scanner does not take, goes to JSON.parse.
    if (event === 'contentBlockDelta' && this.scanner.scan(data)) {
      this.reader.piece(this.scanner.index, this.scanner.kind, this.scanner.delta);
      return;
    }
    if (event?.startsWith(exceptionPrefix) === true) failWithException(this.context, event, data);
    const payload: unknown = parseJson(data);
    if (!isJsonObject(payload)) {
      this.warnings.skip('skipped unexpected stream content', 'an event that is not an object');
      return;
    }
    const index = typeof payload.contentBlockIndex === 'number' ? payload.contentBlockIndex : 0;
    switch (event) {
      case 'contentBlockDelta':
        this.reader.delta(index, isJsonObject(payload.delta) ? (payload.delta as WireDelta) : undefined);
        return;
      case 'messageStart':
        this.builder.start();
        return;
      case 'contentBlockStart':
        this.reader.start(index, payload.start);
        return;
      case 'contentBlockStop':
        this.reader.stop(index);
        return;
      case 'messageStop':
        this.onMessageStop(payload);
        return;
      case 'metadata':
        applyServiceTier(this.builder, payload);
        this.builder.usage(convertUsage(isJsonObject(payload.usage) ? payload.usage : undefined));
        applyResponseFields(this.builder, payload);
        this.measured = true;
        return;
      default:
        this.warnings.skip('skipped unexpected stream content', `an event of type ${eventName(event)}`);
    }
  }

  private onMessageStop(payload: Record<string, unknown>): void {
    if (this.reader.hasOpen) this.reader.stopAll();
    this.stopped = true;
    applyStopReason(this.builder, payload.stopReason, this.reader.droppedCalls);
    applyResponseFields(this.builder, payload);
  }

  isComplete(): boolean {
    return this.stopped;
  }

  /**
   * Both `messageStop` and `metadata` arrived (in either order): ConverseStream sends nothing after
   * them, so a server holding the connection open is not waited for (its idle timeout, 120 s).
   */
  isTerminated(): boolean {
    return this.stopped && this.measured;
  }

  onEnd(): void {
    if (!this.stopped) throw createTruncatedError(this.context, 'the body ended before messageStop');
  }
}

/** Creates the parser of one ConverseStream response; it drives `builder` and never emits events itself. */
export function createStreamParser(context: ProviderContext, builder: StreamBuilder): StreamParser {
  return new ConverseStream(context, builder);
}

/** An event type fit for a log line: the server's name when it is an identifier, else a placeholder. */
export function eventName(event: string | undefined): string {
  return event !== undefined && /^[A-Za-z0-9_.-]{1,64}$/.test(event) ? event : '(not an identifier)';
}
