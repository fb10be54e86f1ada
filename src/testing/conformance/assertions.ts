/** Small assertions on top of `node:assert` (the kit must not depend on one test framework). */
import assert from 'node:assert/strict';
import { AdapterError } from '../../core/errors/adapter-error.ts';
import type { ErrorClass } from '../../core/errors/error-class.ts';
import type { StreamEvent } from '../../core/events.ts';
import type { CanonicalResponse } from '../../core/request.ts';
import type { Part } from '../../core/transcript.ts';
import type { JsonScript, RecordedRequest } from '../emulator/types.ts';
import type { MemoryLogger } from './types.ts';

/** Asserts that `actual` has each field of `expected` (deep-equal per field), naming the field. */
export function assertFields(actual: unknown, expected: Record<string, unknown>, what: string): void {
  assert.ok(
    typeof actual === 'object' && actual !== null,
    `${what}: expected an object, got ${String(actual)}`,
  );
  for (const [key, value] of Object.entries(expected)) {
    assert.deepEqual((actual as Record<string, unknown>)[key], value, `${what}: field ${key}`);
  }
}

/** The response of the last event, which must be `finish`. */
export function finishOf(events: readonly StreamEvent[]): CanonicalResponse {
  const last = events.at(-1);
  assert.ok(
    last?.type === 'finish',
    `the stream must end with finish, ended with ${last?.type ?? 'nothing'}`,
  );
  return last.response;
}

/** The error a promise rejects with (fails when it resolves). */
export async function rejection(promise: Promise<unknown>, what: string): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail(`${what}: expected the call to fail`);
}

/**
 * The `errorClass` of a caught error, which must be an `AdapterError` (contract §6.1: routers and
 * the `is*Error` guards recognize nothing else); undefined when nothing was thrown.
 */
export function errorClassOf(error: unknown, what = 'the error'): string | undefined {
  if (error === undefined) return undefined;
  assert.ok(
    AdapterError.isInstance(error),
    `${what}: ${error instanceof Error ? `${error.name} (${error.message})` : String(error)} is not an AdapterError`,
  );
  return error.errorClass;
}

/** Classes an adapter must never mark retryable: the same request fails the same way again. */
const finalClasses: readonly string[] = ['auth', 'invalid_request', 'context_overflow'];

/**
 * The subclass each error class is raised as (contract §6.1; `createAdapterError`): `catch` blocks
 * and `instanceof` checks of the caller's own code recover by it. `other` is the base class.
 */
const subclasses: Record<ErrorClass, string> = {
  rate_limit: 'RateLimitError',
  auth: 'AuthError',
  server_error: 'ServerError',
  network: 'NetworkError',
  context_overflow: 'ContextOverflowError',
  invalid_request: 'InvalidRequestError',
  cancelled: 'CancelledError',
  other: 'AdapterError',
};

/**
 * Asserts an `AdapterError` of `errorClass`, raised as that class's subclass (by its `name`, which
 * holds across copies of the package, as the `is*Error` guards do), marked retryable only where the
 * class is transient.
 */
export function assertClassified(error: unknown, errorClass: ErrorClass, what: string): void {
  assert.equal(errorClassOf(error, what), errorClass, `${what}: error class`);
  const name = (error as AdapterError).name;
  assert.equal(
    name,
    subclasses[errorClass],
    `${what}: a ${errorClass} error is raised as ${name}, not as its subclass ${subclasses[errorClass]}`,
  );
  if (finalClasses.includes(errorClass))
    assert.equal(
      (error as AdapterError).retryable,
      false,
      `${what}: a ${errorClass} error is marked retryable (the same request would fail again)`,
    );
}

/**
 * Asserts the fields contract §6.1 names on an error from the error response `answer`: its HTTP
 * `status`; a `providerCode` read from the answer (its body or a header, e.g. Bedrock's
 * `x-amzn-errortype`; compared without case, since a code may be normalised) wherever the answer
 * held one — every `protocolError` does; and the call's own request id (`request.requestId`, the id
 * `cancel()` takes and events carry).
 */
export function assertErrorFields(
  error: unknown,
  answer: JsonScript,
  requestId: string,
  what: string,
  hasCode = true,
): void {
  const fields = error as AdapterError;
  const status = answer.status ?? 200;
  assert.equal(
    fields.status,
    status,
    `${what}: error status ${String(fields.status)}, not the response's ${status}`,
  );
  const { codes, required } = answerCodes(answer);
  const code = fields.providerCode;
  if (hasCode && required)
    assert.ok(
      typeof code === 'string' && code !== '',
      `${what}: no providerCode, though the provider's error answer had one (${codes.join(', ')})`,
    );
  if (hasCode && typeof code === 'string' && codes.length > 0)
    assert.ok(
      codes.some((candidate) => candidate.toLowerCase() === code.toLowerCase()),
      `${what}: providerCode ${code} is not a code of the provider's error answer (${codes.join(', ')})`,
    );
  assert.equal(
    fields.requestId,
    requestId,
    `${what}: error requestId ${String(fields.requestId)}, not the call's request id ${requestId}`,
  );
}

