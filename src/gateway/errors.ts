/** Classifies every failure the gateway meets into a `WireError`: the status its class implies, never a secret. */
import { sentFieldOf } from '../codecs/common.ts';
import { RequestFieldError } from '../codecs/fields.ts';
import type { Item, Part } from '../core/transcript.ts';
import { inboundCodecs } from '../codecs/index.ts';
import type { DecodedRequest, InboundProtocol, RequestSetting, WireError } from '../codecs/types.ts';
import { refusalCodes } from '../providers/common/refusal-codes.ts';
import type { CanonicalResponse } from '../core/request.ts';
import type { AdapterError } from '../core/errors/adapter-error.ts';
import { isAdapterError } from '../core/errors/guards.ts';
import { isOutOfCredit } from '../core/errors/rate-limit-error.ts';
import type { FinishReason } from '../core/finish-reason.ts';
import { isLocalResourceFailure } from '../core/errors/local-resource.ts';
import { modelFailureError } from '../core/errors/model-failure.ts';
import { ServerError } from '../core/errors/server-error.ts';
import { StateUnavailableError } from '../state/outage.ts';
import { QuotaError } from './quota.ts';
import { namesUpstreamAccount, withoutUpstreamAddresses } from '../core/errors/upstream-addresses.ts';
import { redactSecrets } from '../core/redaction.ts';

export { withoutUpstreamAddresses };

/** A gateway-level refusal (key, body size, unknown path) with its own status. */
export class GatewayError extends Error {
  override name = 'GatewayError';
  readonly wire: WireError;

  constructor(wire: WireError) {
    super(wire.message);
    this.wire = wire;
  }
}

/** 401 for a missing or unknown gateway key. */
export function unauthorized(message = 'invalid or missing gateway key'): GatewayError {
  return new GatewayError({ status: 401, errorClass: 'auth', message });
}

/**
 * The client closed its connection before its request ended: 499 (nginx's "client closed
 * request") in the access log and metrics; no reply reaches it.
 */
export function clientClosed(): GatewayError {
  return new GatewayError({
    status: 499,
    errorClass: 'cancelled',
    message: 'the client closed the connection before its request ended',
  });
}

/**
 * The gateway cancelled the call itself (a shutdown's grace period ended): 503, in-band when the
 * reply was streaming — the client is still there, and a cut reply must never read as whole.
 */
export function shutDown(): GatewayError {
  return new GatewayError({
    status: 503,
    errorClass: 'server_error',
    message: 'the gateway shut down before this reply finished; try again',
    retryAfterSeconds: 1,
    retryable: true,
  });
}

/**
 * The upstream call succeeded but the model's reply was unusable (a finish of `error` with no
 * failure: Gemini `MALFORMED_FUNCTION_CALL`, `MISSING_THOUGHT_SIGNATURE`, …). No client protocol
 * but Gemini has a finish for it, and a clean finish would read as a whole answer: a 502 (in-band
 * after content), retryable, naming the provider's reason and message.
 */
export function modelFailure(response: CanonicalResponse): GatewayError {
  return new GatewayError({
    ...toWireError(modelFailureError(response)),
    status: 502,
    code: 'model_failure',
    retryable: true,
  });
}

/**
 * A tool call the runtime closed as `incomplete` (its arguments were not complete JSON, or not an
 * object: its input is a repair) must never be run as if the model had finished it
 * (docs/endings-and-projection.md §2). A client whose protocol carries arguments as an object has
 * no such marker: the call would read as finished and be run with guessed arguments. So for a
 * Gemini client (which runs any `functionCall` it gets) such a call fails the reply, and for an
 * Anthropic client too, unless the output limit cut it — Anthropic's own answer then is the cut
 * call with `stop_reason: max_tokens`, which its clients know not to run. A 502 model failure
 * (in-band after content). Chat and Responses clients get the arguments as the model wrote them
 * (what those APIs give; Responses marks the item `incomplete`). Whether a client of `protocol`
 * must not get an unfinished call; `finishReason` undefined: the call has just ended, the finish
 * is still to come.
 */
