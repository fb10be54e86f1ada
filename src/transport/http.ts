/** HTTP over fetch with keep-alive pooling and three timeouts: whole call, first byte, idle gap. */
import type { Dispatcher } from 'undici';
import type { AdapterError } from '../core/errors/adapter-error.ts';
import { CancelledError } from '../core/errors/cancelled-error.ts';
import { createAdapterError } from '../core/errors/create-error.ts';
import { NetworkError } from '../core/errors/network-error.ts';
import { ServerError } from '../core/errors/server-error.ts';
import { redactUrl as redactUrlText, redactSecrets, secretHeaderValues } from '../core/redaction.ts';
import { abortCause } from './cancellation.ts';
import { LimitExceededError } from '../core/limit-exceeded.ts';
import { BodyDecodingError } from './body-errors.ts';
import { decodeUtf8, type HttpResponse } from './light-response.ts';
import { maxTimerMs } from '../core/timer-limit.ts';
import { yieldFullTurn } from './cooperative.ts';

/** Transport settings shared by every call of one adapter. */
export interface HttpClientOptions {
  /** A custom fetch (proxies, cassettes, tests). Default: undici on a keep-alive pool (see `dispatch.ts`). */
  fetch?: typeof fetch;
  /** Whole-call timeout, headers to last byte. Default 600 s. */
  timeoutMs?: number;
  /** Time allowed until response headers arrive. Default 120 s. */
  firstByteTimeoutMs?: number;
  /** Longest silence allowed between two body chunks. Default 120 s. */
  idleTimeoutMs?: number;
  /** Most open connections per origin in the default pool; further calls queue. Default 64. */
  maxConnections?: number;
  /**
   * The default transport's proxy: a proxy URL, `false` for none, or (default) the environment's
   * `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY` (either case), as curl and the provider SDKs do.
   */
  proxy?: string | false;
  /** Where the proxy variables are read. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Connections per origin of the default pool. */
export const defaultMaxConnections = 64;

/** The first non-empty variable of `environment` among `names`. */
function environmentValue(
  environment: Readonly<Record<string, string | undefined>>,
  ...names: string[]
): string | undefined {
  for (const name of names) {
    const value = environment[name]?.trim();
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

type Undici = typeof import('undici');

/** The default transport, loaded on the first call: undici's pooled dispatcher and our request over it. */
interface DefaultTransport {
  agent: Dispatcher;
  dispatch: typeof import('./dispatch.ts').dispatchRequest;
}

/**
 * The default transport: `undici` (~110 modules) and `dispatch.ts` (zlib, streams) imported on the
 * first call, never at start-up.
 */
async function createTransport(options: HttpClientOptions): Promise<DefaultTransport> {
  const [{ Agent, EnvHttpProxyAgent, ProxyAgent }, { dispatchRequest, socketOptions }]: [
    Undici,
    typeof import('./dispatch.ts'),
  ] = await Promise.all([import('undici'), import('./dispatch.ts')]);
  const agent = createDispatcher(options, { Agent, EnvHttpProxyAgent, ProxyAgent }, socketOptions);
  return { agent, dispatch: dispatchRequest };
}

/** The default transport's dispatcher: a keep-alive pool, behind a proxy when one is configured. */
function createDispatcher(
  options: HttpClientOptions,
  { Agent, EnvHttpProxyAgent, ProxyAgent }: Pick<Undici, 'Agent' | 'EnvHttpProxyAgent' | 'ProxyAgent'>,
  socketOptions: typeof import('./dispatch.ts').socketOptions,
): Dispatcher {
  const pool = {
    keepAliveTimeout: 30_000,
    connections: options.maxConnections ?? defaultMaxConnections,
    connect: socketOptions,
  };
  if (typeof options.proxy === 'string') return new ProxyAgent({ ...pool, uri: options.proxy });
  const environment = options.env ?? process.env;
  const httpProxy = environmentValue(environment, 'http_proxy', 'HTTP_PROXY');
  const httpsProxy = environmentValue(environment, 'https_proxy', 'HTTPS_PROXY');
  if (options.proxy === false || (httpProxy === undefined && httpsProxy === undefined))
    return new Agent(pool);
  return new EnvHttpProxyAgent({
    ...pool,
    httpProxy,
    httpsProxy: httpsProxy ?? httpProxy,
    noProxy: environmentValue(environment, 'no_proxy', 'NO_PROXY') ?? '',
  });
}

/** Request bodies longer than this give the event loop a turn before they are sent (see `send`). */
const largeBodyCharacters = 1024 * 1024;

/** One HTTP call. */
export interface HttpCall {
  method: 'GET' | 'POST' | 'DELETE' | 'PATCH';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Names the provider in error messages. */
  provider: string;
  requestId?: string;
  /**
   * The base URL `url` was built on (the adapter's configured one, or the request's own endpoint):
   * a redirect is followed only to a URL under it (same origin, path within its path), so a key
   * never travels to a path the user did not configure. Default: the directory of `url`.
   */
  base?: string;
}

/** The URL with secret query parameters (`key=`, `api_key=` …) replaced by `[REDACTED]`. */
export const redactUrl = redactUrlText;

/**
 * The per-attempt timers, bound to the attempt's AbortController: first byte (started when the
 * request is on the wire, not while it waits for a pooled connection) and idle gap. The whole-call
 * deadline is separate (`HttpClient.startDeadline`), so it also bounds retries and backoff.
 *
 * One Node timer serves both phases: it runs as the first-byte timer until the headers arrive, then
 * as the idle timer (re-armed with `refresh()` when both timeouts have the same length, as by
 * default: one timer per attempt instead of two).
 */
export class CallTimers {
  /** The first-byte timer until the headers arrive, then the idle timer (undefined while none runs). */
  private timer: NodeJS.Timeout | undefined;
  private phase: 'first-byte' | 'idle' = 'first-byte';
  private disposed = false;
  private sent = false;

  private readonly controller: AbortController;
  private readonly options: HttpClient['timeouts'];

  constructor(controller: AbortController, options: HttpClient['timeouts']) {
    this.controller = controller;
    this.options = options;
  }

  private readonly expire = (): void => {
    const which = this.phase;
    const ms = which === 'idle' ? this.options.idleTimeoutMs : this.options.firstByteTimeoutMs;
    this.controller.abort({ kind: 'timeout', which, ms });
  };

  /** The request was written to a socket: start the first-byte timer (once). */
  requestSent(): void {
    if (this.disposed || this.sent) return;
    this.sent = true;
    clearTimeout(this.timer);
    this.phase = 'first-byte';
    this.timer = setTimeout(this.expire, this.options.firstByteTimeoutMs);
  }

  /** Headers arrived: stop the first-byte timer, start the idle timer. */
  headersReceived(): void {
    const timer = this.timer;
    if (this.disposed) {
      clearTimeout(timer);
      this.timer = undefined;
      return;
    }
    const wasFirstByte = this.phase === 'first-byte' && timer !== undefined;
    this.phase = 'idle';
    if (wasFirstByte && this.options.firstByteTimeoutMs === this.options.idleTimeoutMs) {
      timer.refresh();
      return;
    }
    clearTimeout(timer);
    this.timer = setTimeout(this.expire, this.options.idleTimeoutMs);
  }

  /** A body chunk arrived: restart the idle timer (cheap: `refresh()` reuses the timer). */
  chunkReceived(): void {
    if (this.phase === 'idle') this.timer?.refresh();
  }

  /** The consumer is not reading, so neither are we: the server's silence is not idleness. */
  pauseIdle(): void {
    if (this.phase !== 'idle') return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Reading again after {@link pauseIdle}: the idle timer starts afresh. */
  resumeIdle(): void {
    if (this.disposed || this.timer !== undefined) return;
    this.phase = 'idle';
    this.timer = setTimeout(this.expire, this.options.idleTimeoutMs);
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** The longest delay a Node timer can wait (about 24.8 days); a longer one fires at once. */

/**
 * A timeout as a timer can wait it: clamped to {@link maxTimerMs} (`timeout_seconds: 1e9` would
 * otherwise overflow and fail every call in 1 ms); not a positive finite number → the default.
 */
function timerMs(value: number | undefined, fallback: number): number {
  if (value === undefined || !(value > 0)) return fallback;
  return Math.min(value, maxTimerMs);
}

/**
 * One idle, unreferenced interval per timeout length of a client. Node keeps one timer list per
 * duration and deletes it (a priority-queue removal) when its last timer is cleared, so a call's
 * timers, each cleared within the call, created and deleted three lists per call (~4 µs in the
 * fixed cost's profile). With one timer always in each list, starting and clearing a call's timers
 * is a list append and removal. The intervals do nothing and never keep the process alive.
 */
function keepTimerLists(timeouts: HttpClient['timeouts']): NodeJS.Timeout[] {
  const lengths = new Set([timeouts.timeoutMs, timeouts.firstByteTimeoutMs, timeouts.idleTimeoutMs]);
  return [...lengths].map((ms) => setInterval(() => {}, ms).unref());
}

/** A pooled HTTP client. `close()` releases its sockets. */
export class HttpClient {
  /** The default transport: options until the first call, then the transport being loaded, then it. */
  private transport: DefaultTransport | Promise<DefaultTransport> | undefined;
  private readonly transportOptions: HttpClientOptions | undefined;
  private readonly fetchFunction: typeof fetch | undefined;
  readonly timeouts: Required<Pick<HttpClientOptions, 'timeoutMs' | 'firstByteTimeoutMs' | 'idleTimeoutMs'>>;
  /** See {@link keepTimerLists}: created on the first call, cleared on `close()`. */
  private sentinels: NodeJS.Timeout[] | undefined;
  /** Set by `close()`: no new transport or timer lists after it (a late call would make ones nobody closes). */
  private closed = false;

  constructor(options: HttpClientOptions = {}) {
    this.timeouts = {
      timeoutMs: timerMs(options.timeoutMs, 600_000),
      firstByteTimeoutMs: timerMs(options.firstByteTimeoutMs, 120_000),
      idleTimeoutMs: timerMs(options.idleTimeoutMs, 120_000),
    };
    if (options.fetch !== undefined) this.fetchFunction = options.fetch;
    else this.transportOptions = options;
  }

  /** The default transport, loaded on the first call (a failed load is tried again by the next call). */
  private defaultTransport(): DefaultTransport | Promise<DefaultTransport> {
    if (this.closed) return Promise.reject(new Error('the HTTP client is closed'));
    if (this.transport === undefined) {
      const loading = createTransport(this.transportOptions!);
      this.transport = loading;
      loading.then(
        (transport) => {
          if (this.transport === loading) this.transport = transport;
        },
        () => {
          if (this.transport === loading) this.transport = undefined;
        },
      );
    }
    return this.transport;
  }

  /**
   * Starts the whole-call deadline on `controller` (covering every attempt, backoff included);
   * returns the function that clears it.
   */
  startDeadline(controller: AbortController): () => void {
    if (!this.closed) this.sentinels ??= keepTimerLists(this.timeouts);
    const ms = this.timeouts.timeoutMs;
    const timer = setTimeout(() => controller.abort({ kind: 'timeout', which: 'total', ms }), ms);
    return () => clearTimeout(timer);
  }

  /** Creates one attempt's timers on `controller`; dispose them when the body is consumed. */
  createTimers(controller: AbortController): CallTimers {
    return new CallTimers(controller, this.timeouts);
  }

  /**
   * Sends the call; resolves at the response headers. Failures become `NetworkError`/`CancelledError`.
   * A 301/302/307/308 is followed (at most 5, method, body and credentials kept) only when its
   * target is on the call's origin and under its base URL's path (`HttpCall.base`); any other
   * target is refused, so credentials and the body never reach an origin or path the user did not
   * configure. A 303 is refused: it asks for a GET without the body, which is not the call made.
   */
  async send(call: HttpCall, controller: AbortController, timers: CallTimers): Promise<HttpResponse> {
    const init: RequestInit = {
      method: call.method,
      headers: call.headers,
      signal: controller.signal,
      redirect: 'manual',
    };
    if (call.body !== undefined) init.body = call.body;
    // A large body was just written out (JSON.stringify, up to ~200 ms for 32 MiB) and is now
    // encoded to the socket (as long again): the event loop gets a turn between the two.
    if (call.body !== undefined && call.body.length > largeBodyCharacters) await yieldFullTurn();
    let url = call.url;
    for (let hops = 0; ; hops++) {
      let response: HttpResponse;
      try {
        response = await this.fetchOnce(url, init, timers);
      } catch (error) {
        throw toTransportError(error, call, controller.signal);
      }
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || location === null) {
        timers.headersReceived();
        return response;
      }
      await response.body?.cancel().catch(() => {});
      const target = redirectTarget(url, location);
      const refusal =
        hops >= maxRedirects ? 'too_many_redirects' : redirectRefusal(call, response.status, target);
      if (refusal !== undefined) throw refusedRedirect(call, response.status, target, refusal);
      url = target!.href;
    }
  }

  /** One request. Not `async`: once the transport is loaded, the dispatch's own promise is returned (no extra hop). */
  private fetchOnce(url: string, init: RequestInit, timers: CallTimers): Promise<HttpResponse> {
    if (this.fetchFunction !== undefined) {
      // A custom fetch gives no hook for "on the wire": its first-byte timer starts now.
      timers.requestSent();
      return this.fetchFunction(url, init);
    }
    const pending = this.defaultTransport();
    if (pending instanceof Promise)
      return pending.then((transport) => this.dispatchWith(transport, url, init, timers));
    return this.dispatchWith(pending, url, init, timers);
  }

  private dispatchWith(
    { agent, dispatch }: DefaultTransport,
    url: string,
    init: RequestInit,
    timers: CallTimers,
  ): Promise<HttpResponse> {
    return dispatch(agent, url, {
      method: init.method as string,
      headers: init.headers as Record<string, string>,
      body: init.body as string | undefined,
      signal: init.signal as AbortSignal,
      onSent: () => timers.requestSent(),
    });
  }

  /** Releases pooled connections. */
  async close(): Promise<void> {
    this.closed = true;
    for (const sentinel of this.sentinels ?? []) clearInterval(sentinel);
    this.sentinels = undefined;
    const transport = this.transport;
    this.transport = undefined;
    if (transport === undefined) return;
    // A transport that failed to load has nothing to release.
    const loaded = await Promise.resolve(transport).catch(() => undefined);
    await loaded?.agent.close();
  }
}

/** Default cap on a whole JSON response body (128 MiB): room for inline images, far below V8's limit. */
export const defaultMaxBodyBytes = 128 * 1024 * 1024;

/**
 * The classified error for a response (a JSON body, one SSE event, a streamed reply) larger than
 * its limit — a {@link LimitExceededError} raised where the limit is held, or the same fields: a
 * `server_error` with code `response_too_large`, not retried (the same request would get the same).
 */
export function responseTooLarge(
  call: HttpCall,
  {
    what,
    limit,
    unit = 'bytes',
  }: Pick<LimitExceededError, 'what' | 'limit'> & Partial<Pick<LimitExceededError, 'unit'>>,
): ServerError {
  return new ServerError({
    message: `${call.provider}: ${call.method} ${redactUrl(call.url)} sent ${what} larger than the limit of ${limit} ${unit}`,
    provider: call.provider,
    requestId: call.requestId,
    providerCode: 'response_too_large',
    retryable: false,
  });
}

/**
 * Reads a response body as text, restarting the idle timer on every chunk (so a slowly dripping
 * body is not cut by the idle timeout), up to `limit` bytes. Past the limit the body is cancelled
 * and, with `onLimit: 'fail'`, {@link responseTooLarge} is thrown; by default the text read so far
 * is returned (error bodies). Read failures become classified errors.
 */
export async function readText(
  response: HttpResponse,
  call: HttpCall,
  controller: AbortController,
  timers: CallTimers,
  limit = Number.POSITIVE_INFINITY,
  onLimit: 'truncate' | 'fail' = 'truncate',
): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      timers.chunkReceived();
      size += value.byteLength;
      chunks.push(value);
      if (onLimit === 'fail' ? size > limit : size >= limit) {
        await reader.cancel().catch(() => {});
        if (onLimit === 'fail') throw responseTooLarge(call, { what: 'a body', limit });
        break;
      }
    }
    // Inside the try: a body too long for one string fails classified, as the read does.
    return decodeUtf8(chunks, size);
  } catch (error) {
    if (error instanceof ServerError) throw error;
    throw toTransportError(error, call, controller.signal);
  }
}

const maxRedirects = 5;

function redirectTarget(url: string, location: string): URL | undefined {
  try {
    return new URL(location, url);
  } catch {
    return undefined;
  }
}

type RedirectRefusal =
  'too_many_redirects' | 'cross_origin_redirect' | 'redirect_outside_base_url' | 'see_other_redirect';

/**
 * Why a redirect to `target` is not followed, or undefined when it may be: another origin, a path
 * outside the call's base URL (`/v1` admits `/v1` and `/v1/…`, not `/v10` or `/steal`), or a 303.
 * `target` is already resolved by the URL parser, so dot segments (`/v1/../steal`) cannot escape.
 */
function redirectRefusal(
  call: HttpCall,
  status: number,
  target: URL | undefined,
): RedirectRefusal | undefined {
  const base = new URL(call.base ?? new URL('.', call.url).href);
  if (target === undefined || target.origin !== base.origin) return 'cross_origin_redirect';
  const prefix = base.pathname.replace(/\/+$/, '');
  if (target.pathname !== prefix && !target.pathname.startsWith(`${prefix}/`))
    return 'redirect_outside_base_url';
  if (status === 303) return 'see_other_redirect';
  return undefined;
}

/** A redirect we will not follow: classified `server_error`, not retried, the target named. */
function refusedRedirect(call: HttpCall, status: number, target: URL | undefined, refusal: RedirectRefusal) {
  const where = `${call.provider}: ${call.method} ${redactUrl(call.url)}`;
  const origin = new URL(call.url).origin;
  // Origin and path only: a target's query may carry what the upstream meant for someone else.
  const named =
    target === undefined ? 'an invalid location' : redactUrl(`${target.origin}${target.pathname}`);
  const reason = {
    too_many_redirects: `more than ${maxRedirects} redirects`,
    cross_origin_redirect: `a redirect to another origin (${target?.origin ?? 'an invalid location'}), refused so that credentials and the body stay with ${origin}`,
    redirect_outside_base_url: `a redirect outside the base URL (${named}), refused so that credentials and the body go only where the base URL points`,
    see_other_redirect: `a 303 redirect (${named}), refused: it asks for a GET without the body, not the call made`,
  }[refusal];
  return createAdapterError('server_error', {
    message: `${where} answered ${status} with ${reason}`,
    status,
    provider: call.provider,
    requestId: call.requestId,
    providerCode: refusal,
    retryable: false,
  });
}

/** Converts a fetch/body-read failure into a classified error naming provider, method and URL. */
export function toTransportError(error: unknown, call: HttpCall, signal: AbortSignal): AdapterError {
  const where = `${call.provider}: ${call.method} ${redactUrl(call.url)}`;
  if (error instanceof LimitExceededError && !signal.aborted) return responseTooLarge(call, error);
  if (error instanceof BodyDecodingError && !signal.aborted) {
    // The server sent bytes that are not what its content-encoding says: an invalid response,
    // retried like any other (a corrupt body is usually a broken hop, not the request's fault).
    return new ServerError({
      message: `${where} sent a body that does not decode as ${error.coding} (${error.reason})`,
      provider: call.provider,
      requestId: call.requestId,
      providerCode: 'invalid_response',
      retryable: true,
      cause: error,
    });
  }
  if (signal.aborted) {
    const cause = abortCause(signal);
    if (cause.kind === 'cancelled') {
      return new CancelledError({
        message: `${where} was cancelled`,
        provider: call.provider,
        requestId: call.requestId,
      });
    }
    return new NetworkError({
      message: `${where} timed out (${cause.which} timeout of ${cause.ms} ms)`,
      provider: call.provider,
      requestId: call.requestId,
      retryable: true,
      providerCode: `timeout_${cause.which}`,
    });
  }
  const parserError = isHttpParserError(error);
  const code = networkCode(error) ?? (parserError ? 'HPE_INVALID_RESPONSE' : undefined);
  if (code !== undefined && certificateCode.test(code))
    // The connection was refused by us, not the network: a new one gets the same certificate.
    return new NetworkError({
      message: `${where} failed: the upstream's TLS certificate does not verify (${code})`,
      provider: call.provider,
      requestId: call.requestId,
      retryable: false,
      providerCode: code,
      cause: error,
    });
  if (!isNetworkFailure(error, code)) {
    // Not a network failure (e.g. a custom fetch such as a cassette refusing the request): classified
    // `other`, not retried, with the original error as `cause`.
    return createAdapterError('other', {
      message: `${where} failed: ${redactHeaderValues(String((error as Error)?.message ?? error), call.headers)}`,
      provider: call.provider,
      requestId: call.requestId,
      retryable: false,
      cause: error,
    });
  }
  // A parser error's message is llhttp's reason ("Invalid status code"), never the server's bytes.
  const reason = parserError ? `${code} ${(error as Error).message}` : undefined;
  const detail = redactHeaderValues(
    String(reason ?? code ?? (error as Error)?.message ?? 'network error'),
    call.headers,
  );
  return new NetworkError({
    message: `${where} failed: ${detail}`,
    provider: call.provider,
    requestId: call.requestId,
    retryable: true,
    providerCode: code,
    cause: error,
  });
}

/** Removes the values of secret headers (and their Bearer tokens) and any key shape from a message. */
export function redactHeaderValues(text: string, headers: Record<string, string>): string {
  return redactSecrets(text, secretHeaderValues(headers));
}

/**
 * fetch rejects network failures with a TypeError (undici: "fetch failed", "terminated") or a coded
 * error. A response that is not HTTP/1.1 (undici's parser: `HPE_INVALID_CONSTANT`,
 * `HPE_INVALID_CHUNK_SIZE` …: a non-HTTP banner, a garbled status line, broken chunked framing)
 * counts as one too: the bytes on the connection were not a response, as when it resets, and a
 * new connection may well get a good one (often a middlebox, not the provider).
 */
function isNetworkFailure(error: unknown, code: string | undefined): boolean {
  if (error instanceof TypeError) return true;
  if ((error as { name?: unknown })?.name === 'AbortError') return true;
  return code !== undefined && /^(E[A-Z]+|UND_ERR|HPE_)/.test(code);
}

/**
 * Node's codes for a TLS certificate that does not verify: OpenSSL's verification results
 * (`DEPTH_ZERO_SELF_SIGNED_CERT`, `UNABLE_TO_VERIFY_LEAF_SIGNATURE`, `CERT_HAS_EXPIRED`, …) and
 * Node's own host check (`ERR_TLS_CERT_ALTNAME_INVALID`).
 */
const certificateCode =
  /^(?:DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_[A-Z_]+|CERT_[A-Z_]+|ERR_TLS_CERT_[A-Z_]+|HOSTNAME_MISMATCH|INVALID_CA|INVALID_PURPOSE|PATH_LENGTH_EXCEEDED)$/;

/** undici's parser error (its `code` is left undefined by undici 7: the llhttp table is looked up by number). */
function isHttpParserError(error: unknown): boolean {
  return (error as { name?: unknown })?.name === 'HTTPParserError';
}

function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