/**
 * The codes a provider's error answer names: its error object's `code`, `type` and `status`
 * (OpenAI, Anthropic, Gemini; not the envelope's own `type: "error"`), a body's `__type`, and
 * Bedrock's `x-amzn-errortype` header (before its `:`). A code is required of the adapter unless the
 * answer names none, or says it has none (OpenAI's `code: null`, which its SDK reads as no code).
 */
function answerCodes(answer: JsonScript): { codes: string[]; required: boolean } {
  const body = answer.body as Record<string, unknown> | undefined;
  const nested = body !== null && typeof body === 'object' ? body.error : undefined;
  const inner = (nested !== null && typeof nested === 'object' ? nested : body) as
    Record<string, unknown> | undefined;
  const codes: string[] = [];
  if (inner !== undefined && inner !== null && typeof inner === 'object')
    for (const key of ['code', 'type', 'status', '__type']) {
      const value = inner[key];
      if (typeof value === 'string' && value !== '') codes.push(value);
      else if (typeof value === 'number') codes.push(String(value));
    }
  for (const [name, value] of Object.entries(answer.headers ?? {}))
    if (name.toLowerCase() === 'x-amzn-errortype' && typeof value === 'string')
      codes.push(/^[^:]*/.exec(value)![0]); // the type, before its `:` and URL
  const saysNone = inner !== undefined && inner !== null && typeof inner === 'object' && inner.code === null;
  return { codes, required: codes.length > 0 && !saysNone };
}

/** The text of the first text part, or '' when there is none. */
export function firstText(response: CanonicalResponse): string {
  const part = response.content.find((candidate) => candidate.type === 'text');
  return part?.type === 'text' ? part.text : '';
}

/** Content without part metadata (provider item ids, annotations), to compare what was said. */
export function withoutMetadata(content: readonly Part[]): Part[] {
  return content.map((part) => {
    if (part.metadata === undefined) return part;
    const { metadata: _metadata, ...rest } = part;
    return rest as Part;
  });
}

/** Headers that carry an API key or a bearer token. */
const credentialHeaders = ['x-api-key', 'api-key', 'x-goog-api-key', 'authorization'];

/** The credentials these requests carried (API keys, bearer tokens, a `key` query parameter). */
export function credentialsOf(requests: readonly RecordedRequest[]): string[] {
  const found = new Set<string>();
  for (const request of requests) {
    for (const name of credentialHeaders) {
      const value = request.headers[name];
      if (value === undefined) continue;
      // A SigV4 `authorization` holds a signature, not a key: only bearer tokens and plain keys count.
      const secret = name === 'authorization' ? /^Bearer\s+(.+)$/i.exec(value)?.[1] : value;
      if (secret !== undefined && isSecretLike(secret.trim())) found.add(secret.trim());
    }
    const key = request.query.key;
    if (key !== undefined && isSecretLike(key)) found.add(key);
  }
  return [...found];
}

/**
 * Whether a credential is one an error could leak rather than name by chance: 8 characters or
 * more, not a single word of letters. A local server's placeholder (Ollama's `ollama`, vLLM's
 * `EMPTY`) is also the provider's name or an ordinary word an error may well hold; no real key is.
 */
function isSecretLike(secret: string): boolean {
  return secret.length >= 8 && !/^[a-z]+$/i.test(secret);
}

/** The texts an error shows: message, provider message, `String()`, JSON, through its cause chain. */
function errorTexts(error: unknown): string[] {
  const texts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    const fields = typeof current === 'object' ? (current as Record<string, unknown>) : {};
    texts.push(String(current), String(fields.message ?? ''), String(fields.providerMessage ?? ''));
    try {
      texts.push(JSON.stringify(current) ?? '');
    } catch {
      // A cycle: the other texts still count.
    }
    current = fields.cause;
  }
  return texts;
}

/**
 * Asserts that no credential appears in the error (cause chain included) or in the WARN lines
 * logged from `warningsFrom` on.
 */
export function assertNoCredential(
  error: unknown,
  credentials: readonly string[],
  logger: MemoryLogger,
  warningsFrom: number,
  what: string,
): void {
  const logged = logger.entries
    .slice(warningsFrom)
    .map((entry) => `${entry.message} ${JSON.stringify(entry.fields)}`);
  for (const secret of credentials) {
    assert.ok(
      !errorTexts(error).some((text) => text.includes(secret)),
      `${what}: the API key or token sent to the provider appears in the error (message, cause or JSON)`,
    );
    assert.ok(
      !logged.some((text) => text.includes(secret)),
      `${what}: the API key or token sent to the provider appears in a WARN line`,
    );
  }
}
