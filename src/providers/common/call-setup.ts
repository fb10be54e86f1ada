/** One call's set-up: the checks, the provider context, the pre-flight and the wire request. */
import { type CallOptions, createSession } from '../../core/adapter.ts';
import { createRequestId, type RequestId } from '../../core/ids.ts';
import { redactFields, redactSecrets } from '../../core/redaction.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { type HttpCall, toTransportError } from '../../transport/http.ts';
import type { ProviderContext } from './definition.ts';
import { provenanceFields } from './projection.ts';
import { createProviderError } from './errors.ts';
import { fetchJson } from './http-exchange.ts';
import {
  assertConfigured,
  assertOpen,
  checkedWireModel,
  failureSite,
  headersFor,
  type HttpRuntime,
} from './http-runtime.ts';
import { preflight } from './preflight.ts';

/** Everything one call needs, resolved once. */
export interface CallSetup {
  /** The request to send: the validated one after the pre-flight check (e.g. an unusable `cache` dropped). */
  request: CanonicalRequest;
  requestId: RequestId;
  context: ProviderContext;
  call: HttpCall;
  startedAt: number;
}

/**
 * Resolves one call. `request` is the call's own object (the boundary's parsed copy, or the
 * router's request built for this call): its request id is set here, once, and it is not copied.
 */
export function setup(
  runtime: HttpRuntime,
  request: CanonicalRequest,
  options: CallOptions,
  stream: boolean,
  signal: AbortSignal,
  wire?: string,
): CallSetup {
  const { definition, logger, apiKey, baseURL, capabilitiesOf, liveSessions } = runtime;
  assertOpen(runtime);
  assertConfigured(runtime, options.headers);
  const requestId = (request.requestId ??= createRequestId());
  // A call without a session gets its own, made when first read: most calls of most providers
  // never read it (tool-id mapping, provider-side state and WARNs do).
  let session = options.session;
  const sessionOf = () => (session ??= createSession());
  const model = wire ?? checkedWireModel(runtime, request);
  if (definition.endSession !== undefined) liveSessions.add(sessionOf());
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
    get session() {
      return sessionOf();
    },
    logger,
    stream,
    warn(message, fields) {
      // Every logger, the user's included, gets redacted text: no key shape, no API key.
      const entry = { adapter: definition.name, requestId, sessionId: sessionOf().id, ...fields };
      logger.warn(redactSecrets(message, [apiKey]), redactFields(entry, 0, [apiKey]) as typeof entry);
    },
    fail(body, status) {
      throw createProviderError({
        site: failureSite(runtime, call),
        status,
        body,
        rules: definition.errorRules,
        apiKey,
      });
    },
    // The call's own signal: cancel(requestId), a consumer's break and close() abort it too.
    fetchJson: (method, path, body) => fetchJson(runtime, method, path, body, signal),
  };
  // A host serving several model families tags each family's parts apart (`vertex/anthropic`).
  if (definition.families !== undefined) Object.assign(context, provenanceFields(definition, model));
  // The one pre-flight check of every declared capability, before any HTTP call.
  const checked = preflight(request, context.capabilities, {
    provider: definition.name,
    model,
    estimateInputTokens: (input) => definition.estimateInputTokens(input),
    warn: (message, fields) => context.warn(message, fields),
  });
  return { request: checked, requestId, context, call, startedAt: performance.now() };
}

/**
 * Builds the call's wire request, after the provider's `prepare` (a cache, an upload) if it has
 * one: then a promise; without one the request is built at once and undefined is returned (no
 * await on the hot path). Throws (or rejects) as the build does.
 */
export function prepareCall(
  runtime: HttpRuntime,
  request: CanonicalRequest,
  callSetup: CallSetup,
  signal: AbortSignal,
  callHeaders?: Record<string, string>,
): Promise<void> | undefined {
  const { definition } = runtime;
  if (definition.prepare === undefined) {
    if (signal.aborted) throw toTransportError(signal.reason, callSetup.call, signal);
    buildCall(runtime, request, callSetup, callHeaders);
    return undefined;
  }
  return definition.prepare(request, callSetup.context).then(() => {
    if (signal.aborted) throw toTransportError(signal.reason, callSetup.call, signal);
    buildCall(runtime, request, callSetup, callHeaders);
  });
}

function buildCall(
  runtime: HttpRuntime,
  request: CanonicalRequest,
  callSetup: CallSetup,
  callHeaders: Record<string, string> | undefined,
): void {
  const { definition, baseURL } = runtime;
  const wire = definition.buildRequest(request, callSetup.context);
  // A request's own endpoint applies unless the user (option or variable) chose the endpoint.
  const base =
    wire.baseURL !== undefined && baseURL === definition.baseURL.replace(/\/+$/, '') ? wire.baseURL : baseURL;
  callSetup.call.url = base + wire.path;
  callSetup.call.headers = headersFor(
    runtime,
    { 'content-type': 'application/json', ...wire.headers },
    callHeaders,
  );
  callSetup.call.body = JSON.stringify(wire.body);
}
