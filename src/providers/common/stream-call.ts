/** `adapter.stream()`: one streamed call, pulled by its consumer, with retries before the first event. */
import type { AdapterSession, CallOptions } from '../../core/adapter.ts';
import { AdapterError } from '../../core/errors/adapter-error.ts';
import { markNotSent } from '../../core/errors/not-sent.ts';
import { ServerError } from '../../core/errors/server-error.ts';
import { isContentEvent } from '../../core/content-events.ts';
import { EventStream } from '../../core/event-stream.ts';
import { LimitExceededError } from '../../core/limit-exceeded.ts';
import type { StreamEvent } from '../../core/events.ts';
import { createRequestId, joinModelId } from '../../core/ids.ts';
import type { CanonicalRequest, CanonicalResponse } from '../../core/request.ts';
import { StreamBuilder, type StreamBuilderContext } from '../../core/stream-builder.ts';
import { abortCause } from '../../transport/cancellation.ts';
import { shouldYield, yieldToEventLoop } from '../../transport/cooperative.ts';
import {
  type CallTimers,
  type HttpCall,
  readText,
  redactUrl,
  responseTooLarge,
  toTransportError,
} from '../../transport/http.ts';
import type { HttpBodyReader } from '../../transport/light-response.ts';
import { withRetries } from '../../transport/retry.ts';
import { SseDecoder } from '../../transport/sse.ts';
import { type CallSetup, prepareCall, setup } from './call-setup.ts';
import { holdStopSequences } from './stop-sequences.ts';
import { holdOutputText } from './output-text.ts';
import { stripRepeatedPrefill } from './prefill.ts';
import type { StreamParser } from './definition.ts';
import { createTruncatedError } from './errors.ts';
import {
  asClassified,
  endSession,
  errorFromResponse,
  linkedController,
  parseJsonBody,
  readResponseHeaders,
  retryGateOf,
  sendAuthorized,
  withRequestId,
} from './http-exchange.ts';
import { checkedWireModel, type HttpRuntime, reportedId } from './http-runtime.ts';
import { estimateMissingUsage } from './usage-fallback.ts';
import { reportedModel, validateCall } from './validate-call.ts';

export function streamCall(runtime: HttpRuntime, request: CanonicalRequest, callOptions?: CallOptions) {
  const controller = new AbortController();
  const eventStream = new EventStream<StreamEvent, CanonicalResponse>(() =>
    controller.abort({ kind: 'cancelled' }),
  );
  // Whatever happens inside, the stream ends (finish, then the error): never an unhandled rejection.
  runStream(runtime, request, callOptions, controller, eventStream).catch((error: unknown) =>
    eventStream.fail(error),
  );
  cancelUndeliveredOnAbort(eventStream, callOptions?.signal);
  return eventStream;
}

