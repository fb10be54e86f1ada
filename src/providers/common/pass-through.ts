/**
 * Pass-through body fields (`providerOptions`): merged over the body an adapter built, except the
 * fields that say what the call is — the model and the conversation's messages. Those are the
 * request's own (`model`, `transcript`), and the reply's model and cost describe them; a
 * pass-through that changed them would send another model or other messages than the reply reports
 * and prices: refused. Each adapter names its fields as `callFields` in its `request.ts`. System
 * blocks may be passed through (the way to send Anthropic system blocks with a `cache_control` of
 * one's own). Streaming is the call's choice (`stream()` / `complete()`): a pass-through `stream` or
 * `stream_options` is left out, as it always was.
 */
import { InvalidRequestError } from '../../core/errors/invalid-request-error.ts';
import type { ProviderContext } from './definition.ts';

/** The refusal's code: a pass-through field that would change the model or the conversation's messages. */
export const reservedFieldCode = 'reserved_provider_option';

/**
 * Throws an `InvalidRequestError` (`reserved_provider_option`) naming the first of `callFields` that
 * `extra` sets, where the caller wrote it (`option`: `providerOptions.openai`).
 */
export function checkPassThrough(
  extra: Readonly<Record<string, unknown>> | undefined,
  callFields: readonly string[],
  option: string,
  context: Pick<ProviderContext, 'provider' | 'requestId'>,
): void {
  if (extra === undefined) return;
  const field = callFields.find((name) => Object.hasOwn(extra, name));
  if (field === undefined) return;
  throw new InvalidRequestError({
    message: `${context.provider}: ${option}.${field} cannot be sent: the model and the conversation's messages are the request's own (${callFields.join(', ')} are never passed through)`,
    provider: context.provider,
    requestId: context.requestId,
    providerCode: reservedFieldCode,
  });
}

/** The body fields that say whether a call streams: the call's own, so a pass-through one is left out. */
const streamFields = ['stream', 'stream_options'];

/** `extra` without {@link streamFields} (itself when it has none). */
export function withoutStreamFields<T extends Readonly<Record<string, unknown>>>(extra: T): T {
  if (!streamFields.some((name) => Object.hasOwn(extra, name))) return extra;
  const kept = { ...extra } as Record<string, unknown>;
  for (const name of streamFields) delete kept[name];
  return kept as T;
}

/**
 * Merges `extra` over `body` (its fields replace the body's) after {@link checkPassThrough}, less
 * its {@link streamFields}.
 */
export function mergePassThrough(
  body: Record<string, unknown>,
  extra: Readonly<Record<string, unknown>> | undefined,
  callFields: readonly string[],
  option: string,
  context: Pick<ProviderContext, 'provider' | 'requestId'>,
): void {
  checkPassThrough(extra, callFields, option, context);
  if (extra !== undefined) Object.assign(body, withoutStreamFields(extra));
}
