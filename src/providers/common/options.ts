/** Options every HTTP adapter accepts. */
import type { CapabilityOverrides } from '../../core/capabilities.ts';
import type { Logger, LogLevel } from '../../core/logger.ts';

/**
 * Options shared by all adapters (`createAnthropic`, `createOpenAI`, …), including capability
 * overrides: `capabilities` (every model) and `models` (per model glob, later keys win) replace the
 * adapter's declared facts, and the pre-flight check enforces the result.
 */
export interface AdapterOptions extends CapabilityOverrides {
  /**
   * The adapter's name (default: the provider's own, `anthropic`, `openai`, `gemini`, …): the
   * `provider` half of its model ids and of every reply's `model`, the tag of the reasoning,
   * signatures and response ids its calls make (taken back by this adapter only), its
   * `providerOptions` key beside the provider's own, and the `provider` of its errors and WARNs. A
   * second account of one provider takes a name of its own (`work-claude`), as the config's
   * `adapters:` key does.
   */
  name?: string;
  /** API key; default: the provider's environment variable. A missing key fails each call, never creation. */
  apiKey?: string;
  /** Override the endpoint (proxies, gateways, the emulator); default: the provider's `…_BASE_URL` variable. */
  baseURL?: string;
  /** Whole-call timeout in ms. Default 600 000. */
  timeout?: number;
  /** Timeout until response headers, in ms. Default 120 000. */
  firstByteTimeout?: number;
  /** Longest silence between stream chunks, in ms. Default 120 000. */
  idleTimeout?: number;
  /** Bounded retries of transient failures; total attempts = 1 + maxRetries. Default 2. */
  maxRetries?: number;
  /** First backoff delay in ms (doubles per retry, jittered). Default 1000. */
  retryBaseDelay?: number;
  /** Headers added to every call. */
  headers?: Record<string, string>;
  /** A custom fetch (proxies, cassettes). The pool, proxy and first-byte options below then do not apply. */
  fetch?: typeof fetch;
  /**
   * Largest single SSE event accepted, in bytes; a larger one fails the call with a `server_error`
   * (code `response_too_large`). Default 64 MiB (room for inline images).
   */
  maxEventBytes?: number;
  /**
   * Largest whole JSON response body accepted (`complete()`, `listModels()`), in bytes; larger fails
   * with a `server_error` (code `response_too_large`). Default 128 MiB.
   */
  maxBodyBytes?: number;
  /** Most open connections per origin (calls beyond it wait for a free one). Default 64. */
  maxConnections?: number;
  /**
   * Proxy of the default transport: a URL, `false` for none, or (default) the environment:
   * `HTTPS_PROXY` / `HTTP_PROXY` with `NO_PROXY` exclusions (either case).
   */
  proxy?: string | false;
  /**
   * Where lossy-projection warnings go. Default: redacted JSON lines on stderr, each distinct
   * warning once per adapter.
   */
  logger?: Logger;
  /** Level of the default logger: `debug`, `warn` or `silent`. Default: `SWITCHYARD_LOG_LEVEL`, else `warn`. */
  logLevel?: LogLevel;
  /**
   * The environment the key, base-URL and proxy variables are read from (`process.env` as it is
   * works). Default: `process.env`.
   */
  env?: Environment;
  /**
   * The clock (ms since epoch) the adapter's remembered facts expire by: a count endpoint found
   * absent is not asked again for ten minutes of it. Default `Date.now` (tests inject their own).
   */
  now?: () => number;
}

/** Environment variables by name, as `process.env` holds them. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** An environment variable holding a base URL, and the path the adapter appends to it. */
export interface BaseURLVariable {
  name: string;
  /**
   * Appended to the variable's value, following the provider SDK's convention
   * (`ANTHROPIC_BASE_URL=https://host` → `https://host/v1`). Default: nothing.
   */
  suffix?: string;
}

/** Where an adapter's API key and endpoint come from when the options do not say. */
export interface CredentialSource {
  /** Environment variables read for the key, in order. */
  apiKeyVariables: readonly string[];
  /** True when a call without any key fails before HTTP with `AuthError` `not_configured`. */
  apiKeyRequired: boolean;
  /** Environment variables read for the base URL, in order (used only without `options.baseURL`). */
  baseURLVariables: readonly BaseURLVariable[];
}

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === '' ? undefined : value;

/** The API key: the explicit one, else the first non-empty variable. Blank strings count as missing. */
export function resolveApiKey(
  explicit: string | undefined,
  variables: readonly string[],
  environment: Environment = process.env,
): string | undefined {
  const given = nonEmpty(explicit);
  if (given !== undefined) return given;
  for (const name of variables) {
    const value = nonEmpty(environment[name]);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** The base URL from the first non-empty variable (with its suffix), else `undefined`. */
export function resolveBaseURL(
  variables: readonly BaseURLVariable[],
  environment: Environment = process.env,
): string | undefined {
  for (const variable of variables) {
    const value = nonEmpty(environment[variable.name]);
    if (value !== undefined) return value.trim().replace(/\/+$/, '') + (variable.suffix ?? '');
  }
  return undefined;
}

/** The conventional base-URL variable for a key variable: `GROQ_API_KEY` → `GROQ_BASE_URL`. */
export function baseURLVariableFor(apiKeyVariable: string | undefined): BaseURLVariable[] {
  if (apiKeyVariable === undefined || !apiKeyVariable.endsWith('_API_KEY')) return [];
  return [{ name: apiKeyVariable.replace(/_API_KEY$/, '_BASE_URL') }];
}