async function runStream(
  runtime: HttpRuntime,
  untrustedRequest: CanonicalRequest,
  untrustedOptions: CallOptions | undefined,
  controller: AbortController,
  eventStream: EventStream<StreamEvent, CanonicalResponse>,
): Promise<void> {
  const { definition, http, registry, policy } = runtime;
  let delivered = false;
  let begun = false;
  const sink = (event: StreamEvent) => {
    delivered = true;
    if (!begun) begun = isContentEvent(event);
    eventStream.push(event);
  };
  const startedAt = performance.now();
  let validated: ReturnType<typeof validateCall>;
  let wire: string;
  try {
    validated = validateCall(definition.name, untrustedRequest, untrustedOptions);
    wire = checkedWireModel(runtime, validated.request);
  } catch (error) {
    const model = reportedId(runtime, reportedModel(untrustedRequest));
    const requestId = createRequestId();
    new StreamBuilder({ requestId, provider: definition.name, model, startedAt }, sink).finish('error');
    eventStream.fail(markNotSent(withRequestId(error, requestId)));
    return;
  }
  const { request, options: callOptions } = validated;
  const requestId = (request.requestId ??= createRequestId());
  const model = joinModelId(definition.name, wire);
  const builderContext: StreamBuilderContext = {
    requestId,
    provider: definition.name,
    provenance: undefined,
    model,
    startedAt,
  };
  // One builder per attempt; a call that fails before its first attempt gets one for its finish.
  let builder: StreamBuilder | undefined;
  const unregister = registry.register(requestId, controller, callOptions.signal);
  let implicitSession: AdapterSession | undefined;
  let settle: () => void;
  let callContext: CallSetup['context'] | undefined;
  // Until the first attempt, nothing was sent: the call's checks and the request's build.
  let attempted = false;
  const stopDeadline = http.startDeadline(controller);
  try {
    const callSetup = setup(runtime, request, callOptions, true, controller.signal, wire);
    callContext = callSetup.context;
    builderContext.provenance = callSetup.context.provenance;
    // Only a provider with provider-side state has a session-less call's state to release.
    if (callOptions.session === undefined && definition.endSession !== undefined)
      implicitSession = callSetup.context.session;
    const preparing = prepareCall(
      runtime,
      callSetup.request,
      callSetup,
      controller.signal,
      callOptions.headers,
    );
    if (preparing !== undefined) await preparing;
    attempted = true;
    await withRetries(
      async () => {
        builder = new StreamBuilder(builderContext, sink);
        holdStopSequences(callSetup.context, builder);
        holdOutputText(callSetup.context, builder);
        stripRepeatedPrefill(callSetup.context, builder);
        await streamAttempt(runtime, callSetup, builder, controller.signal, {
          demand: () => eventStream.demand(),
          begun: () => begun,
        });
      },
      {
        policy,
        signal: controller.signal,
        canRetry: () => !delivered,
        deadline: startedAt + http.timeouts.timeoutMs,
        onRetry: (info) => callOptions.onRetry?.({ ...info, requestId }),
        gate: retryGateOf(callOptions, requestId),
      },
    );
    const built = builder!;
    if (!built.hasUsage) estimateMissingUsage(built, request, definition, callSetup.context);
    const response = built.finish();
    settle = () => eventStream.end(response);
  } catch (error) {
    const classified = withRequestId(error, requestId);
    builder ??= new StreamBuilder(builderContext, sink);
    const cancelled = AdapterError.isInstance(classified) && classified.errorClass === 'cancelled';
    if (builder.stopped && !cancelled && callContext !== undefined) {
      // The reply had ended at a stop sequence; only the rest, read for its usage, failed: the
      // answer stands, its usage the estimate where the provider's never came.
      callContext.warn('the stream failed after the stop sequence that ended the reply: kept the reply', {
        reason: AdapterError.isInstance(classified)
          ? (classified.providerCode ?? classified.errorClass)
          : 'malformed data',
      });
      if (!builder.hasUsage) estimateMissingUsage(builder, request, definition, callContext);
      const response = builder.finish();
      settle = () => eventStream.end(response);
    } else if (cancelled) {
      const response = builder.finish('cancelled');
      settle = () => eventStream.end(response);
    } else {
      builder.finish('error');
      if (!attempted) markNotSent(classified);
      settle = () => eventStream.fail(classified);
    }
  } finally {
    stopDeadline();
    unregister();
    // The `finish` event is out; the stream ends once a session-less call's provider state is gone.
    if (implicitSession !== undefined) await endSession(runtime, implicitSession);
  }
  settle();
}

/** What an attempt asks of its consumer's stream. */
interface Consumer {
  /** Undefined while the consumer may take more; else resolves when it has read what waits. */
  demand: () => Promise<void> | undefined;
  /** Whether a content event (`isContentEvent`) has gone out. */
  begun: () => boolean;
}

/**
 * One streaming attempt. Pulled: before each read of the socket it waits for the consumer's
 * demand (`demand`), so an unread stream stops reading (the idle timer paused meanwhile), and it
 * yields to the event loop when the shared parsing slice is spent (see `cooperative.ts`).
 */
