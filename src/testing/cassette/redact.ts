/** Cassette redaction of headers, URLs and bodies, built on the one redaction module (core/redaction.ts). */

import type { JsonValue } from '../../core/json.ts';
import {
  API_KEY_PATTERNS,
  isSecretHeaderName,
  isSecretQueryName,
  isSecretQueryParameter,
  MINIMUM_SECRET_LENGTH,
  REDACTED,
  redactSecrets,
  SECRET_HEADER_NAMES,
  SECRET_QUERY_PARAMETERS,
  secretPatternIn,
  userinfoSpans,
} from '../../core/redaction.ts';

export { API_KEY_PATTERNS, REDACTED, SECRET_HEADER_NAMES, SECRET_QUERY_PARAMETERS };

/**
 * The secrets to remove from one exchange. Text is redacted by the one redaction module's
 * `redactSecrets`: every API-key shape, every secret registered in this process (adapter keys,
 * secret header values, AWS credentials), URL userinfo, and the literal `secrets` of this exchange.
 */
export interface Redaction {
  /** Header names to redact beyond the built-in rule, lowercase. */
  headerNames: ReadonlySet<string>;
  /** The literal secrets this exchange carries (secret header and query values). */
  secrets: readonly string[];
}

/** Builds a redaction for the given extra secret header names and literal secret values. */
export function createRedaction(headerNames: ReadonlySet<string>, secrets: Iterable<string>): Redaction {
  return { headerNames, secrets: [...new Set(secrets)] };
}

/** The built-in secret header names plus `extra`, lowercase. */
export function secretHeaderNames(extra: readonly string[] = []): ReadonlySet<string> {
  return new Set([...SECRET_HEADER_NAMES, ...extra.map((name) => name.toLowerCase())]);
}

/**
 * Whether a header's value is replaced whole. A request header is judged by the redaction module's
 * name rule (`isSecretHeaderName`: `*key*`, `*token*`, `x-amz-security-token`, a proxy's
 * `x-portkey-api-key` …) — it is what we send, credentials included. A response header only by the
 * fixed list and `extra` (`set-cookie`): the name rule would hide `x-ratelimit-remaining-tokens`,
 * which a replay needs; any secret in a response header's value is still removed as text.
 */
export function isSecretHeader(
  name: string,
  headerNames: ReadonlySet<string>,
  side: 'request' | 'response',
): boolean {
  const lower = name.toLowerCase();
  return headerNames.has(lower) || (side === 'request' && isSecretHeaderName(lower));
}

/**
 * The literal secrets carried by secret headers and secret query parameters: whole values, the
 * token after an auth scheme (`Bearer …`) and cookie values, so they can be removed from bodies too.
 */
export function collectSecrets(
  headers: Headers,
  url: string,
  headerNames: ReadonlySet<string>,
  side: 'request' | 'response' = 'request',
): string[] {
  const secrets: string[] = [];
  for (const [name, value] of headers) {
    if (isSecretHeader(name, headerNames, side)) secrets.push(...headerSecrets(name, value));
  }
  for (const [name, value] of queryParameters(url)) {
    if (isSecretQueryParameter(name)) secrets.push(value, encodeURIComponent(value));
  }
  return secrets.map((secret) => secret.trim()).filter((secret) => secret.length >= MINIMUM_SECRET_LENGTH);
}

function headerSecrets(name: string, value: string): string[] {
  const secrets = [value, value.slice(value.lastIndexOf(' ') + 1)];
  const pairs =
    name === 'set-cookie' ? value.split(';').slice(0, 1) : name === 'cookie' ? value.split(';') : [];
  // A SigV4 `authorization` value: `Credential=…, SignedHeaders=…, Signature=…`.
  if (name === 'authorization') pairs.push(...value.split(/[\s,]+/).filter((pair) => pair.includes('=')));
  for (const pair of pairs) secrets.push(pair.slice(pair.indexOf('=') + 1));
  return secrets;
}

function queryParameters(url: string): [string, string][] {
  try {
    return [...new URL(url).searchParams];
  } catch {
    return [];
  }
}

/** Replaces every secret in `text` with `[REDACTED]`. */
export function redactText(text: string, redaction: Redaction): string {
  return redactSecrets(text, redaction.secrets);
}

/** Redacts every string of a JSON value, object keys included. */
export function redactJson(value: JsonValue, redaction: Redaction): JsonValue {
  if (typeof value === 'string') return redactText(value, redaction);
  if (Array.isArray(value)) return value.map((item) => redactJson(item, redaction));
  if (value === null || typeof value !== 'object') return value;
  const redacted: { [key: string]: JsonValue } = {};
  for (const [key, item] of Object.entries(value))
    redacted[redactText(key, redaction)] = redactJson(item, redaction);
  return redacted;
}

/** Headers as a plain object with lowercase sorted names: secret headers replaced, others scrubbed. */
export function redactHeaders(
  headers: Headers,
  redaction: Redaction,
  side: 'request' | 'response',
): Record<string, string> {
  const redacted: Record<string, string> = {};
  for (const name of [...new Set(headers.keys())].sort()) {
    redacted[name] = isSecretHeader(name, redaction.headerNames, side)
      ? REDACTED
      : redactText(headers.get(name)!, redaction);
  }
  return redacted;
}

/** Replaces the values of secret query parameters, then any secret left anywhere in the URL. */
export function redactUrl(url: string, redaction: Redaction): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return redactText(url, redaction);
  }
  if (parsed.search.length > 1) {
    const parts = parsed.search.slice(1).split('&');
    parsed.search = parts
      .map((part) => (isSecretParameter(part) ? `${part.split('=')[0]}=${REDACTED}` : part))
      .join('&');
  }
  return redactText(parsed.href, redaction);
}

function isSecretParameter(part: string): boolean {
  return isSecretQueryName(part.split('=')[0]!);
}

/**
 * Redacts streamed chunks. A secret split across chunks is caught too: the chunks it spans (a key
 * shape, a literal secret, or a URL's `scheme://user:password@`) are merged into one before
 * redaction, so only the boundaries around a secret are lost.
 */
export function redactChunks(chunks: readonly string[], redaction: Redaction): string[] {
  const joinWithNext = new Array<boolean>(chunks.length).fill(false);
  const ends: number[] = [];
  let offset = 0;
  for (const chunk of chunks) ends.push((offset += chunk.length));
  const chunkAt = (position: number): number => ends.findIndex((end) => position < end);
  const joined = chunks.join('');
  const spans: Array<[number, number]> = userinfoSpans(joined);
  for (const match of joined.matchAll(secretPatternIn(joined, redaction.secrets)))
    spans.push([match.index, match.index + match[0].length]);
  for (const [start, end] of spans) {
    const last = chunkAt(end - 1);
    for (let index = chunkAt(start); index < last; index++) joinWithNext[index] = true;
  }
  const merged: string[] = [];
  let pending = '';
  chunks.forEach((chunk, index) => {
    pending += chunk;
    if (joinWithNext[index]) return;
    merged.push(redactText(pending, redaction));
    pending = '';
  });
  return merged;
}
