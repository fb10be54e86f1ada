/** The shared runtime that turns a ProviderDefinition into an Adapter: retries, streaming, cancellation. */
import { type Adapter, type AdapterSession, type CallOptions, createSession } from '../../core/adapter.ts';
import { withCapabilityOverrides } from '../../core/capabilities.ts';
import { AdapterError } from '../../core/errors/adapter-error.ts';
import { AuthError } from '../../core/errors/auth-error.ts';
import { ServerError } from '../../core/errors/server-error.ts';
import { EventStream } from '../../core/event-stream.ts';
import type { StreamEvent } from '../../core/events.ts';
import { createRequestId, type RequestId } from '../../core/ids.ts';
import { assertModelName, modelNameProblem } from '../../core/model-name.ts';
import {
  CREDENTIAL_HEADER_NAMES,
  redactError,
  redactFields,
  redactSecrets,
  registerSecrets,
  secretHeaderValues,
  urlCredentials,
} from '../../core/redaction.ts';
import type { JsonObject } from '../../core/json.ts';
import { createConsoleLogger } from '../../core/logger.ts';
import type { CanonicalRequest, CanonicalResponse } from '../../core/request.ts';
import { StreamBuilder } from '../../core/stream-builder.ts';
import { abortCause, CancellationRegistry } from '../../transport/cancellation.ts';
import { shouldYield, yieldToEventLoop } from '../../transport/cooperative.ts';
import {
  type CallTimers,
  defaultMaxBodyBytes,
  type HttpCall,
  HttpClient,
  readText,
  redactUrl,
  responseTooLarge,
  toTransportError,
} from '../../transport/http.ts';
import { parseRetryAfter, type RetryGateHook, withRetries } from '../../transport/retry.ts';
import { defaultMaxEventBytes, SseDecoder, SseEventTooLargeError } from '../../transport/sse.ts';
import type { ProviderContext, ProviderDefinition, StreamParser } from './definition.ts';
import { createProviderError, createTruncatedError, type FailureSite } from './errors.ts';
import { preflight } from './preflight.ts';
import { estimateMissingUsage } from './usage-fallback.ts';
import { estimateChecked, reportedModel, validateCall } from './validate-call.ts';
import { type AdapterOptions, type CredentialSource, resolveApiKey, resolveBaseURL } from './options.ts';

const maxErrorBodyBytes = 64 * 1024;

/** Everything one call needs, resolved once. */
interface CallSetup {
  /** The request to send: the validated one after the pre-flight check (e.g. an unusable `cache` dropped). */
  request: CanonicalRequest;
  requestId: RequestId;
  context: ProviderContext;
  call: HttpCall;
  startedAt: number;
}