async function streamAttempt(
  runtime: HttpRuntime,
  callSetup: CallSetup,
  builder: StreamBuilder,
  signal: AbortSignal,
  { demand, begun }: Consumer,
): Promise<void> {
  const { definition, http, maxEventBytes, maxBodyBytes } = runtime;
  const { call, context } = callSetup;
  const attemptController = linkedController(signal);
  const timers = http.createTimers(attemptController);
  try {
    const response = await sendAuthorized(runtime, call, attemptController, timers);
    if (!response.ok) throw await errorFromResponse(runtime, response, call, attemptController, timers);
    readResponseHeaders(definition, response.headers, builder);
    const contentType = response.headers.get('content-type') ?? '';
    if (contentType.includes('text/html')) {
      // A 200 HTML page (a captive portal, a gateway's error page) is classified as on complete():
      // the provider sent a body that is not what the protocol promises.
      await response.body?.cancel().catch(() => {});
      throw invalidAnswer(call, 'invalid_response', 'returned an HTML page instead of a stream');
    }
    if (contentType.includes('application/json')) {
      // Some hosts answer a streaming request with one JSON body (often an error object).
      const body = parseJsonBody(
        await readText(response, call, attemptController, timers, maxBodyBytes, 'fail'),
        call,
      );
      definition.parseResponse(body, context, builder);
      return;
    }
    const parser: StreamParser = definition.createStreamParser(context, builder);
    const decoder =
      definition.createStreamDecoder?.(parser, maxEventBytes) ??
      new SseDecoder(
        (event, data) => parser.onEvent(event, data),
        maxEventBytes,
        parser.onStrayLine === undefined ? undefined : (line) => parser.onStrayLine!(line),
      );
    if (response.body === null)
      // A 204/205 answering a stream: no stream at all, an invalid response (retried like one).
      throw invalidAnswer(
        call,
        'invalid_stream',
        `answered ${response.status} without a body instead of a stream`,
      );
    const reading = {
      reader: response.body.getReader(),
      parser,
      decoder,
      timers,
      demand,
      begun,
      call,
    };
    const outcome = await readBody(reading, attemptController.signal, signal, context);
    // Only a body that ended flushes the decoder: after a stop, what it holds is not an event.
    if (outcome === 'ended') endDecoder(decoder, parser, signal, context);
    parser.onEnd();
  } catch (error) {
    throw asClassified(error, call, 'invalid_stream');
  } finally {
    timers.dispose();
  }
}

/** A 200 answer that is not a stream: a retryable `ServerError`. */
function invalidAnswer(call: HttpCall, providerCode: string, what: string): ServerError {
  return new ServerError({
    message: `${call.provider}: ${call.method} ${redactUrl(call.url)} ${what}`,
    provider: call.provider,
    providerCode,
    retryable: true,
  });
}

/** What reading one streamed body needs. */
interface BodyReading extends Consumer {
  reader: HttpBodyReader;
  parser: StreamParser;
  decoder: { feed(chunk: Uint8Array): void };
  timers: CallTimers;
  call: HttpCall;
}

/**
 * How reading a body ended: `ended` (the body did), `stopped` (the terminal event arrived, or nothing
 * came within the parser's quiet window after a whole response: the body was cancelled, its
 * connection closed), `broken` (the rest failed after the response was whole: kept, with a WARN).
 */
type BodyOutcome = 'ended' | 'stopped' | 'broken';

/**
 * Reads the body into the decoder as the consumer pulls, until it ends, the terminal event arrives
 * (`isTerminated`) or a whole response is followed by the parser's quiet window (`quietEndMs`).
 * A failure after the response was whole is `broken`; any other failure stops the body and is thrown.
 */
async function readBody(
  reading: BodyReading,
  attemptSignal: AbortSignal,
  callSignal: AbortSignal,
  context: CallSetup['context'],
): Promise<BodyOutcome> {
  const { reader, parser, decoder, timers, demand, begun, call } = reading;
  try {
    for (;;) {
      const paused = pace(demand, timers, attemptSignal);
      if (paused !== undefined) await paused;
      const quiet = parser.quietEndMs?.();
      let chunk: ReadableStreamReadResult<Uint8Array> | undefined;
      try {
        chunk = quiet === undefined ? await reader.read() : await readWithin(reader, quiet);
      } catch (error) {
        throw bodyReadError(error, call, attemptSignal);
      }
      if (chunk === undefined) {
        // The response was whole and nothing followed it: a server holding the connection open
        // is not waited for. Cancelling settles the pending read and closes the connection. With
        // undici 7.30 this also opens one spare connection to the origin, unused: the aborted
        // request stays at the head of its Client's queue (the socket closes with an
        // informational error, which re-queues it as pending) and the Client connects for it
        // before it sees the request was aborted (nodejs/undici#5845; fixed upstream by #5846).
        // Nothing here avoids it short of patching undici's Client: the connection must close.
        reader.cancel().catch(() => {});
        return 'stopped';
      }
      if (chunk.done) return 'ended';
      timers.chunkReceived();
      try {
        if (begun()) decoder.feed(chunk.value);
        else await feedToFirstContent(decoder, chunk.value, begun);
      } catch (error) {
        if (error instanceof LimitExceededError) throw responseTooLarge(call, error);
        throw error;
      }
      if (parser.isTerminated?.() === true) {
        // The terminal event arrived: a server holding the connection open is not waited for.
        closeAfterEnd(reader);
        return 'stopped';
      }
    }
  } catch (error) {
    // Stop the body (and its socket) when we give up on it mid-way.
    reader.cancel().catch(() => {});
    if (!keepsWholeResponse(parser, error, callSignal)) throw error;
    context.warn('ignored a failure of the stream after the response was complete', {
      reason: AdapterError.isInstance(error) ? (error.providerCode ?? error.errorClass) : 'malformed data',
    });
    return 'broken';
  }
}

