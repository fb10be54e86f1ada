/**
 * Reading untrusted request bodies: typed field access that fails with a `RequestFieldError` naming
 * the field, and the refusal of fields that would change the answer but cannot be honoured.
 */
import { hasProtoKey, isJsonObject, type JsonObject, type JsonValue, removeProtoKeys } from '../core/json.ts';
import { repairJsonObject } from '../core/partial-json.ts';
import { losesNumberDigits, parseJson } from '../core/json-text.ts';
import type { PromptCacheRequest } from '../core/request.ts';
import { argumentsTextKey } from '../core/tool-arguments.ts';

/** A request the codec cannot take: malformed, or asking for something it cannot honour. */
export class RequestFieldError extends Error {
  override name = 'RequestFieldError';
  /** The field at fault, as a dotted path (`messages.2.content`). */
  readonly field: string;
  /** `invalid` for a malformed value, `unsupported` for a well-formed one the gateway cannot honour. */
  readonly reason: 'invalid' | 'unsupported';
  /** The reply's status when not 400 (a stored thread the gateway does not have: 404). */
  readonly status: number;
  /** Machine-readable details for the error body (Anthropic `error.details`). */
  readonly details: Record<string, unknown> | undefined;

  constructor(
    field: string,
    message: string,
    reason: 'invalid' | 'unsupported' = 'invalid',
    options: { status?: number; details?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.field = field;
    this.reason = reason;
    this.status = options.status ?? 400;
    this.details = options.details;
  }
}

/**
 * A client's text (or any value it sent) as shown back in messages, field paths and logs: at most
 * 200 characters (a key or value of 200 KB is not echoed whole into an error body or a log line).
 * A value that is not a string is shown as JSON, never through `String()`: an object such as
 * `{"toString": 1}` throws when converted, and a refusal must not become a 500.
 */
export function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : shownJson(value);
  return text.length <= 200 ? text : `${text.slice(0, 200)}…`;
}

function shownJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

/** The body as an object, or a `RequestFieldError` for the root. */
export function bodyObject(body: unknown): Record<string, unknown> {
  if (!isJsonObject(body)) throw new RequestFieldError('body', 'the request body must be a JSON object');
  return body;
}

