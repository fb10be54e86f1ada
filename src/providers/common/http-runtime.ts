/**
 * The state one HTTP adapter holds (its definition, resolved options, transport, cancellation
 * registry) and the checks every call makes of it: configured, open, a valid wire model name.
 */
import type { AdapterSession } from '../../core/adapter.ts';
import { type Capabilities, withCapabilityOverrides } from '../../core/capabilities.ts';
import { AdapterError } from '../../core/errors/adapter-error.ts';
import { AuthError } from '../../core/errors/auth-error.ts';
import { joinModelId, wireNameFor } from '../../core/ids.ts';
import { assertModelName, modelNameProblem } from '../../core/model-name.ts';
import {
  CREDENTIAL_HEADER_NAMES,
  registerConfiguredSecrets,
  secretHeaderValues,
  urlCredentials,
} from '../../core/redaction.ts';
import { createConsoleLogger, guardLogger, type Logger } from '../../core/logger.ts';
import { CancellationRegistry } from '../../transport/cancellation.ts';
import { defaultMaxBodyBytes, type HttpCall, HttpClient } from '../../transport/http.ts';
import type { RetryPolicy } from '../../transport/retry.ts';
import { defaultMaxEventBytes } from '../../transport/sse.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { ProviderDefinition } from './definition.ts';
import { routedModel } from './routed.ts';
import type { FailureSite } from './errors.ts';
import { type AdapterOptions, type CredentialSource, resolveApiKey, resolveBaseURL } from './options.ts';

/** What `createHttpAdapter` resolves once, shared by every call of the adapter. */
export interface HttpRuntime {
  /** The provider's definition, named as the adapter is (`AdapterOptions.name`). */
  definition: ProviderDefinition;
  /**
   * The provider's own name (`anthropic`, `openai`, …), which its `providerOptions` key and its
   * catalog and prices are known by: `definition.name` unless the adapter is named otherwise.
   */
  ownName: string;
  options: AdapterOptions & { credentials?: CredentialSource };
  http: HttpClient;
  /** In-flight calls by request id: `cancel(requestId)`, `close()`. */
  registry: CancellationRegistry;
  logger: Logger;
  credentials: CredentialSource | undefined;
  apiKey: string | undefined;
  baseURL: string;
  /** Why the base URL cannot be used (checked on each call, never at creation), or undefined. */
  baseURLProblem: string | undefined;
  policy: RetryPolicy;
  maxEventBytes: number;
  maxBodyBytes: number;
  /** The adapter's declared capabilities with the user's `capabilities` / `models` overrides on top. */
  capabilitiesOf: (model: string) => Capabilities;
  /** Sessions whose calls may have created provider-side state (only for providers that have any). */
  liveSessions: Set<AdapterSession>;
  closed: boolean;
  /** One dormant call's objects (`dormant-call.ts`), set by `createHttpAdapter`. */
  dormantCall: readonly object[];
  /** The clock remembered facts expire by (`AdapterOptions.now`, default `Date.now`). */
  now: () => number;
  /** Count endpoints this adapter found absent, by URL (`count-call.ts`). */
  absentCountEndpoints: Map<string, AbsentEndpoint>;
}

/** A count endpoint that answered it is not there (404, 405, 501): what it answered, and until when that is believed. */
export interface AbsentEndpoint {
  status: number;
  /** The clock's time (ms) after which it is asked again. */
  until: number;
}