export function hidesUnfinishedCall(
  protocol: InboundProtocol,
  finishReason: FinishReason | undefined,
): boolean {
  return (
    protocol === 'gemini' ||
    (protocol === 'anthropic-messages' && finishReason !== 'max-tokens' && finishReason !== undefined)
  );
}

/** The 502 model failure of a reply {@link hidesUnfinishedCall} refuses. */
function unfinishedCallFailure(provider: string): GatewayError {
  return new GatewayError({
    ...toWireError(
      new ServerError({
        message: `${provider}: the model ended a tool call without complete JSON arguments; it is not passed on as a call to run`,
        providerCode: 'model_failure',
        provider,
      }),
    ),
    status: 502,
    code: 'model_failure',
    retryable: true,
  });
}

/** The failure of a finished reply holding an unfinished call its client must not get ({@link hidesUnfinishedCall}). */
export function unfinishedCallIn(
  protocol: InboundProtocol,
  response: CanonicalResponse,
): GatewayError | undefined {
  // A failed or cancelled reply keeps its own error (or, for a client that left, nothing).
  if (response.finishReason === 'error' || response.finishReason === 'cancelled') return undefined;
  if (!hidesUnfinishedCall(protocol, response.finishReason)) return undefined;
  for (const part of response.content)
    if (part.type === 'tool-call' && part.incomplete === true)
      return unfinishedCallFailure(response.provider);
  return undefined;
}

/**
 * A refusal that names a canonical part (`transcript[2].parts[1]`: a media type the model does not
 * take) named by the client's own field instead (`messages.2.content.1`), in the message and `param`.
 */
/** The request setting an adapter's refusal (by its code) is about. */
const refusedSettings: Readonly<Record<string, RequestSetting>> = {
  [refusalCodes.tooManyStopSequences]: 'stopSequences',
  [refusalCodes.thinkingWithForcedToolChoice]: 'toolChoice',
  [refusalCodes.thinkingNeedsRoom]: 'maxOutputTokens',
  // The pre-flight's refusal of a cap above the named model's output limit (core/capability-check.ts).
  max_output_tokens_exceeded: 'maxOutputTokens',
};

/**
 * A refusal in the client's own terms where an adapter's refusal is about one request setting
 * (`thinking_with_forced_tool_choice` → Anthropic's `tool_choice`, Chat's `tool_choice`), as the codec's own
 * refusals name theirs: the field the client sent it in (`fields`, the decoded request's own names,
 * else the codec's usual one) as the `param`, and in the message where the adapter named the
 * setting by its canonical name (`maxOutputTokens` → Chat's `max_tokens`, Gemini's
 * `generationConfig.maxOutputTokens`).
 */
export function withClientParam(
  wire: WireError,
  error: unknown,
  protocol: InboundProtocol,
  fields?: DecodedRequest['requestFields'],
): WireError {
  if (wire.param !== undefined || wire.errorClass !== 'invalid_request' || !isAdapterError(error))
    return wire;
  const setting = refusedSettings[error.providerCode ?? ''];
  if (setting === undefined) return wire;
  const param = fields?.[setting] ?? inboundCodecs[protocol].requestFields?.[setting];
  if (param === undefined) return wire;
  // The canonical names are camelCase words (`maxOutputTokens`): whole words only.
  const message = wire.message.replace(new RegExp(`\\b${setting}\\b`, 'g'), param);
  return { ...wire, message, param };
}

export function inClientTerms(wire: WireError, transcript: readonly Item[] | undefined): WireError {
  if (transcript === undefined || wire.errorClass !== 'invalid_request') return wire;
  let first: string | undefined;
  const message = wire.message.replace(
    canonicalPartPath,
    (path: string, item: string, part: string, inner: string) => {
      const field = sentFieldOf(partAt(transcript[Number(item)]?.parts[Number(part)], inner));
      if (field === undefined) return path;
      first ??= field;
      return `(${field})`;
    },
  );
  return first === undefined ? wire : { ...wire, message, param: first };
}

/** `(transcript[2].parts[0])`, or a part inside a tool result's output: `…parts[0].output.parts[1])`. */
const canonicalPartPath = /\(transcript\[(\d+)\]\.parts\[(\d+)\]((?:\.output\.parts\[\d+\])*)\)/g;

