/** One adapter's HTTP exchanges: authorized sends, error bodies, extra JSON calls, session release, error shaping. */
import type { AdapterSession, CallOptions } from '../../core/adapter.ts';
import { AdapterError } from '../../core/errors/adapter-error.ts';
import { ServerError } from '../../core/errors/server-error.ts';
import { LimitExceededError } from '../../core/limit-exceeded.ts';
import type { JsonObject } from '../../core/json.ts';
import { redactError, redactSecrets } from '../../core/redaction.ts';
import {
  type CallTimers,
  type HttpCall,
  readText,
  redactUrl,
  responseTooLarge,
  toTransportError,
} from '../../transport/http.ts';
import type { HttpResponse } from '../../transport/light-response.ts';
import { parseRetryAfter, parseShouldRetry, type RetryGateHook } from '../../transport/retry.ts';
import { createProviderError } from './errors.ts';
import { failureSite, headersFor, assertConfigured, type HttpRuntime } from './http-runtime.ts';
import { parseJson } from '../../core/json-text.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import type { ProviderDefinition, ResponseHeaders } from './definition.ts';

const maxErrorBodyBytes = 64 * 1024;

/**
 * `promise`, or the abort's classified error (cancelled, timeout) as soon as `signal` aborts: a
 * credential source that never answers (an STS or metadata call hanging) must not outlive the call.
 */
