/**
 * Mutation helpers for the kit's fault matrix: wrap a correct adapter (Anthropic's) and inject ONE
 * contract violation (brought in from the prober's /work/probe-kit/mutate.ts).
 */
import type { Adapter, CallOptions } from '../../../src/core/adapter.ts';
import { ResponseAccumulator } from '../../../src/core/accumulator.ts';
import type { StreamEvent } from '../../../src/core/events.ts';
import type { CanonicalRequest, CanonicalResponse } from '../../../src/core/request.ts';
import { createAnthropic } from '../../../src/providers/anthropic/index.ts';
import { createOpenAI } from '../../../src/providers/openai-chat/index.ts';
import type { AdapterSuiteSettings } from '../../../src/testing/index.ts';

/** The suite's settings, plus a `fetch` a mutant may put between the adapter and the emulator. */
export type Settings = AdapterSuiteSettings & { fetch?: typeof fetch };

/** Creates an adapter pointed at the emulator (what `runAdapterSuite` calls). */
export type Factory = (url: string, settings: Settings) => Adapter;

/** The correct adapter every mutant wraps. */
export const base: Factory = (url, settings) =>
  createAnthropic({ ...settings, apiKey: 'test-key', baseURL: `${url}/v1` });

/** A correct adapter of another protocol, for mutants of what only that protocol has (`retry-after-ms`). */
export const openaiBase: Factory = (url, settings) =>
  createOpenAI({ ...settings, apiKey: 'test-key', baseURL: `${url}/v1` });

/** What `adapter.stream()` returns. */
export type Stream = ReturnType<Adapter['stream']>;

/** A stream of our own: an async iterable with `result()`. */
export function asStream(
  iterate: () => AsyncIterator<StreamEvent>,
  result: () => Promise<CanonicalResponse>,
): Stream {
  return { [Symbol.asyncIterator]: iterate, result } as unknown as Stream;
}

/** Options of {@link mapStream}: `result` rewrites `result()`, `onError` swallows (undefined) or replaces the error. */
export interface MapOptions {
  result?: (response: CanonicalResponse) => CanonicalResponse;
  onError?: (error: unknown) => unknown;
}

/** Wraps a stream: `map` turns each event into zero or more. */
export function mapStream(
  inner: Stream,
  map: (event: StreamEvent) => StreamEvent[],
  options: MapOptions = {},
): Stream {
  async function* events(): AsyncGenerator<StreamEvent> {
    try {
      for await (const event of inner) yield* map(event);
    } catch (error) {
      const replaced = options.onError === undefined ? error : options.onError(error);
      if (replaced !== undefined) throw replaced;
    }
  }
  return asStream(
    () => events(),
    () => inner.result().then(options.result ?? ((response) => response)),
  );
}

/** An adapter whose methods are the inner adapter's, some replaced. */
export function wrap(inner: Adapter, overrides: Partial<Adapter>): Adapter {
  return {
    name: inner.name,
    protocol: inner.protocol,
    capabilities: (model) => inner.capabilities(model),
    complete: (request, options) => inner.complete(request, options),
    stream: (request, options) => inner.stream(request, options),
    estimateInputTokens: (input) => inner.estimateInputTokens(input),
    countInputTokens: inner.countInputTokens?.bind(inner),
    cancel: (id) => inner.cancel(id),
    close: () => inner.close(),
    listModels: (options) => inner.listModels(options),
    startSession: () => inner.startSession(),
    endSession: (session) => inner.endSession(session),
    ...overrides,
  };
}

/** A mutant that rewrites the stream's events (and optionally its result and error). */
export const streamMap =
  (map: (event: StreamEvent) => StreamEvent[], options?: MapOptions): Factory =>
  (url, settings) => {
    const inner = base(url, settings);
    return wrap(inner, { stream: (request, call) => mapStream(inner.stream(request, call), map, options) });
  };

/** A mutant that rewrites the request before the correct adapter sees it (a field silently dropped). */
export const requestMap =
  (change: (request: CanonicalRequest, adapter: Adapter) => CanonicalRequest): Factory =>
  (url, settings) => {
    const inner = base(url, settings);
    return wrap(inner, {
      complete: (request, options) => inner.complete(change(request, inner), options),
      stream: (request, options) => inner.stream(change(request, inner), options),
    });
  };