/** The adapter types whose upstream speaks OpenAI Chat Completions or Responses. */
const openaiAdapterTypes = new Set(['openai', 'openai-responses', 'openai-compatible']);

/**
 * An OpenAI upstream's own `code` of a request it refused (`invalid_value`,
 * `unsupported_parameter`, `invalid_prompt`) passed on to a Chat Completions or Responses client,
 * whose protocol has the same codes: `adapterType` names the adapter type of a provider (the one
 * that refused, `error.provider`). Only a string `code` in the upstream's error body gives one
 * (`upstreamCode`, set by the OpenAI error parser): an adapter's own refusal codes are not OpenAI's,
 * nor is an error's `type` where it has no `code` (OpenAI's `invalid_request_error`, vLLM's
 * `BadRequestError`), though it is the error's `providerCode`. Its `param` is not passed on (the
 * classified error does not keep it): it names the field as the gateway sent it upstream, which
 * can differ from the client's (`max_completion_tokens` for the client's `max_tokens`, Chat's
 * `messages` where a Responses client sent `input`); the message still names it.
 */
export function withUpstreamCode(
  wire: WireError,
  error: unknown,
  protocol: InboundProtocol,
  adapterType: (provider: string) => string | undefined,
): WireError {
  if (protocol !== 'openai-chat' && protocol !== 'openai-responses') return wire;
  if (wire.code !== undefined || wire.errorClass !== 'invalid_request' || !isAdapterError(error)) return wire;
  const code = error.upstreamCode;
  if (code === undefined || error.provider === undefined) return wire;
  return openaiAdapterTypes.has(adapterType(error.provider) ?? '') ? { ...wire, code } : wire;
}

/** The part `inner` (`.output.parts[1]…`) leads to from `part`, through tool results. */
function partAt(part: Part | undefined, inner: string): Part | undefined {
  let current = part;
  for (const [, index] of inner.matchAll(/\[(\d+)\]/g)) {
    if (current?.type !== 'tool-result' || current.output.type !== 'parts') return undefined;
    current = current.output.parts[Number(index)];
  }
  return current;
}

function upstreamStatus(status: number | undefined, fallback: number): number {
  return status !== undefined && status >= 500 && status <= 599 ? status : fallback;
}

/**
 * The HTTP status an upstream failure came with, or for an in-band one (an error event in a
 * stream or a 200 body, no status of its own) the status its kind has over HTTP, so it reaches the
 * client as its HTTP twin does: an overload (Anthropic's `overloaded_error`, or what the adapter's
 * rules classified as one — `sharedErrorRules`, a message that says the model is overloaded) 529,
 * Anthropic's `timeout_error` 504 and `not_found_error` 404. Anthropic reports an overload this
 * way once its 200 is sent. Gemini's in-band errors and OpenRouter's name their status: it is kept.
 */
function statusOf(error: AdapterError): number | undefined {
  if (error.status !== undefined) return error.status;
  const status = inBandStatuses.get(error.providerCode ?? '');
  if (status !== undefined) return status;
  return error.errorClass === 'server_error' && error.overloaded ? 529 : undefined;
}

const inBandStatuses: ReadonlyMap<string, number> = new Map([
  ['overloaded_error', 529],
  ['overloaded', 529],
  ['timeout_error', 504],
  ['not_found_error', 404],
]);

/**
 * The status of a request the upstream refused: its own where that says more than 400 — 404 (a
 * model or resource it does not know), 409, 422 — else 400. (An upstream 413 is a context
 * overflow, a 400 `context_length_exceeded`.)
 */
function clientFaultStatus(status: number | undefined): number {
  return status === 404 || status === 409 || status === 422 ? status : 400;
}

/** A timeout of the upstream call (`timeout_first-byte`, `timeout_idle`, `timeout_total`: transport/http.ts, retry.ts). */
function isTimeout(error: AdapterError): boolean {
  return error.providerCode?.startsWith('timeout_') === true;
}