/** An optional string field. */
export function optionalString(object: Record<string, unknown>, key: string, path = key): string | undefined {
  const value = object[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new RequestFieldError(path, `${path} must be a string`);
  return value;
}

/**
 * The prompt cache an OpenAI client asked for (Chat and Responses): `prompt_cache_key`, which also
 * turns the cache on toward a provider that has to be asked (Claude); `prompt_cache_retention`
 * `24h` and a `prompt_cache_options.ttl` (a minimum lifetime: `30m`) ask for the longest cache the
 * canonical request names, `1h`, and turn it on; `breakpoints` (the request's
 * `prompt_cache_breakpoint` markers, {@link openAiBreakpoint}) turn it on, `1h` when one names a
 * lifetime. Undefined when none of them is there.
 */
export function promptCacheOf(
  object: Record<string, unknown>,
  breakpoints: { marked: boolean; ttl: boolean } | undefined = undefined,
): PromptCacheRequest | undefined {
  const key = optionalString(object, 'prompt_cache_key');
  const retention = optionalString(object, 'prompt_cache_retention');
  if (retention !== undefined && retention !== 'in_memory' && retention !== '24h')
    throw new RequestFieldError('prompt_cache_retention', 'prompt_cache_retention must be in_memory or 24h');
  const options =
    object.prompt_cache_options === undefined || object.prompt_cache_options === null
      ? undefined
      : jsonObject(object.prompt_cache_options, 'prompt_cache_options');
  const mode =
    options === undefined ? undefined : optionalString(options, 'mode', 'prompt_cache_options.mode');
  if (mode !== undefined && mode !== 'implicit' && mode !== 'explicit')
    throw new RequestFieldError(
      'prompt_cache_options.mode',
      'prompt_cache_options.mode must be implicit or explicit',
    );
  const optionsTtl =
    options === undefined ? undefined : optionalString(options, 'ttl', 'prompt_cache_options.ttl');
  const hour = retention === '24h' || optionsTtl !== undefined || breakpoints?.ttl === true;
  const cache: PromptCacheRequest = {};
  if (key !== undefined && key !== '') cache.key = key;
  if (hour) cache.ttl = '1h';
  if (cache.key === undefined && !hour && breakpoints?.marked !== true) return undefined;
  return cache;
}

/**
 * The `prompt_cache_breakpoint` of an OpenAI content part (`{mode: "explicit", ttl?}`): undefined
 * without one, else whether it names a lifetime (`30m`, `12h`: a minimum, which only the one-hour
 * cache meets). Another shape is a 400 naming it.
 */
export function openAiBreakpoint(part: Record<string, unknown>, path: string): { ttl: boolean } | undefined {
  const value = part.prompt_cache_breakpoint;
  if (value === undefined || value === null) return undefined;
  const at = `${path}.prompt_cache_breakpoint`;
  const marker = jsonObject(value, at);
  if (marker.mode !== undefined && marker.mode !== 'explicit')
    throw new RequestFieldError(`${at}.mode`, `${at}.mode must be explicit`);
  return { ttl: optionalString(marker, 'ttl', `${at}.ttl`) !== undefined };
}

/**
 * The `prompt_cache_breakpoint` markers of a Chat `messages` or Responses `input` list, each
 * checked: on a message's content parts and a tool output's (`output`) parts. Whether any is there
 * (the cache is then on, as for an Anthropic client's `cache_control`) and whether one names a
 * lifetime.
 */
export function openAiBreakpoints(
  items: readonly unknown[],
  path: string,
): { marked: boolean; ttl: boolean } {
  const found = { marked: false, ttl: false };
  items.forEach((item, index) => {
    if (!isJsonObject(item)) return;
    for (const key of ['content', 'output']) {
      const parts = item[key];
      if (!Array.isArray(parts)) continue;
      parts.forEach((part, at) => {
        const marker = isJsonObject(part)
          ? openAiBreakpoint(part, `${path}.${index}.${key}.${at}`)
          : undefined;
        if (marker === undefined) return;
        found.marked = true;
        if (marker.ttl) found.ttl = true;
      });
    }
  });
  return found;
}

/** The client's value of `key`, to go on to OpenAI's own upstreams as written (`providerOptions.openai`). */
export function openAiPassThrough(
  object: Record<string, unknown>,
  keys: readonly string[],
): JsonObject | undefined {
  const passed: JsonObject = {};
  for (const key of keys) {
    const value = object[key];
    if (value !== undefined && value !== null) passed[key] = value as JsonValue;
  }
  return Object.keys(passed).length === 0 ? undefined : passed;
}

/**
 * Refuses `moderation` (Chat, Responses: moderation of the input and output by a model of
 * OpenAI's, whose results the reply would carry): the canonical reply has no place for them, and a
 * request served without it would leave the client believing its output was moderated.
 */
export function refuseModeration(object: Record<string, unknown>): void {
  refuse(
    object,
    'moderation',
    [],
    'moderation is not supported by the gateway: its results have no place in the reply; moderate the input and output with the moderations endpoint of your own account',
  );
}

/** A required non-empty string field. */
export function requiredString(object: Record<string, unknown>, key: string, path = key): string {
  const value = optionalString(object, key, path);
  if (value === undefined) throw new RequestFieldError(path, `${path} is required`);
  if (value === '') throw new RequestFieldError(path, `${path} must not be empty`);
  return value;
}

/** A string field that must be there but may be empty (a freeform call's text). */
export function presentString(object: Record<string, unknown>, key: string, path = key): string {
  const value = optionalString(object, key, path);
  if (value === undefined) throw new RequestFieldError(path, `${path} is required`);
  return value;
}

/** The sampling ranges every protocol accepts (the canonical request's): `temperature`, `top_p`. */
export const temperatureRange: readonly [number, number] = [0, 2];
export const topPRange: readonly [number, number] = [0, 1];

/** An optional finite number field, within `range` (inclusive) when given. */
export function optionalNumber(
  object: Record<string, unknown>,
  key: string,
  path = key,
  range?: readonly [number, number],
): number | undefined {
  const value = object[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new RequestFieldError(path, `${path} must be a number`);
  if (range !== undefined && (value < range[0] || value > range[1]))
    throw new RequestFieldError(path, `${path} must be between ${range[0]} and ${range[1]}`);
  return value;
}

/** An optional positive integer field (token limits, top-k), at most 2^53 − 1. */
export function optionalCount(object: Record<string, unknown>, key: string, path = key): number | undefined {
  const value = optionalNumber(object, key, path);
  if (value !== undefined && (!Number.isSafeInteger(value) || value < 1))
    throw new RequestFieldError(path, `${path} must be a positive integer`);
  return value;
}

/** An optional boolean field. */
export function optionalBoolean(
  object: Record<string, unknown>,
  key: string,
  path = key,
): boolean | undefined {
  const value = object[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw new RequestFieldError(path, `${path} must be a boolean`);
  return value;
}

/** An optional array field (items unchecked). */
export function optionalArray(
  object: Record<string, unknown>,
  key: string,
  path = key,
): unknown[] | undefined {
  const value = object[key];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw new RequestFieldError(path, `${path} must be an array`);
  return value;
}

/** An optional array of strings (stop sequences); any other item is a field error naming it. */
export function optionalStrings(
  object: Record<string, unknown>,
  key: string,
  path = key,
): string[] | undefined {
  const items = optionalArray(object, key, path);
  if (items === undefined) return undefined;
  for (const [index, item] of items.entries())
    if (typeof item !== 'string')
      throw new RequestFieldError(`${path}.${index}`, `${path}.${index} must be a string`);
  return items as string[];
}

/** An object that must be a JSON object (tool schemas, tool inputs). */
export function jsonObject(value: unknown, path: string): JsonObject {
  if (!isJsonObject(value)) throw new RequestFieldError(path, `${path} must be a JSON object`);
  return value as JsonObject;
}

/**
 * The input of a tool call from its arguments text (Chat, Responses). Text that is not a JSON
 * object — a model's broken arguments, sent back in the history as OpenAI itself accepts them — is
 * kept: its repair as `input`, the text itself in `switchyard.raw_input`, marked `incomplete`.
 */
export function parseArguments(
  text: unknown,
  path: string,
): { input: JsonObject; incomplete?: true; metadata?: Record<string, string> } {
  if (isJsonObject(text)) return { input: text as JsonObject };
  if (typeof text !== 'string') throw new RequestFieldError(path, `${path} must be a JSON string`);
  if (text.trim() === '') return { input: {} };
  let value: unknown;
  try {
    value = parseJson(text);
  } catch {
    value = undefined; // not JSON: kept as it came, below
  }
  if (isJsonObject(value)) {
    const input = value as JsonObject;
    // A `__proto__` key (a model wrote it; the gateway served it as text) cannot travel in `input`:
    // removed there, the text kept as the call's raw input, as the stream builder keeps a reply's.
    if (hasProtoKey(input)) {
      removeProtoKeys(input);
      return { input, incomplete: true, metadata: { 'switchyard.raw_input': text } };
    }
    // A number its parse would change (a 19-digit id) goes on as the client wrote it.
    return losesNumberDigits(text) ? { input, metadata: { [argumentsTextKey]: text } } : { input };
  }
  return {
    input: repairJsonObject(text) ?? {},
    incomplete: true,
    metadata: { 'switchyard.raw_input': text },
  };
}

/**
 * Refuses a field that would change the answer and cannot be honoured: present and different from
 * every value in `allowed` (e.g. `n` other than 1).
 */
export function refuse(
  object: Record<string, unknown>,
  key: string,
  allowed: readonly unknown[],
  why: string,
): void {
  const value = object[key];
  if (value === undefined || value === null || allowed.includes(value)) return;
  throw new RequestFieldError(key, `${key}: ${why}`, 'unsupported');
}

/** A JSON value as text for a tool result. */
export function textOf(value: JsonValue | unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