/**
 * How long, after a stream's terminal event, the end of its body is awaited (off the caller's
 * path) before the body is cancelled and its connection closed.
 */
const bodyEndGraceMs = 50;

/**
 * After the terminal event (the stream is over for its consumer, who is not kept waiting): the
 * body's end, which a server that ends the response sends right after it (`[DONE]`, then the last
 * chunk a moment later), is awaited for {@link bodyEndGraceMs}, so that the connection goes back
 * to the pool. Anything else — more bytes, nothing (a server holding the connection open), a
 * failure — cancels the body, which closes the connection. Cancelling at once, as before, closed
 * the keep-alive connection of every stream whose end came in a later packet than its terminal
 * event (a new connection for the next call), and opened a spare one besides (see `readBody`).
 */
function closeAfterEnd(reader: HttpBodyReader): void {
  // The common case: the end came with the terminal event (one read), nothing to wait for.
  if (reader.ended === true) return;
  readWithin(reader, bodyEndGraceMs).then(
    (chunk) => {
      if (chunk?.done !== true) reader.cancel().catch(() => {});
    },
    () => reader.cancel().catch(() => {}),
  );
}

/**
 * The next read, or undefined when nothing came within `ms` (the read stays pending: the caller
 * cancels the body, which settles it). A read that fails later is handled by the race, not unhandled.
 */
async function readWithin(
  reader: HttpBodyReader,
  ms: number,
): Promise<ReadableStreamReadResult<Uint8Array> | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const quiet = new Promise<undefined>((resolve) => {
    // The window ends after the loop's next poll, not in the timers phase: bytes that arrived while
    // the process was busy (a long turn of other work) are read first and win the race.
    timer = setTimeout(() => setImmediate(resolve, undefined), ms);
  });
  try {
    return await Promise.race([reader.read(), quiet]);
  } finally {
    clearTimeout(timer);
  }
}

/** Most slices a read is fed in before its first content (the rest goes in one). */
const maxFirstSlices = 8;

/**
 * Feeds a read taken before the stream's first content event one SSE event at a time, and once
 * that content is out, gives its consumer a turn of the event loop before the rest of the read:
 * several events can arrive in one read (a short reply whole, a host that buffers, a replayed
 * reply), and the first content then reaches the consumer — a gateway's client — without waiting
 * for the rest to be decoded. Every read, not only large ones: for a 2 KB reply in one read the
 * gateway's first streamed byte came sooner in 8 of 9 interleaved runs of `STREAM=1 node
 * bench/gateway-ab.ts` (4 of 4 with its default warm-up, by 13–87 µs), its end ~45 µs later
 * (`END=1`: the extra turn and a second write); once content is out, reads are decoded whole. Slices end after a blank line; any
 * split is safe (every decoder takes a chunk cut anywhere), so the binary and JSON-array framings
 * are only cut where they happen to hold one.
 */
async function feedToFirstContent(
  decoder: { feed(chunk: Uint8Array): void },
  bytes: Uint8Array,
  begun: () => boolean,
): Promise<void> {
  let from = 0;
  for (let slices = 1; from < bytes.length; slices++) {
    const end = slices < maxFirstSlices ? afterBlankLine(bytes, from) : bytes.length;
    decoder.feed(from === 0 && end === bytes.length ? bytes : bytes.subarray(from, end));
    from = end;
    if (begun() && from < bytes.length) {
      await yieldToEventLoop();
      decoder.feed(bytes.subarray(from));
      return;
    }
  }
}

/** The index after the next blank line (`\n\n` or `\n\r\n`) from `from`, or the end of `bytes`. */
function afterBlankLine(bytes: Uint8Array, from: number): number {
  for (let newline = bytes.indexOf(0x0a, from); newline !== -1; newline = bytes.indexOf(0x0a, newline + 1)) {
    const next = bytes[newline + 1];
    if (next === 0x0a) return newline + 2;
    if (next === 0x0d && bytes[newline + 2] === 0x0a) return newline + 3;
  }
  return bytes.length;
}