/** A mutant that rewrites every error both `complete()` and `stream()` throw. */
export const errorMap =
  (change: (error: unknown) => unknown): Factory =>
  (url, settings) => {
    const inner = base(url, settings);
    return wrap(inner, {
      complete: (request, options) =>
        inner.complete(request, options).catch((error: unknown) => {
          throw change(error);
        }),
      stream: (request, options) =>
        mapStream(inner.stream(request, options), (event) => [event], { onError: change }),
    });
  };

/** A field of an object without it. */
export function omit<T extends object>(value: T, key: string): T {
  const { [key]: _dropped, ...rest } = value as Record<string, unknown>;
  return rest as T;
}

/** The response with a part's field rewritten (`undefined` drops the part's field). */
export function mapParts(
  response: CanonicalResponse,
  change: (part: CanonicalResponse['content'][number]) => CanonicalResponse['content'][number],
): CanonicalResponse {
  return { ...response, content: response.content.map(change) };
}

/** The closing events of the parts still open, each marked incomplete. */
function closingEvents(open: Map<number, StreamEvent>): StreamEvent[] {
  const closing: StreamEvent[] = [];
  for (const [index, start] of open) {
    if (start.type === 'text-start') closing.push({ type: 'text-end', index, incomplete: true });
    else if (start.type === 'reasoning-start')
      closing.push({ type: 'reasoning-end', index, incomplete: true });
    else if (start.type === 'tool-call-start')
      closing.push({
        type: 'tool-call-end',
        index,
        id: start.id,
        input: {},
        incomplete: true,
      } as StreamEvent);
  }
  open.clear();
  return closing;
}

/**
 * A stream that reports `cancelled` to its consumer but never aborts the upstream request: the
 * signal is not passed on, and a consumer break does not return the inner iterator, which is read
 * on in the background to its end.
 */
export function fakeCancelStream(
  inner: Adapter,
  request: CanonicalRequest,
  options: CallOptions = {},
): Stream {
  const { signal, ...rest } = options;
  const upstream = inner.stream(request, rest);
  const iterator = upstream[Symbol.asyncIterator]();
  const accumulator = new ResponseAccumulator();
  const open = new Map<number, StreamEvent>();
  let start: Extract<StreamEvent, { type: 'message-start' }> | undefined;
  let cancelled: CanonicalResponse | undefined;
  const drain = async (): Promise<void> => {
    try {
      while (!(await iterator.next()).done);
    } catch {
      // The upstream's own end does not matter here: it was left running.
    }
  };
  const finish = (): StreamEvent => {
    cancelled = {
      requestId: (start?.requestId ?? 'req') as CanonicalResponse['requestId'],
      model: start?.model ?? request.model,
      provider: inner.name,
      content: accumulator.content(),
      finishReason: 'cancelled',
      usage: accumulator.usage(),
      latencyMs: 1,
    };
    return { type: 'finish', response: cancelled };
  };
  async function* events(): AsyncGenerator<StreamEvent> {
    try {
      for (;;) {
        const next = await iterator.next();
        if (next.done === true) return;
        const event = next.value;
        if (event.type === 'message-start') start = event;
        if (event.type.endsWith('-start') && 'index' in event) open.set(event.index, event);
        if (event.type.endsWith('-end') && 'index' in event) open.delete(event.index);
        accumulator.add(event);
        yield event;
        if (signal?.aborted === true) {
          for (const closing of closingEvents(open)) {
            accumulator.add(closing);
            yield closing;
          }
          yield finish();
          return;
        }
      }
    } finally {
      if (cancelled === undefined) {
        for (const closing of closingEvents(open)) accumulator.add(closing);
        finish();
      }
      void drain();
    }
  }
  let iterating = false;
  return asStream(
    () => {
      iterating = true;
      return events();
    },
    async () => (iterating && cancelled !== undefined ? cancelled : upstream.result()),
  );
}