/**
 * The gateway itself had no file descriptor for a new upstream connection (EMFILE: its open-files
 * limit; ENFILE: the machine's): the provider was not reached and is not to blame, so a 503 with a
 * short `retry-after` (descriptors come back as other calls end), never the 502 of a failed upstream.
 */
function outOfDescriptors(error: AdapterError): WireError {
  return {
    status: 503,
    errorClass: 'server_error',
    code: 'out_of_file_descriptors',
    message: `the gateway has no free file descriptor to open a connection to ${error.provider ?? 'the provider'} (${error.providerCode}); try again shortly`,
    retryAfterSeconds: 1,
    retryable: true,
  };
}

/**
 * Codes of an auth failure where the key was taken but may not do this (a 403: no access to the
 * model, a missing IAM permission): Bedrock's and Anthropic's. Google's PERMISSION_DENIED is left
 * out: Google answers some refused keys with it too.
 */
const accessDenied = new Set(['accessDeniedException', 'permission_error']);

/** What an upstream auth failure tells the client: the key refused, or the account's access. */
function authMessage(provider: string | undefined, providerCode: string | undefined): string {
  const named = provider === undefined ? '' : ` (${provider})`;
  return accessDenied.has(providerCode ?? '')
    ? `upstream provider denied the gateway access${named}; the operator must check the account's permissions and model access`
    : `upstream provider refused the gateway's credentials${named}; the operator must check the provider key`;
}

/** The longest `retry-after` passed on to a client (s). */
const maxRetryAfterSeconds = 86_400;

/** What a client is told of an error no part of the gateway classified (a bug): nothing of it. */
const internalError: WireError = { status: 500, errorClass: 'other', message: 'internal gateway error' };

/**
 * An error {@link toWireError} answers as the internal 500 (no part of the gateway classified it):
 * the operator's to see, with its name and a cut, redacted message, since the client learns nothing.
 */
export function unexpectedError(error: unknown): Record<string, string> | undefined {
  if (
    error instanceof GatewayError ||
    error instanceof QuotaError ||
    error instanceof RequestFieldError ||
    StateUnavailableError.isInstance(error) ||
    isAdapterError(error)
  )
    return undefined;
  return {
    error: error instanceof Error ? error.name : typeof error,
    message: redactSecrets(error instanceof Error ? error.message : String(error)).slice(0, 300),
  };
}

/**
 * The warning an operator gets of a failure, if any: an error answered as the internal 500
 * ({@link unexpectedError}), the gateway's own lack of file descriptors for an upstream
 * connection (its open-files limit is too low for its load: the access log alone would show 503s),
 * or a provider the gateway has no credentials (or region) for: nothing was sent, the client is
 * told only that the upstream refused the gateway's credentials, and the access log's
 * `server_error` would hide that the operator's configuration is the cause.
 */
export function failureWarning(
  error: unknown,
): { message: string; fields: Record<string, string> } | undefined {
  if (isLocalResourceFailure(error))
    return {
      message: 'gateway: no free file descriptor for an upstream connection',
      fields: { code: error.providerCode ?? 'EMFILE', provider: error.provider ?? 'unknown' },
    };
  if (isAdapterError(error) && error.providerCode === 'not_configured')
    return {
      message: `gateway: a provider is not configured, nothing was sent: ${redactSecrets(error.message).slice(0, 500)}`,
      fields: { provider: error.provider ?? 'unknown', code: 'not_configured' },
    };
  const details = unexpectedError(error);
  return details === undefined ? undefined : { message: 'gateway: unexpected error', fields: details };
}

/**
 * The WARN of an upstream failure whose text names the operator's account at the provider (an
 * organization id, its usage): left out of the client's reply, shown whole to the operator here.
 * `key` says which account (one WARN per provider and text shape is enough).
 */
export function accountWarning(
  error: unknown,
): { key: string; message: string; fields: Record<string, string> } | undefined {
  if (!isAdapterError(error) || !namesUpstreamAccount(error.message)) return undefined;
  const provider = error.provider ?? 'unknown';
  return {
    key: `${provider}:${error.errorClass}:${error.providerCode ?? ''}`,
    message: `gateway: an upstream error named the operator's account (left out of the client's reply): ${error.message.slice(0, 2000)}`,
    fields: { provider, errorClass: error.errorClass },
  };
}