/** Creates an Adapter from a provider definition and the user's options. */
export function createHttpAdapter(
  definition: ProviderDefinition,
  options: AdapterOptions & { credentials?: CredentialSource },
): Adapter {
  const http = new HttpClient({
    fetch: options.fetch,
    timeoutMs: options.timeout,
    firstByteTimeoutMs: options.firstByteTimeout,
    idleTimeoutMs: options.idleTimeout,
    maxConnections: options.maxConnections,
    proxy: options.proxy,
    env: options.env,
  });
  const registry = new CancellationRegistry();
  const logger = options.logger ?? createConsoleLogger({ level: options.logLevel });
  const credentials = options.credentials;
  const environment = options.env ?? process.env;
  const apiKey = resolveApiKey(options.apiKey, credentials?.apiKeyVariables ?? [], environment);
  const baseURL = (
    options.baseURL ??
    resolveBaseURL(credentials?.baseURLVariables ?? [], environment) ??
    definition.baseURL
  ).replace(/\/+$/, '');
  const baseURLProblem = urlProblem(baseURL);
  // Every secret this adapter holds is known to every redaction in the process from now on.
  registerSecrets([apiKey, ...secretHeaderValues(options.headers), ...urlCredentials(baseURL)]);
  const policy = { maxRetries: options.maxRetries ?? 2, baseDelayMs: options.retryBaseDelay };
  const maxEventBytes = options.maxEventBytes ?? defaultMaxEventBytes;
  const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
  /** The adapter's declared capabilities with the user's `capabilities` / `models` overrides on top. */
  const capabilitiesOf = withCapabilityOverrides((model) => definition.capabilities(model), options);

  /**
   * Credentials are checked per call, never at creation: a call without a key (and no credential
   * header of the user's own) fails before any HTTP call with `AuthError` `not_configured`.
   */
  function assertConfigured(callHeaders?: Record<string, string>): void {
    if (baseURLProblem !== undefined) {
      // A configuration mistake, not a network failure: never retried, never failed over.
      throw new AdapterError({
        message: `${definition.name}: invalid base URL (${baseURLProblem}); fix the adapter's baseURL / base_url`,
        provider: definition.name,
        providerCode: 'invalid_base_url',
        retryable: false,
      });
    }
    if (apiKey !== undefined && /[^\x21-\x7e]/.test(apiKey)) {
      // Caught here, because fetch would echo the whole header value (the key) in its error.
      throw new AuthError({
        message: `${definition.name}: the API key contains whitespace or non-printable characters (not shown)`,
        provider: definition.name,
        providerCode: 'invalid_api_key_format',
      });
    }
    if (apiKey !== undefined || credentials?.apiKeyRequired !== true) return;
    if (hasCredentialHeader(options.headers) || hasCredentialHeader(callHeaders)) return;
    const variables = credentials.apiKeyVariables;
    const hint = variables.length === 0 ? '' : ` or set ${variables.join(' or ')}`;
    throw new AuthError({
      message: `${definition.name}: no API key: pass apiKey${hint}`,
      provider: definition.name,
      providerCode: 'not_configured',
    });
  }

  /** The wire model name: the `provider:` prefix is stripped only when it names this adapter (`qwen3:8b` stays whole). */
  function wireModelName(model: string): string {
    const prefix = `${definition.name}:`;
    return model.startsWith(prefix) ? model.slice(prefix.length) : model;
  }

  /** The wire model name, checked against the protocol's grammar before it goes anywhere (URL, body, log). */
  function checkedWireModel(model: string): string {
    const wire = wireModelName(model);
    assertModelName(wire, definition.protocol, definition.name);
    return wire;
  }

  /** The canonical id to report for a request's model: its own when valid, never a hostile name. */
  function reportedId(model: string): string {
    const wire = wireModelName(model);
    return `${definition.name}:${modelNameProblem(wire, definition.protocol) === undefined ? wire : 'invalid-model-name'}`;
  }

  function headersFor(extra: Record<string, string> | undefined, callHeaders?: Record<string, string>) {
    return { ...definition.headers(apiKey), ...options.headers, ...extra, ...callHeaders };
  }

  function failureSite(call: HttpCall): FailureSite {
    return { provider: definition.name, method: call.method, url: call.url, requestId: call.requestId };
  }

  /** The call with the provider's per-attempt credentials added (SigV4, OAuth), or as is. */
  async function authorized(
    call: HttpCall,
    refresh: boolean,
  ): Promise<{ call: HttpCall; refreshable: boolean }> {
    if (definition.authorize === undefined) return { call, refreshable: false };
    const input = { method: call.method, url: call.url, headers: call.headers, body: call.body };
    const authorization = await definition.authorize(input, refresh);
    return {
      call: { ...call, headers: { ...call.headers, ...authorization.headers } },
      refreshable: authorization.refreshable,
    };
  }

  /**
   * Sends one attempt. With refreshable credentials, a 401/403 answer is retried once with fresh
   * ones (an expired token); a second refusal is the provider's `auth` error.
   */
  async function sendAuthorized(call: HttpCall, controller: AbortController, timers: CallTimers) {
    const first = await authorized(call, false);
    const response = await http.send(first.call, controller, timers);
    if (!first.refreshable || (response.status !== 401 && response.status !== 403)) return response;
    await response.body?.cancel().catch(() => {});
    return http.send((await authorized(call, true)).call, controller, timers);
  }

  async function errorFromResponse(
    response: Response,
    call: HttpCall,
    controller: AbortController,
    timers: CallTimers,
  ): Promise<AdapterError> {
    const text = await readText(response, call, controller, timers, maxErrorBodyBytes).catch(() => '');
    // Aborted while the error body was read: the abort's class (cancelled, timeout) wins.
    if (controller.signal.aborted) return toTransportError(undefined, call, controller.signal);
    return createProviderError({
      site: failureSite(call),
      status: response.status,
      body: definition.parseErrorBody(text),
      rules: definition.errorRules,
      retryAfterSeconds: parseRetryAfter(response.headers, response.status),
      apiKey,
    });
  }

  async function fetchJson(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: JsonObject,
    signal?: AbortSignal,
  ) {
    const call: HttpCall = {
      method,
      url: baseURL + path,
      headers: headersFor({ 'content-type': 'application/json' }),
      provider: definition.name,
    };
    if (body !== undefined) call.body = JSON.stringify(body);
    assertConfigured();
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const stopDeadline = http.startDeadline(controller);
    const timers = http.createTimers(controller);
    try {
      const response = await sendAuthorized(call, controller, timers);
      if (!response.ok) throw await errorFromResponse(response, call, controller, timers);
      return parseJsonBody(await readText(response, call, controller, timers, maxBodyBytes, 'fail'), call);
    } finally {
      timers.dispose();
      stopDeadline();
      signal?.removeEventListener('abort', onAbort);
    }
  }

  let closed = false;
  /** Sessions whose calls may have created provider-side state (only for providers that have any). */
  const liveSessions = new Set<AdapterSession>();

  async function endSession(session: AdapterSession): Promise<void> {
    if (!liveSessions.delete(session) || definition.endSession === undefined) return;
    const warn = (message: string, fields: Record<string, unknown>) =>
      logger.warn(message, { adapter: definition.name, sessionId: session.id, ...fields });
    try {
      await definition.endSession(session, {
        provider: definition.name,
        fetchJson: (method, path, body) => fetchJson(method, path, body),
        warn,
      });
    } catch (error) {
      warn('could not release provider-side session state', { reason: String(error) });
    }
  }
  let closing: Promise<void> | undefined;

  /** Calls after `close()` fail at once (not retried, never reported as a network error). */
  function assertOpen(): void {
    if (closed) {
      throw new AdapterError({
        message: `${definition.name}: the adapter was closed; create a new one`,
        provider: definition.name,
        providerCode: 'adapter_closed',
      });
    }
  }

  /**
   * Resolves one call. `request` is the call's own object (the boundary's parsed copy, or the
   * router's request built for this call): its request id is set here, once, and it is not copied.
   */
  function setup(
    request: CanonicalRequest,
    options: CallOptions,
    stream: boolean,
    signal: AbortSignal,
    wire?: string,
  ): CallSetup {
    assertOpen();
    assertConfigured(options.headers);
    const requestId = (request.requestId ??= createRequestId());
    const session = options.session ?? createSession();
    const model = wire ?? checkedWireModel(request.model);
    if (definition.endSession !== undefined) liveSessions.add(session);
    const call: HttpCall = {
      method: 'POST',
      url: baseURL,
      headers: {},
      provider: definition.name,
      requestId,
    };
    const context: ProviderContext = {
      requestId,
      provider: definition.name,
      model,
      capabilities: capabilitiesOf(model),
      session,
      logger,
      stream,
      warn(message, fields) {
        // Every logger, the user's included, gets redacted text: no key shape, no API key.
        const entry = { adapter: definition.name, requestId, sessionId: session.id, ...fields };
        logger.warn(redactSecrets(message, [apiKey]), redactFields(entry, 0, [apiKey]) as typeof entry);
      },
      fail(body, status) {
        throw createProviderError({
          site: failureSite(call),
          status,
          body,
          rules: definition.errorRules,
          apiKey,
        });
      },
      // The call's own signal: cancel(requestId), a consumer's break and close() abort it too.
      fetchJson: (method, path, body) => fetchJson(method, path, body, signal),
    };
    // The one pre-flight check of every declared capability, before any HTTP call.
    const checked = preflight(request, context.capabilities, {
      provider: definition.name,
      model,
      estimateInputTokens: (input) => definition.estimateInputTokens(input),
      warn: (message, fields) => context.warn(message, fields),
    });
    return { request: checked, requestId, context, call, startedAt: performance.now() };
  }

  async function prepareCall(
    request: CanonicalRequest,
    callSetup: CallSetup,
    signal: AbortSignal,
    callHeaders?: Record<string, string>,
  ) {
    await definition.prepare?.(request, callSetup.context);
    if (signal.aborted) throw toTransportError(signal.reason, callSetup.call, signal);
    const wire = definition.buildRequest(request, callSetup.context);
    // A request's own endpoint applies unless the user (option or variable) chose the endpoint.
    const base =
      wire.baseURL !== undefined && baseURL === definition.baseURL.replace(/\/+$/, '')
        ? wire.baseURL
        : baseURL;
    callSetup.call.url = base + wire.path;
    callSetup.call.headers = headersFor({ 'content-type': 'application/json', ...wire.headers }, callHeaders);
    callSetup.call.body = JSON.stringify(wire.body);
  }

  async function complete(
    untrustedRequest: CanonicalRequest,
    untrustedOptions?: CallOptions,
  ): Promise<CanonicalResponse> {
    const { request, options: callOptions } = validateCall(
      definition.name,
      untrustedRequest,
      untrustedOptions,
    );
    const controller = new AbortController();
    const callSetup = setup(request, callOptions, false, controller.signal);
    const { requestId, context, call } = callSetup;
    const unregister = registry.register(requestId, controller, callOptions.signal);
    const stopDeadline = http.startDeadline(controller);
    try {
      await prepareCall(callSetup.request, callSetup, controller.signal, callOptions.headers);
      return await withRetries(
        async () => {
          const attemptController = linkedController(controller.signal);
          const timers = http.createTimers(attemptController);
          try {
            const response = await sendAuthorized(call, attemptController, timers);
            if (!response.ok) throw await errorFromResponse(response, call, attemptController, timers);
            const body = parseJsonBody(
              await readText(response, call, attemptController, timers, maxBodyBytes, 'fail'),
              call,
            );
            const builder = new StreamBuilder(
              {
                requestId,
                provider: definition.name,
                model: `${definition.name}:${context.model}`,
                startedAt: callSetup.startedAt,
              },
              () => {},
            );
            try {
              definition.parseResponse(body, context, builder);
            } catch (error) {
              throw asClassified(error, call, 'invalid_response');
            }
            if (!builder.hasUsage) estimateMissingUsage(builder, request, definition, context);
            return builder.finish();
          } finally {
            timers.dispose();
          }
        },
        {
          policy,
          signal: controller.signal,
          deadline: callSetup.startedAt + http.timeouts.timeoutMs,
          onRetry: (info) => callOptions.onRetry?.({ ...info, requestId }),
          gate: retryGateOf(callOptions, requestId),
        },
      );
    } catch (error) {
      throw withRequestId(error, requestId);
    } finally {
      stopDeadline();
      unregister();
      // A call without a session: nobody can reuse what it created provider-side.
      if (callOptions.session === undefined) await endSession(callSetup.context.session);
    }
  }

  function stream(request: CanonicalRequest, callOptions?: CallOptions) {
    const controller = new AbortController();
    const eventStream = new EventStream<StreamEvent, CanonicalResponse>(() =>
      controller.abort({ kind: 'cancelled' }),
    );
    // Whatever happens inside, the stream ends (finish, then the error): never an unhandled rejection.
    runStream(request, callOptions, controller, eventStream).catch((error: unknown) =>
      eventStream.fail(error),
    );
    cancelUndeliveredOnAbort(eventStream, callOptions?.signal);
    return eventStream;
  }

  async function runStream(
    untrustedRequest: CanonicalRequest,
    untrustedOptions: CallOptions | undefined,
    controller: AbortController,
    eventStream: EventStream<StreamEvent, CanonicalResponse>,
  ): Promise<void> {
    let delivered = false;
    const sink = (event: StreamEvent) => {
      delivered = true;
      eventStream.push(event);
    };
    const startedAt = performance.now();
    let validated: ReturnType<typeof validateCall>;
    let wire: string;
    try {
      validated = validateCall(definition.name, untrustedRequest, untrustedOptions);
      wire = checkedWireModel(validated.request.model);
    } catch (error) {
      const model = reportedId(reportedModel(untrustedRequest));
      const requestId = createRequestId();
      new StreamBuilder({ requestId, provider: definition.name, model, startedAt }, sink).finish('error');
      eventStream.fail(withRequestId(error, requestId));
      return;
    }
    const { request, options: callOptions } = validated;
    const requestId = (request.requestId ??= createRequestId());
    const model = `${definition.name}:${wire}`;
    let builder = new StreamBuilder({ requestId, provider: definition.name, model, startedAt }, sink);
    const unregister = registry.register(requestId, controller, callOptions.signal);
    let implicitSession: AdapterSession | undefined;
    let settle: () => void;
    const stopDeadline = http.startDeadline(controller);
    try {
      const callSetup = setup(request, callOptions, true, controller.signal, wire);
      implicitSession = callOptions.session === undefined ? callSetup.context.session : undefined;
      await prepareCall(callSetup.request, callSetup, controller.signal, callOptions.headers);
      await withRetries(
        async () => {
          builder = new StreamBuilder({ requestId, provider: definition.name, model, startedAt }, sink);
          await streamAttempt(callSetup, builder, controller.signal, () => eventStream.demand());
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
      if (!builder.hasUsage) estimateMissingUsage(builder, request, definition, callSetup.context);
      const response = builder.finish();
      settle = () => eventStream.end(response);
    } catch (error) {
      const classified = withRequestId(error, requestId);
      if (AdapterError.isInstance(classified) && classified.errorClass === 'cancelled') {
        const response = builder.finish('cancelled');
        settle = () => eventStream.end(response);
      } else {
        builder.finish('error');
        settle = () => eventStream.fail(classified);
      }
    } finally {
      stopDeadline();
      unregister();
      // The `finish` event is out; the stream ends once a session-less call's provider state is gone.
      if (implicitSession !== undefined) await endSession(implicitSession);
    }
    settle();
  }

  /**
   * One streaming attempt. Pulled: before each read of the socket it waits for the consumer's
   * demand (`demand`), so an unread stream stops reading (the idle timer paused meanwhile), and it
   * yields to the event loop when the shared parsing slice is spent (see `cooperative.ts`).
   */
  async function streamAttempt(
    callSetup: CallSetup,
    builder: StreamBuilder,
    signal: AbortSignal,
    demand: () => Promise<void> | undefined,
  ): Promise<void> {
    const { call, context } = callSetup;
    const attemptController = linkedController(signal);
    const timers = http.createTimers(attemptController);
    try {
      const response = await sendAuthorized(call, attemptController, timers);
      if (!response.ok) throw await errorFromResponse(response, call, attemptController, timers);
      const contentType = response.headers.get('content-type') ?? '';
      if (contentType.includes('text/html')) {
        // A 200 HTML page (a captive portal, a gateway's error page) is classified as on complete():
        // the provider sent a body that is not what the protocol promises.
        await response.body?.cancel().catch(() => {});
        throw new ServerError({
          message: `${call.provider}: ${call.method} ${redactUrl(call.url)} returned an HTML page instead of a stream`,
          provider: call.provider,
          providerCode: 'invalid_response',
          retryable: true,
        });
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
        new SseDecoder((event, data) => parser.onEvent(event, data), maxEventBytes);
      if (response.body === null)
        // A 204/205 answering a stream: no stream at all, an invalid response (retried like one).
        throw new ServerError({
          message: `${call.provider}: ${call.method} ${redactUrl(call.url)} answered ${response.status} without a body instead of a stream`,
          provider: call.provider,
          providerCode: 'invalid_stream',
          retryable: true,
        });
      const reader = response.body.getReader();
      /** Set when the rest of the body failed after the response was whole: what came is kept. */
      let abandoned = false;
      try {
        for (;;) {
          const paused = pace(demand, timers, attemptController.signal);
          if (paused !== undefined) await paused;
          let chunk: ReadableStreamReadResult<Uint8Array>;
          try {
            chunk = await reader.read();
          } catch (error) {
            throw bodyReadError(error, call, attemptController.signal);
          }
          if (chunk.done) break;
          timers.chunkReceived();
          try {
            decoder.feed(chunk.value);
          } catch (error) {
            if (error instanceof SseEventTooLargeError)
              throw responseTooLarge(call, 'an SSE event', error.limit);
            throw error;
          }
          if (parser.isTerminated?.() === true) {
            // The terminal event arrived: a server holding the connection open is not waited for.
            reader.cancel().catch(() => {});
            break;
          }
        }
      } catch (error) {
        // Stop the body (and its socket) when we give up on it mid-way.
        reader.cancel().catch(() => {});
        if (!keepsWholeResponse(parser, error, signal)) throw error;
        abandoned = true;
        context.warn('ignored a failure of the stream after the response was complete', {
          reason: AdapterError.isInstance(error)
            ? (error.providerCode ?? error.errorClass)
            : 'malformed data',
        });
      }
      if (!abandoned) decoder.end();
      parser.onEnd();
    } catch (error) {
      throw asClassified(error, call, 'invalid_stream');
    } finally {
      timers.dispose();
    }
  }

  return {
    name: definition.name,
    protocol: definition.protocol,
    capabilities: (model) => capabilitiesOf(wireModelName(model)),
    complete,
    stream,
    estimateInputTokens: (input) => estimateChecked(definition.name, definition.estimateInputTokens, input),
    cancel: (requestId) => registry.cancel(requestId),
    /** Idempotent: every call resolves once provider-side state is released and the pool is closed. */
    close() {
      if (closing === undefined) {
        closed = true;
        registry.cancelAll();
        // Provider-side state (paid caches) is deleted before the connection pool goes.
        closing = Promise.all([...liveSessions].map((session) => endSession(session))).then(() =>
          http.close(),
        );
      }
      return closing;
    },
    endSession,
    async listModels(listOptions = {}) {
      assertOpen();
      const body = await fetchJson('GET', definition.listModels.path, undefined, listOptions.signal).catch(
        (error: unknown) => Promise.reject(redactError(error)),
      );
      return definition.listModels.parse(body);
    },
    startSession: (): AdapterSession => createSession(),
  };
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

function linkedController(parent: AbortSignal): AbortController {
  const controller = new AbortController();
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener('abort', () => controller.abort(parent.reason), { once: true });
  return controller;
}

/**
 * Any failure that is not already classified (a parser meeting JSON it cannot read, or a shape it
 * did not expect) becomes a retryable `ServerError`: the provider sent something invalid.
 */
function asClassified(error: unknown, call: HttpCall, code: 'invalid_stream' | 'invalid_response'): unknown {
  if (AdapterError.isInstance(error)) return error;
  const where = code === 'invalid_stream' ? 'in its stream' : 'in its body';
  // A SyntaxError's text quotes the payload (which may start with a key): neither the message nor
  // the cause carries it; other parser failures are kept, with any key shape redacted.
  const syntax = error instanceof SyntaxError;
  const detail = syntax ? '' : `: ${redactSecrets(String((error as Error)?.message ?? error))}`;
  return new ServerError({
    message: `${call.provider}: ${call.method} ${redactUrl(call.url)} sent ${syntax ? 'malformed JSON' : 'a response it could not read'} ${where}${detail}`,
    provider: call.provider,
    providerCode: code,
    retryable: true,
    cause: syntax ? new SyntaxError('malformed JSON (text withheld)') : error,
  });
}

function parseJsonBody(text: string, call: HttpCall): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ServerError({
      message: `${call.provider}: ${call.method} ${redactUrl(call.url)} returned a body that is not JSON (${text.length} bytes)`,
      provider: call.provider,
      providerCode: 'invalid_response',
      retryable: true,
      cause: new SyntaxError('malformed JSON (text withheld)'),
    });
  }
}

/**
 * Every error leaving the adapter passes here: its request id set, and its message, provider
 * message and code and any foreign `cause` (a custom fetch's error) redacted of every key shape,
 * every configured secret and URL userinfo.
 */
function withRequestId(error: unknown, requestId: string): unknown {
  if (AdapterError.isInstance(error) && error.requestId === undefined) {
    (error as { requestId: string | undefined }).requestId = requestId;
  }
  return redactError(error);
}

const credentialHeaders = new Set(CREDENTIAL_HEADER_NAMES);

function hasCredentialHeader(headers: Record<string, string> | undefined): boolean {
  return Object.keys(headers ?? {}).some((name) => credentialHeaders.has(name.toLowerCase()));
}

/** The caller's retry gate with this call's request id added to what it is told. */
function retryGateOf(callOptions: CallOptions, requestId: string): RetryGateHook | undefined {
  const gate = callOptions.retryGate;
  if (gate === undefined) return undefined;
  return {
    allow: (info) => gate.allow({ ...info, requestId }),
    onWake: gate.onWake === undefined ? undefined : (wake) => gate.onWake!(wake),
  };
}

/** Why `url` cannot be a base URL (not a URL, not http/https), or undefined. Never echoes the URL. */
function urlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return `scheme ${parsed.protocol} is not http or https`;
  if (parsed.hostname === '') return 'no host';
  return undefined;
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
  // while it iterates; a stream that settled and was fully read has nothing left.
  void eventStream.settled().then(() => {
    if (eventStream.buffered === 0) signal.removeEventListener('abort', onAbort);
  });
}
