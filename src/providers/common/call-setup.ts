/** One call's set-up: the checks, the provider context, the pre-flight and the wire request. */
import { type AdapterSession, type CallOptions, createSession } from '../../core/adapter.ts';
import type { Capabilities } from '../../core/capabilities.ts';
import { createRequestId, type RequestId } from '../../core/ids.ts';
import type { Logger } from '../../core/logger.ts';
import { redactFields, redactSecrets } from '../../core/redaction.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { freeformNames } from '../../core/tools.ts';
import { type HttpCall, toTransportError } from '../../transport/http.ts';
import { callKey, type ProviderContext, type WireRequest } from './definition.ts';
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
import { checkPrefill } from './prefill.ts';
import { checkOutputFormat } from './output-text.ts';
import { ownProviderOptions } from './own-options.ts';
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
 * One call's {@link ProviderContext}. A class, not an object literal: a literal with a getter (the
 * lazily made session) gets a hidden class of its own per call, made in old space and pointing at
 * the call's closures, so every object the call reaches survived young-generation GCs until the next
 * full one (measured: ~1.5 MB promoted per scavenge, most of an adapter call's GC time).
 */
export class CallContext implements ProviderContext {
  readonly requestId: RequestId;
  readonly provider: string;
  readonly model: string;
  readonly capabilities: Capabilities;
  readonly logger: Logger;
  readonly stream: boolean;
  /** A call without a session gets its own, made when first read: most calls of most providers never read it. */
  private ownSession: AdapterSession | undefined;
  readonly sessionLess: boolean;
  readonly warn: ProviderContext['warn'];
  readonly fail: ProviderContext['fail'];
  readonly fetchJson: ProviderContext['fetchJson'];
  partLocations: ProviderContext['partLocations'] = undefined;
  freeformTools: ProviderContext['freeformTools'] = undefined;
  prefill: ProviderContext['prefill'] = undefined;
  /** Set on a host with model families only (`provenanceFields`). */
  provenance?: string;
  ownsBareTag?: boolean;
  /** Itself, for {@link callOf} through copies of it. */
  readonly [callKey]: object;

  constructor(
    runtime: HttpRuntime,
    requestId: RequestId,
    call: HttpCall,
    model: string,
    capabilities: Capabilities,
    session: AdapterSession | undefined,
    stream: boolean,
    signal: AbortSignal,
  ) {
    this.requestId = requestId;
    this.provider = runtime.definition.name;
    this.model = model;
    this.capabilities = capabilities;
    this.logger = runtime.logger;
    this.stream = stream;
    this.ownSession = session;
    this.sessionLess = session === undefined;
    this[callKey] = this;
    // Made by functions, not written here as `this.warn = (…) => …`: see `warnOf`.
    this.warn = warnOf(this, runtime);
    this.fail = failOf(runtime, call);
    // The call's own signal: cancel(requestId), a consumer's break and close() abort it too.
    this.fetchJson = fetchJsonOf(runtime, signal);
  }

  get session(): AdapterSession {
    return (this.ownSession ??= createSession());
  }
}

/**
 * The context's WARN: every logger, the user's included, gets redacted text (no key shape, no API
 * key), with the adapter, request and session ids.
 *
 * The context's three functions are made by these functions rather than written in its
 * constructor as `this.warn = (…) => …`: V8 allocates a function literal assigned to a `this`
 * property in a constructor directly in the old generation (it takes it for a method), so each
 * call's closures, and all they reach (the call, its signals and their listeners, the request
 * body), survived every young-generation GC until the next full one: ~500 KB promoted per
 * scavenge, 7 ms pauses, against ~20 KB without (bench/README "Per-call fixed cost").
 */
function warnOf(context: CallContext, runtime: HttpRuntime): ProviderContext['warn'] {
  const { definition, logger, apiKey } = runtime;
  return (message, fields) => {
    const entry = {
      adapter: definition.name,
      requestId: context.requestId,
      sessionId: context.session.id,
      ...fields,
    };
    logger.warn(redactSecrets(message, [apiKey]), redactFields(entry, 0, [apiKey]) as typeof entry);
  };
}

/** The context's `fail`: the provider's error body as the classified error (see {@link warnOf}). */
function failOf(runtime: HttpRuntime, call: HttpCall): ProviderContext['fail'] {
  const { definition, apiKey } = runtime;
  return (body, status) => {
    throw createProviderError({
      site: failureSite(runtime, call),
      status,
      body,
      rules: definition.errorRules,
      apiKey,
    });
  };
}

/** The context's `fetchJson`, on the call's signal (see {@link warnOf}). */
function fetchJsonOf(runtime: HttpRuntime, signal: AbortSignal): ProviderContext['fetchJson'] {
  return (method, path, body) => fetchJson(runtime, method, path, body, signal);
}

/**
 * A call's HTTP description, every member in the literal (`body` is set by `buildCall`): a member
 * added later would give each call's object a hidden class of its own making. The dormant call
 * (dormant-call.ts) makes its copy here too, so the two share one hidden class by construction.
 */
export function createHttpCall(url: string, provider: string, requestId: string): HttpCall {
  return { method: 'POST', url, headers: {}, body: undefined, provider, requestId, base: url };
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
  const { definition, baseURL, capabilitiesOf, liveSessions } = runtime;
  assertOpen(runtime);
  assertConfigured(runtime, options.headers);
  const requestId = (request.requestId ??= createRequestId());
  const model = wire ?? checkedWireModel(runtime, request);
  const call = createHttpCall(baseURL, definition.name, requestId);
  const context = new CallContext(
    runtime,
    requestId,
    call,
    model,
    capabilitiesOf(model),
    options.session,
    stream,
    signal,
  );
  if (definition.endSession !== undefined) liveSessions.add(context.session);
  if (runtime.ownName !== definition.name && request.providerOptions !== undefined)
    request.providerOptions = ownProviderOptions(request.providerOptions, definition.name, runtime.ownName);
  // A host serving several model families tags each family's parts apart (`vertex/anthropic`).
  if (definition.families !== undefined) Object.assign(context, provenanceFields(definition, model));
  // The one pre-flight check of every declared capability, before any HTTP call.
  const checked = preflight(request, context.capabilities, {
    provider: definition.name,
    ownName: runtime.ownName,
    model,
    estimateInputTokens: (input) => definition.estimateInputTokens(input),
    warn: (message, fields) => context.warn(message, fields),
  });
  checkPrefill(checked, context);
  checkOutputFormat(checked, context);
  if (checked.tools !== undefined && checked.tools.some((tool) => tool.freeform !== undefined))
    context.freeformTools = freeformNames(checked.tools);
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
  setWireRequest(
    runtime,
    callSetup,
    runtime.definition.buildRequest(request, callSetup.context),
    callHeaders,
  );
}

/** Points the call at `wire`: its URL (on the adapter's base URL or the request's own), headers and body. */
export function setWireRequest(
  runtime: HttpRuntime,
  callSetup: CallSetup,
  wire: WireRequest,
  callHeaders: Record<string, string> | undefined,
): void {
  const { definition, baseURL } = runtime;
  // A request's own endpoint applies unless the user (option or variable) chose the endpoint.
  const base =
    wire.baseURL !== undefined && baseURL === definition.baseURL.replace(/\/+$/, '') ? wire.baseURL : baseURL;
  callSetup.call.url = base + wire.path;
  callSetup.call.base = base;
  callSetup.call.headers = headersFor(
    runtime,
    { 'content-type': 'application/json', ...wire.headers },
    callHeaders,
  );
  callSetup.call.body = JSON.stringify(wire.body);
}