function untilAborted<Value>(promise: Promise<Value>, call: HttpCall, signal: AbortSignal): Promise<Value> {
  if (signal.aborted) return Promise.reject(toTransportError(undefined, call, signal));
  return new Promise<Value>((resolve, reject) => {
    const onAbort = () => reject(toTransportError(undefined, call, signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** The call with the provider's per-attempt credentials added (SigV4, OAuth), or as is. */
async function authorized(
  runtime: HttpRuntime,
  call: HttpCall,
  refresh: boolean,
  signal: AbortSignal,
): Promise<{ call: HttpCall; refreshable: boolean; signedAt: number | undefined }> {
  const { definition } = runtime;
  if (definition.authorize === undefined) return { call, refreshable: false, signedAt: undefined };
  const input = { method: call.method, url: call.url, headers: call.headers, body: call.body };
  const authorization = await untilAborted(definition.authorize(input, refresh), call, signal);
  return {
    call: { ...call, headers: { ...call.headers, ...authorization.headers } },
    refreshable: authorization.refreshable,
    signedAt: authorization.signedAt,
  };
}

/**
 * Sends one attempt. A 401/403 is sent once more, never twice: signed again when it refused a
 * signature made with a skewed clock the provider has now corrected (`correctClock`), else with
 * fresh credentials when they are refreshable (an expired token); a second refusal is the
 * provider's `auth` error. The resend is part of the attempt, not one of the `maxRetries`.
 */
export function sendAuthorized(
  runtime: HttpRuntime,
  call: HttpCall,
  controller: AbortController,
  timers: CallTimers,
): Promise<HttpResponse> {
  // Without per-attempt credentials the call goes as it is: the transport's promise, no extra hop.
  if (runtime.definition.authorize === undefined) return runtime.http.send(call, controller, timers);
  return sendWithCredentials(runtime, call, controller, timers);
}

async function sendWithCredentials(
  runtime: HttpRuntime,
  call: HttpCall,
  controller: AbortController,
  timers: CallTimers,
): Promise<HttpResponse> {
  const { http, definition } = runtime;
  const first = await authorized(runtime, call, false, controller.signal);
  const response = await http.send(first.call, controller, timers);
  if (response.status !== 401 && response.status !== 403) return response;
  // Only a signature that carries its time can have been refused for the clock (not a bearer token).
  const resign =
    first.signedAt !== undefined &&
    definition.correctClock?.(response.status, response.headers, first.signedAt) === true;
  if (!resign && !first.refreshable) return response;
  if (!resign && definition.credentialsRefused?.(response.status, response.headers) === false)
    return response;
  await response.body?.cancel().catch(() => {});
  // Re-signed at the corrected time with the same credentials, or signed with refreshed ones.
  return http.send((await authorized(runtime, call, !resign, controller.signal)).call, controller, timers);
}

/** A response id a header may give: letters, digits and `._:-`, at most 128 (never a log line's text). */
const headerIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * What the definition reads from a successful response's headers before its body: the service tier
 * (`serviceTierHeader`) and the provider's id of the call (`responseIdHeader`).
 */
export function readResponseHeaders(
  definition: ProviderDefinition,
  headers: ResponseHeaders,
  builder: StreamBuilder,
): void {
  if (definition.serviceTierHeader !== undefined)
    builder.serviceTier(headers.get(definition.serviceTierHeader));
  if (definition.responseIdHeader === undefined) return;
  const id = headers.get(definition.responseIdHeader)?.trim();
  if (id !== undefined && headerIdPattern.test(id)) builder.setResponseId(id);
}

export async function errorFromResponse(
  runtime: HttpRuntime,
  response: HttpResponse,
  call: HttpCall,
  controller: AbortController,
  timers: CallTimers,
): Promise<AdapterError> {
  const { definition, apiKey } = runtime;
  const text = await readText(response, call, controller, timers, maxErrorBodyBytes).catch(() => '');
  // Aborted while the error body was read: the abort's class (cancelled, timeout) wins.
  if (controller.signal.aborted) return toTransportError(undefined, call, controller.signal);
  const shouldRetry = parseShouldRetry(response.headers);
  return createProviderError({
    site: failureSite(runtime, call),
    status: response.status,
    body: definition.parseErrorBody(text, response.headers),
    rules: definition.errorRules,
    retryAfterSeconds: parseRetryAfter(response.headers, response.status),
    ...(shouldRetry === undefined ? {} : { shouldRetry }),
    apiKey,
  });
}

export async function fetchJson(
  runtime: HttpRuntime,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: JsonObject,
  signal?: AbortSignal,
  baseURL = runtime.baseURL,
) {
  const { definition, http, maxBodyBytes } = runtime;
  const call: HttpCall = {
    method,
    url: baseURL + path,
    base: baseURL,
    headers: headersFor(runtime, { 'content-type': 'application/json' }),
    provider: definition.name,
  };
  if (body !== undefined) call.body = JSON.stringify(body);
  assertConfigured(runtime);
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  // An already-aborted signal fires no 'abort' event: without this the request would still go out.
  if (signal?.aborted === true) controller.abort(signal.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const stopDeadline = http.startDeadline(controller);
  const timers = http.createTimers(controller);
  try {
    const response = await sendAuthorized(runtime, call, controller, timers);
    if (!response.ok) throw await errorFromResponse(runtime, response, call, controller, timers);
    return parseJsonBody(await readText(response, call, controller, timers, maxBodyBytes, 'fail'), call);
  } finally {
    timers.dispose();
    stopDeadline();
    signal?.removeEventListener('abort', onAbort);
  }
}

export async function endSession(runtime: HttpRuntime, session: AdapterSession): Promise<void> {
  const { definition, logger, liveSessions } = runtime;
  if (!liveSessions.delete(session) || definition.endSession === undefined) return;
  const warn = (message: string, fields: Record<string, unknown>) =>
    logger.warn(message, { adapter: definition.name, sessionId: session.id, ...fields });
  try {
    await definition.endSession(session, {
      provider: definition.name,
      fetchJson: (method, path, body) => fetchJson(runtime, method, path, body),
      warn,
    });
  } catch (error) {
    warn('could not release provider-side session state', { reason: String(error) });
  }
}

export function linkedController(parent: AbortSignal): AbortController {
  const controller = new AbortController();
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener('abort', () => controller.abort(parent.reason), { once: true });
  return controller;
}

/**
 * Any failure that is not already classified (a parser meeting JSON it cannot read, or a shape it
 * did not expect) becomes a retryable `ServerError`: the provider sent something invalid.
 */
export function asClassified(
  error: unknown,
  call: HttpCall,
  code: 'invalid_stream' | 'invalid_response',
): unknown {
  if (AdapterError.isInstance(error)) return error;
  if (error instanceof LimitExceededError) return responseTooLarge(call, error);
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

export function parseJsonBody(text: string, call: HttpCall): unknown {
  try {
    return parseJson(text);
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
export function withRequestId(error: unknown, requestId: string): unknown {
  if (AdapterError.isInstance(error) && error.requestId === undefined) {
    (error as { requestId: string | undefined }).requestId = requestId;
  }
  return redactError(error);
}

/** The caller's retry gate with this call's request id added to what it is told. */
export function retryGateOf(callOptions: CallOptions, requestId: string): RetryGateHook | undefined {
  const gate = callOptions.retryGate;
  if (gate === undefined) return undefined;
  return {
    allow: (info) => gate.allow({ ...info, requestId }),
    onWake: gate.onWake === undefined ? undefined : (wake) => gate.onWake!(wake),
  };
}