/** Resolves an adapter's options: key, base URL, transport, limits. Registers its secrets for redaction. */
export function createHttpRuntime(
  given: ProviderDefinition,
  options: AdapterOptions & { credentials?: CredentialSource },
): HttpRuntime {
  // An adapter named otherwise (a second account, `work-claude`) is that name everywhere: model ids,
  // the provenance of its parts, its errors and WARNs.
  const definition =
    options.name === undefined || options.name === given.name ? given : { ...given, name: options.name };
  const http = new HttpClient({
    fetch: options.fetch,
    timeoutMs: options.timeout,
    firstByteTimeoutMs: options.firstByteTimeout,
    idleTimeoutMs: options.idleTimeout,
    maxConnections: options.maxConnections,
    proxy: options.proxy,
    env: options.env,
  });
  const credentials = options.credentials;
  const environment = options.env ?? process.env;
  const apiKey = resolveApiKey(options.apiKey, credentials?.apiKeyVariables ?? [], environment);
  const baseURL = (
    options.baseURL ??
    resolveBaseURL(credentials?.baseURLVariables ?? [], environment) ??
    definition.baseURL
  ).replace(/\/+$/, '');
  const runtime: HttpRuntime = {
    definition,
    ownName: given.name,
    options,
    http,
    registry: new CancellationRegistry(),
    logger: guardLogger(options.logger ?? createConsoleLogger({ level: options.logLevel })),
    credentials,
    apiKey,
    baseURL,
    baseURLProblem: urlProblem(baseURL),
    policy: { maxRetries: options.maxRetries ?? 2, baseDelayMs: options.retryBaseDelay },
    maxEventBytes: options.maxEventBytes ?? defaultMaxEventBytes,
    maxBodyBytes: options.maxBodyBytes ?? defaultMaxBodyBytes,
    capabilitiesOf: withCapabilityOverrides((model) => definition.capabilities(model), options),
    liveSessions: new Set(),
    closed: false,
    dormantCall: [],
    now: options.now ?? Date.now,
    absentCountEndpoints: new Map(),
  };
  // Every secret this adapter holds is known to every redaction in the process while it lives.
  registerConfiguredSecrets(runtime, [
    apiKey,
    ...secretHeaderValues(options.headers),
    ...urlCredentials(baseURL),
  ]);
  return runtime;
}

/**
 * Credentials are checked per call, never at creation: a call without a key (and no credential
 * header of the user's own) fails before any HTTP call with `AuthError` `not_configured`.
 */
export function assertConfigured(runtime: HttpRuntime, callHeaders?: Record<string, string>): void {
  const { definition, credentials, apiKey, baseURLProblem } = runtime;
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
  if (hasCredentialHeader(runtime.options.headers) || hasCredentialHeader(callHeaders)) return;
  const variables = credentials.apiKeyVariables;
  const hint = variables.length === 0 ? '' : ` or set ${variables.join(' or ')}`;
  throw new AuthError({
    message: `${definition.name}: no API key: pass apiKey${hint}`,
    provider: definition.name,
    providerCode: 'not_configured',
  });
}

/** Calls after `close()` fail at once (not retried, never reported as a network error). */
export function assertOpen(runtime: HttpRuntime): void {
  const { definition } = runtime;
  if (runtime.closed) {
    throw new AdapterError({
      message: `${definition.name}: the adapter was closed; create a new one`,
      provider: definition.name,
      providerCode: 'adapter_closed',
    });
  }
}

/**
 * The wire model name: the `provider:` prefix is stripped only when it names this adapter — its
 * name, or the provider's own for an adapter named otherwise (`qwen3:8b` stays whole).
 */
export function wireModelName(runtime: HttpRuntime, model: string): string {
  const wire = wireNameFor(runtime.definition.name, model);
  return wire === model && runtime.ownName !== runtime.definition.name
    ? wireNameFor(runtime.ownName, model)
    : wire;
}

/**
 * The wire model name of a request, checked against the protocol's grammar before it goes anywhere
 * (URL, body, log): the router's bound name (`routed.ts`), or the request's model id parsed once.
 */
export function checkedWireModel(runtime: HttpRuntime, request: CanonicalRequest): string {
  const { definition } = runtime;
  const wire = routedModel(request)?.wireName ?? wireModelName(runtime, request.model);
  assertModelName(wire, definition.protocol, definition.name);
  return wire;
}

/** The canonical id to report for a request's model: its own when valid, never a hostile name. */
export function reportedId(runtime: HttpRuntime, model: string): string {
  const { definition } = runtime;
  const wire = wireModelName(runtime, model);
  return joinModelId(
    definition.name,
    modelNameProblem(wire, definition.protocol) === undefined ? wire : 'invalid-model-name',
  );
}

/** A request's headers: the provider's (with the key), the adapter's, the request's, the call's. */
export function headersFor(
  runtime: HttpRuntime,
  extra: Record<string, string> | undefined,
  callHeaders?: Record<string, string>,
) {
  const { definition, apiKey } = runtime;
  return { ...definition.headers(apiKey), ...runtime.options.headers, ...extra, ...callHeaders };
}

/** Where a call failed, for its error message. */
export function failureSite(runtime: HttpRuntime, call: HttpCall): FailureSite {
  const { definition } = runtime;
  return { provider: definition.name, method: call.method, url: call.url, requestId: call.requestId };
}

const credentialHeaders = new Set(CREDENTIAL_HEADER_NAMES);

function hasCredentialHeader(headers: Record<string, string> | undefined): boolean {
  return Object.keys(headers ?? {}).some((name) => credentialHeaders.has(name.toLowerCase()));
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
