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

/**
 * A SigV4 signature after its name (`Signature=` of an `authorization` header, `X-Amz-Signature=` of
 * a presigned URL) in any text, such as an upstream echoing the header back: the hex goes, the name
 * stays. The name in any case, then `=` (blanks around it allowed), its percent-encoding `%3D` (a URL inside a query) or a
 * JSON or repr field's `": "` (quotes optional, escaped or not). A signature is a credential for its
 * request until the request expires. (Written without the `i` flag: every pattern joins one regex.)
 */
const SIGNATURE_VALUE =
  /(?<=\b[Ss][Ii][Gg][Nn][Aa][Tt][Uu][Rr][Ee](?:[ \t]*=[ \t]*|%3[Dd]|\\?["']?[ \t]*:[ \t]*\\?["']?))[0-9a-fA-F]{64,}/;

/** Literal secrets shorter than this are not searched for (they would hit ordinary text). */
export const MINIMUM_SECRET_LENGTH = 8;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A global pattern matching every API-key shape, a SigV4 signature and each of `secrets` (longest first). */
export function secretPattern(secrets: Iterable<string> = []): RegExp {
  const literals = [...new Set(secrets)]
    .filter((secret) => secret.length >= MINIMUM_SECRET_LENGTH)
    .sort((left, right) => right.length - left.length);
  const alternatives = [
    ...literals.map(escape),
    ...API_KEY_PATTERNS.map((keyPattern) => KEY_START + keyPattern.source),
    SIGNATURE_VALUE.source,
  ];
  return new RegExp(alternatives.join('|'), 'g');
}

/**
 * The exact secret values known to this process, which every redaction below removes as well as the
 * key shapes, so a key that does not look like a key (a proxy's, a self-hosted host's) is still never
 * printed — in logs, errors or observer events. Two kinds, so that one can never push the other out:
 *
 * - configured secrets ({@link registerConfiguredSecrets}: every adapter's API key, secret header
 *   values, `base_url` passwords, MCP server secrets) are kept for as long as whatever holds them
 *   (the adapter, the registry's slot, the server's configuration) can still be reached — never
 *   forgotten while configured, and dropped once it is collected, so adapters made and dropped per
 *   request do not grow the set;
 * - rotating credentials ({@link registerSecrets}: a Bedrock STS session, a Vertex access token,
 *   registered with each request that sends them) are bounded: the {@link maxRotatingSecrets} most
 *   recently registered are kept, a re-registration making a secret the most recent again.
 */
const configuredSecrets = new Map<string, number>();

/** Each owner's configured secrets, released (one hold each) once the owner has been collected. */
const releaseWithOwner = new FinalizationRegistry<readonly string[]>((secrets) => {
  for (const secret of secrets) {
    const holders = configuredSecrets.get(secret) ?? 0;
    if (holders <= 1) configuredSecrets.delete(secret);
    else configuredSecrets.set(secret, holders - 1);
  }
});

/** Rotating credentials, least recently registered first. */
const rotatingSecrets = new Set<string>();
const maxRotatingSecrets = 256;

/**
 * The values of `secrets` long enough to search for, each followed by its last word (the token of
 * a `Bearer …` value) unless `lastWord` is false.
 */
function secretValues(secrets: Iterable<string | undefined>, lastWord: boolean): string[] {
  const values: string[] = [];
  for (const secret of secrets) {
    if (typeof secret !== 'string' || secret.length < MINIMUM_SECRET_LENGTH) continue;
    values.push(secret);
    if (!lastWord) continue;
    const token = secret.slice(secret.lastIndexOf(' ') + 1);
    if (token !== secret && token.length >= MINIMUM_SECRET_LENGTH) values.push(token);
  }
  return values;
}

/**
 * Registers the secrets of a configuration (shorter than {@link MINIMUM_SECRET_LENGTH} are ignored),
 * and the last word of each (the token of a `Bearer …` header value) unless `lastWord` is false:
 * removed by every redaction for as long as `owner` (the adapter, slot or configuration holding them)
 * can be reached, however many rotating credentials are registered meanwhile.
 */
export function registerConfiguredSecrets(
  owner: object,
  secrets: Iterable<string | undefined>,
  { lastWord = true }: { lastWord?: boolean } = {},
): void {
  const values = [...new Set(secretValues(secrets, lastWord))];
  if (values.length === 0) return;
  for (const value of values) configuredSecrets.set(value, (configuredSecrets.get(value) ?? 0) + 1);
  releaseWithOwner.register(owner, values);
}

/**
 * Registers rotating credentials (a fresh session, an access token) as {@link registerConfiguredSecrets}
 * does, but bounded: the {@link maxRotatingSecrets} most recently registered are kept, the least
 * recently registered forgotten first; registering a known one again makes it the most recent.
 */
export function registerSecrets(
  secrets: Iterable<string | undefined>,
  { lastWord = true }: { lastWord?: boolean } = {},
): void {
  for (const value of secretValues(secrets, lastWord)) {
    if (configuredSecrets.has(value)) continue;
    rotatingSecrets.delete(value);
    if (rotatingSecrets.size >= maxRotatingSecrets)
      rotatingSecrets.delete(rotatingSecrets.values().next().value as string);
    rotatingSecrets.add(value);
  }
}

const keyShapes = secretPattern();

/** `scheme://user:password@` in any URL: the userinfo is a credential. */
const userinfo = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi;

/** Where {@link redactSecrets} finds a URL's `scheme://userinfo@` in `text`: `[start, end)` of each. */
export function userinfoSpans(text: string): Array<[number, number]> {
  if (!text.includes('@')) return [];
  return [...text.matchAll(userinfo)].map((match) => [match.index, match.index + match[0].length]);
}

/**
 * Removes every API-key shape, every SigV4 signature, every registered secret and each given literal
 * secret (a header value, its token after `Bearer `) from `text`, and the userinfo of every URL in it.
 */
export function redactSecrets(text: string, secrets: Iterable<string | undefined> = []): string {
  const pattern = secretPatternIn(text, secrets);
  const redacted = text.replace(pattern, REDACTED);
  return redacted.includes('@') ? redacted.replace(userinfo, `$1${REDACTED}@`) : redacted;
}

/**
 * The global pattern {@link redactSecrets} applies to `text`: every API-key shape, plus those of
 * `secrets` (and their token after `Bearer `) and of the registered secrets that occur in `text`.
 */
export function secretPatternIn(text: string, secrets: Iterable<string | undefined> = []): RegExp {
  // Literal secrets are looked for with `includes` (a native scan), and only those present join the
  // pattern: one alternation of every known secret would cost a pass per secret per character.
  const present: string[] = [];
  for (const secret of secrets) {
    if (secret === undefined) continue;
    const token = secret.slice(secret.lastIndexOf(' ') + 1);
    if (secret.length >= MINIMUM_SECRET_LENGTH && text.includes(secret)) present.push(secret);
    if (token !== secret && token.length >= MINIMUM_SECRET_LENGTH && text.includes(token))
      present.push(token);
  }
  for (const secret of configuredSecrets.keys()) if (text.includes(secret)) present.push(secret);
  for (const secret of rotatingSecrets) if (text.includes(secret)) present.push(secret);
  const pattern = present.length > 0 ? secretPattern(present) : keyShapes;
  pattern.lastIndex = 0;
  return pattern;
}

/**
 * Whether a header carries a secret: a known credential header, or one whose name says key,
 * token, secret, password, auth, credential, session or cookie (`x-portkey-api-key`, `x-auth-token`).
 */
export function isSecretHeaderName(name: string): boolean {
  const lower = name.toLowerCase();
  return (
    SECRET_HEADER_NAMES.includes(lower) ||
    /key|token|secret|passw|auth|credential|session|cookie|signature/.test(lower)
  );
}

/** The values of secret headers in `headers`. */
export function secretHeaderValues(headers: Record<string, string> | undefined): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (isSecretHeaderName(name) && typeof value === 'string') values.push(value);
  }
  return values;
}

/** The password (or lone user, a token) in a URL's userinfo, to register as a secret. */
export function urlCredentials(url: string | undefined): string[] {
  if (url === undefined) return [];
  try {
    const parsed = new URL(url);
    return [
      decodeURIComponent(parsed.password),
      decodeURIComponent(parsed.username),
      parsed.password,
      parsed.username,
    ].filter((part) => part !== '');
  } catch {
    return [];
  }
}

/**
 * The last word of a query parameter name that says it carries a secret (`X-Amz-Signature`,
 * `X-Amz-Security-Token`, `api-key`, `subscription-key`, `accessToken`, Azure's `sig` and
 * Functions' `code`): a word ending in key, token, secret, signature, password or credential(s), or
 * one of a few exact words. Only the last word, so `max_tokens` or `session_expired` is not one.
 */
const secretNameWord =
  /(?:key|token|secret|signature|password|passwd|credentials?)$|^(?:sig|pwd|auth|authorization|code|session|sessionid)$/;

/**
 * Whether a URL query parameter carries a secret: one of {@link SECRET_QUERY_PARAMETERS}, or one
 * whose last word ({@link secretNameWord}, words split at `-`, `_` and `.`) says so.
 */
export function isSecretQueryParameter(name: string): boolean {
  const lower = name.toLowerCase();
  if (SECRET_QUERY_PARAMETERS.includes(lower)) return true;
  const start = Math.max(lower.lastIndexOf('-'), lower.lastIndexOf('_'), lower.lastIndexOf('.')) + 1;
  return secretNameWord.test(lower.slice(start));
}

/**
 * Whether a query parameter name as it stands in a URL (`shared%5Fsig`, `x+api+key`) carries a
 * secret: {@link isSecretQueryParameter} of its decoded form (of the raw one where it does not decode).
 */
export function isSecretQueryName(raw: string): boolean {
  try {
    return isSecretQueryParameter(decodeURIComponent(raw.replace(/\+/g, ' ')));
  } catch {
    return isSecretQueryParameter(raw);
  }
}

/**
 * A query parameter anywhere in a text: `?` or `&`, a name of at most 128 characters, `=`, a value
 * up to the next `&`, `#` or blank. Linear: the name is bounded and has no `?`, `&` or `=` in it
 * (an unbounded name pattern backtracked cubically on a text of many `?` and no `=`: 9,600
 * characters took 11 s), and a value stops at a blank, so free text after a URL is kept.
 */
const queryParameter = /([?&])([^=&#?\s]{1,128})=([^&#\s]*)/g;

/** The values of a URL's secret query parameters (raw and decoded), to register as secrets. */
export function secretQueryValues(url: string | URL | undefined): string[] {
  if (url === undefined) return [];
  try {
    const parsed = new URL(url);
    const values: string[] = [];
    for (const [name, value] of parsed.searchParams)
      if (isSecretQueryParameter(name) && value !== '') values.push(value, encodeURIComponent(value));
    return values;
  } catch {
    return [];
  }
}

/** The URL with its userinfo, secret query parameters (`key=`, `X-Amz-Signature=` …) and any secret replaced. */
export function redactUrl(url: string): string {
  const redacted = url.replace(queryParameter, (parameter, mark: string, name: string) =>
    isSecretQueryName(name) ? `${mark}${name}=${REDACTED}` : parameter,
  );
  return redactSecrets(redacted);
}

/** Deep-copies a log-field value with every string redacted (cycles and depth bounded). */
export function redactFields(value: unknown, depth = 0, secrets: Iterable<string | undefined> = []): unknown {
  if (typeof value === 'string') return redactSecrets(value, secrets);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (Array.isArray(value)) return value.map((item) => redactFields(item, depth + 1, secrets));
  if (value instanceof Error) return redactSecrets(`${value.name}: ${value.message}`, secrets);
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = redactFields(item, depth + 1, secrets);
  return copy;
}

/**
 * The error with its message (and `providerMessage`, `providerCode`) redacted in place, and a
 * `cause` that is not one of ours replaced by a redacted copy: what a custom `fetch` or a server
 * put in an error never leaves with a secret in it. Returns the same error.
 */
export function redactError<Failure>(error: Failure, secrets: Iterable<string | undefined> = []): Failure {
  if (!(error instanceof Error)) return error;
  const list = [...secrets];
  const target = error as Error & { providerMessage?: string; providerCode?: string; cause?: unknown };
  try {
    const message = redactSecrets(target.message, list);
    if (message !== target.message) target.message = message;
    for (const field of ['providerMessage', 'providerCode'] as const) {
      const value = target[field];
      if (typeof value === 'string') {
        const clean = redactSecrets(value, list);
        if (clean !== value)
          Object.defineProperty(target, field, {
            value: clean,
            writable: true,
            configurable: true,
            enumerable: true,
          });
      }
    }
    if (typeof target.stack === 'string') target.stack = redactSecrets(target.stack, list);
    const cause = target.cause;
    if (cause instanceof Error && typeof (cause as { errorClass?: unknown }).errorClass === 'string') {
      // One of ours (a classified error as cause): redacted in place, its class kept.
      if (cause !== error) redactError(cause, list);
    } else if (cause instanceof Error) {
      const copy = new Error(redactSecrets(cause.message, list));
      copy.name = cause.name;
      copy.stack = redactSecrets(cause.stack ?? '', list);
      const code = (cause as { code?: unknown }).code;
      if (typeof code === 'string') Object.assign(copy, { code });
      Object.defineProperty(target, 'cause', {
        value: copy,
        writable: true,
        configurable: true,
        enumerable: false,
      });
    } else if (typeof cause === 'string') {
      Object.defineProperty(target, 'cause', {
        value: redactSecrets(cause, list),
        writable: true,
        configurable: true,
        enumerable: false,
      });
    }
  } catch {
    // A frozen or exotic error is left as it is rather than turned into another failure.
  }
  return error;
}