/**
 * OpenAI's `type` of a rate limit: `tokens` when the upstream's text says a token limit was reached
 * (`tokens per min (TPM)`, Anthropic's `input tokens per minute`), else the class's `requests`.
 */
function rateLimitType(message: string): string | undefined {
  return /\btokens? per (?:min|minute|day)\b|\b(?:TPM|TPD|ITPM|OTPM)\b/i.test(message) ? 'tokens' : undefined;
}

/** The wire error of anything thrown while serving a request. */
export function toWireError(error: unknown): WireError {
  if (error instanceof GatewayError || error instanceof QuotaError) return error.wire;
  if (StateUnavailableError.isInstance(error))
    return {
      status: 503,
      errorClass: 'server_error',
      code: 'state_unavailable',
      message: 'the gateway cannot reach its shared state; try again shortly',
      retryAfterSeconds: 1,
      retryable: true,
    };
  if (error instanceof RequestFieldError)
    return {
      status: error.status,
      errorClass: 'invalid_request',
      message: error.message,
      param: error.field,
      ...(error.details === undefined ? {} : { details: error.details }),
    };
  if (!isAdapterError(error)) return internalError;
  // Passed on as the client's `retry-after`, at most a day (an upstream's 73 years is not advice).
  const retryAfterSeconds =
    error.retryAfterSeconds === undefined
      ? undefined
      : Math.min(error.retryAfterSeconds, maxRetryAfterSeconds);
  const base = {
    message: withoutUpstreamAddresses(error.message),
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    // The front door's own retries and fallbacks are spent: the error's own word (an
    // `insufficient_quota` 429 or a certificate failure's 502 is not worth sending again).
    retryable: error.retryable,
  };
  switch (error.errorClass) {
    case 'auth':
      // The operator's problem, not the client's: never a 401 that would make a client drop its key.
      return {
        status: 502,
        errorClass: 'server_error',
        message: authMessage(error.provider, error.providerCode),
        // A 502 the official SDKs would send again, as many times as they retry, for nothing.
        retryable: false,
      };
    case 'rate_limit':
      // Out of credit (a 402, an `insufficient_quota` or `billing_error`) says so as OpenAI does,
      // not as a rate limit that invites another try.
      return !isOutOfCredit(error)
        ? {
            ...base,
            status: 429,
            errorClass: 'rate_limit',
            ...(rateLimitType(error.message) === undefined ? {} : { type: 'tokens' }),
          }
        : {
            ...base,
            status: 429,
            errorClass: 'rate_limit',
            code: 'insufficient_quota',
            type: 'insufficient_quota',
          };
    case 'server_error':
      return { ...base, status: upstreamStatus(statusOf(error), 502), errorClass: 'server_error' };
    case 'network':
      if (isLocalResourceFailure(error)) return outOfDescriptors(error);
      // The upstream did not answer in time (a first-byte, idle or total timeout): RFC 9110's 504.
      return { ...base, status: isTimeout(error) ? 504 : 502, errorClass: 'network' };
    case 'context_overflow':
      return { ...base, status: 400, errorClass: 'context_overflow' };
    case 'invalid_request': {
      const status = error.providerCode === 'unknown_model' ? 404 : clientFaultStatus(statusOf(error));
      // An upstream's 409 is a conflict that passes (OpenAI's "Another request is currently being
      // processed", a lock timeout): no `x-should-retry` unless the upstream said `true`, so the
      // SDKs send it again by their own rule, as they would to the provider itself.
      if (status === 409 && !error.retryable) {
        const { retryable: _withheld, ...rest } = base;
        return { ...rest, status, errorClass: 'invalid_request' };
      }
      return { ...base, status, errorClass: 'invalid_request' };
    }
    case 'cancelled':
      return { ...base, status: 499, errorClass: 'cancelled' };
    default:
      // An upstream's answer no class covers (a 3xx with nothing to follow): a bad gateway, not
      // this gateway's own fault (500).
      return { ...base, status: error.status === undefined ? 500 : 502, errorClass: 'other' };
  }
}
