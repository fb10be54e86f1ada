/**
 * The one redaction module: what counts as a secret (header names, query parameters, provider key
 * shapes) and how it is removed. Used by transport errors, provider errors, the logger and cassettes.
 */

/** What every secret is replaced with. */
export const REDACTED = '[REDACTED]';

/** Header names whose values are always secret (lowercase). */
export const SECRET_HEADER_NAMES: readonly string[] = [
  'authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'cookie',
  'set-cookie',
  'proxy-authorization',
];

/** Header names that carry an API credential (a call with one counts as configured). */
export const CREDENTIAL_HEADER_NAMES: readonly string[] = [
  'authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
];

/** URL query parameter names whose values are always secret (lowercase). */
export const SECRET_QUERY_PARAMETERS: readonly string[] = ['key', 'api_key', 'apikey', 'access_token'];

/**
 * Provider API-key shapes, removed wherever they appear: Anthropic `sk-ant-`, OpenAI (and most
 * compatible hosts) `sk-`, Google `AIza`, Groq `gsk_`, xAI `xai-`.
 */
export const API_KEY_PATTERNS: readonly RegExp[] = [
  /sk-ant-[A-Za-z0-9_-]{16,}/,
  /sk-[A-Za-z0-9_-]{16,}/,
  /AIza[0-9A-Za-z_-]{30,}/,
  /gsk_[A-Za-z0-9]{20,}/,
  /xai-[A-Za-z0-9]{20,}/,
];

/** A key pattern must not start in the middle of a word: `task-…` does not hold an `sk-` key. */
const KEY_START = '(?<![A-Za-z0-9_-])';

/** Literal secrets shorter than this are not searched for (they would hit ordinary text). */
export const MINIMUM_SECRET_LENGTH = 8;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A global pattern matching every API-key shape and each of `secrets` (longest first). */
export function secretPattern(secrets: Iterable<string> = []): RegExp {
  const literals = [...new Set(secrets)]
    .filter((secret) => secret.length >= MINIMUM_SECRET_LENGTH)
    .sort((left, right) => right.length - left.length);
  const alternatives = [
    ...literals.map(escape),
    ...API_KEY_PATTERNS.map((keyPattern) => KEY_START + keyPattern.source),
  ];
  return new RegExp(alternatives.join('|'), 'g');
}

const keyShapes = secretPattern();

/**
 * Removes every API-key shape and each given literal secret (a header value, its token after
 * `Bearer `) from `text`.
 */
export function redactSecrets(text: string, secrets: Iterable<string | undefined> = []): string {
  const literals = [...secrets].flatMap((secret) =>
    secret === undefined ? [] : [secret, secret.slice(secret.lastIndexOf(' ') + 1)],
  );
  const pattern = literals.some((secret) => secret.length >= MINIMUM_SECRET_LENGTH)
    ? secretPattern(literals)
    : keyShapes;
  pattern.lastIndex = 0;
  return text.replace(pattern, REDACTED);
}

/** The values of secret headers in `headers`. */
export function secretHeaderValues(headers: Record<string, string> | undefined): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (SECRET_HEADER_NAMES.includes(name.toLowerCase())) values.push(value);
  }
  return values;
}

const secretQuery = new RegExp(`([?&](?:${SECRET_QUERY_PARAMETERS.join('|')})=)[^&#]*`, 'gi');

/** The URL with secret query parameters (`key=`, `api_key=` …) and any key shape replaced. */
export function redactUrl(url: string): string {
  return redactSecrets(url.replace(secretQuery, `$1${REDACTED}`));
}

/** Deep-copies a log-field value with every string redacted (cycles and depth bounded). */
export function redactFields(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (Array.isArray(value)) return value.map((item) => redactFields(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = redactFields(item, depth + 1);
  return copy;
}