/**
 * The end of the body: a message cut short there (a trailing frame after the response was whole,
 * e.g. Bedrock's metadata after `messageStop`) is ignored with the WARN, as a failure of the rest of
 * the body is in {@link readBody}; otherwise it fails the stream.
 */
function endDecoder(
  decoder: { end(): void },
  parser: StreamParser,
  signal: AbortSignal,
  context: CallSetup['context'],
): void {
  try {
    decoder.end();
  } catch (error) {
    if (!keepsWholeResponse(parser, error, signal)) throw error;
    context.warn('ignored a failure of the stream after the response was complete', {
      reason: AdapterError.isInstance(error) ? (error.providerCode ?? error.errorClass) : 'malformed data',
    });
  }
}

/**
 * Whether a failure of the rest of the body leaves the response as it is: the parser says it is
 * whole, and the caller did not cancel (a cancellation ends the call as cancelled, whole or not).
 */
function keepsWholeResponse(parser: StreamParser, error: unknown, signal: AbortSignal): boolean {
  if (parser.isComplete?.() !== true) return false;
  if (signal.aborted && abortCause(signal).kind === 'cancelled') return false;
  return !(AdapterError.isInstance(error) && error.errorClass === 'cancelled');
}

/**
 * A failure reading an accepted stream's body. The connection closing under it (reset, socket
 * closed) cuts the response short: `stream_truncated`, with the transport error as `cause`.
 * Cancellation and timeouts keep their own classification.
 */
function bodyReadError(error: unknown, call: HttpCall, signal: AbortSignal): AdapterError {
  const transport = toTransportError(error, call, signal);
  if (signal.aborted || transport.errorClass !== 'network') return transport;
  const code = transport.providerCode ?? 'network error';
  return createTruncatedError(call, `the connection closed during the body (${code})`, transport);
}

/**
 * Waits until the consumer wants more (the idle timer paused meanwhile: a slow reader is not a
 * silent server), or the call is aborted; then, while this macrotask's parsing slice is spent,
 * yields to the event loop. Returns undefined in the common case (nothing to wait for, no promise).
 */
function pace(
  demand: () => Promise<void> | undefined,
  timers: CallTimers,
  signal: AbortSignal,
): Promise<void> | undefined {
  const wanted = signal.aborted ? undefined : demand();
  if (wanted !== undefined) return waitForDemand(wanted, timers, signal);
  return shouldYield() ? yieldWhileBusy(signal) : undefined;
}

async function waitForDemand(wanted: Promise<void>, timers: CallTimers, signal: AbortSignal): Promise<void> {
  timers.pauseIdle();
  await untilAborted(wanted, signal);
  timers.resumeIdle();
  await yieldWhileBusy(signal);
}

async function yieldWhileBusy(signal: AbortSignal): Promise<void> {
  do await yieldToEventLoop();
  while (shouldYield() && !signal.aborted);
}

/** Resolves when `promise` does or `signal` aborts, whichever comes first. */
function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = () => resolve();
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

/**
 * Once the consumer aborts (its `signal`), the next event it sees is a `cancelled` finish — unless
 * it had already received the finish: a finish still buffered (the response completed while the
 * consumer was behind) is replaced, with the events before it, by the same response marked
 * `cancelled`, and `result()` resolves to that.
 */
function cancelUndeliveredOnAbort(
  eventStream: EventStream<StreamEvent, CanonicalResponse>,
  signal: unknown,
): void {
  if (!(signal instanceof AbortSignal)) return;
  const onAbort = () =>
    eventStream.replaceUndelivered((undelivered) => {
      const finish = undelivered.findLast((event) => event.type === 'finish');
      if (finish === undefined || finish.type !== 'finish') return undefined;
      const response: CanonicalResponse = { ...finish.response, finishReason: 'cancelled' };
      return { events: [{ type: 'finish', response }], result: response };
    });
  if (signal.aborted) return;
  signal.addEventListener('abort', onAbort, { once: true });
  // Until the consumer has read the last event there may be something to replace: keep listening
  // until the stream has settled and the consumer has read (or dropped) all of it — not longer, or
  // a long-lived signal shared by many calls would hold every finished stream.
  void eventStream
    .settled()
    .then(() => eventStream.drained())
    .then(() => signal.removeEventListener('abort', onAbort));
}
