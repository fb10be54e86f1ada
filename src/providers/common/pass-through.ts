/**
 * Pass-through body fields (`providerOptions`): merged over the body an adapter built, except the
 * fields that say what the call is — the model, the transcript, streaming. Those are the request's
 * own (`model`, `transcript`, `stream()` / `complete()`), and the reply's model and cost describe
 * them; a pass-through that changed them would send another model or other messages than the reply
 * reports and prices. Each adapter names its fields as `callFields` in its `request.ts`.
 */
import { InvalidRequestError } from '../../core/errors/invalid-request-error.ts';
import type { ProviderContext } from './definition.ts';

/** The refusal's code: a pass-through field that would change the model, the transcript or streaming. */
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
    message: `${context.provider}: ${option}.${field} cannot be sent: the model, the transcript and streaming are the request's own (${callFields.join(', ')} are never passed through)`,
    provider: context.provider,
    requestId: context.requestId,
    providerCode: reservedFieldCode,
  });
}

/** Merges `extra` over `body` (its fields replace the body's) after {@link checkPassThrough}. */
export function mergePassThrough(
  body: Record<string, unknown>,
  extra: Readonly<Record<string, unknown>> | undefined,
  callFields: readonly string[],
  option: string,
  context: Pick<ProviderContext, 'provider' | 'requestId'>,
): void {
  checkPassThrough(extra, callFields, option, context);
  if (extra !== undefined) Object.assign(body, extra);
}
