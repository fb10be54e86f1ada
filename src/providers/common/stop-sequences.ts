/** The stop sequences of a request as a provider takes them: within its count limit. */
import { InvalidRequestError } from '../../core/errors/index.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { ProviderContext } from './definition.ts';
import { refusalCodes } from './refusal-codes.ts';

/**
 * `request.stopSequences` when there are any, at most `max` of them (OpenAI Chat takes 4, Gemini
 * 5). More is an `InvalidRequestError` naming the limit before any HTTP call: sending only some
 * would let the answer run past a sequence the caller asked to stop at, and the API refuses the
 * whole request anyway.
 */
export function stopSequencesWithin(
  request: CanonicalRequest,
  max: number | undefined,
  context: ProviderContext,
): string[] | undefined {
  const stops = request.stopSequences;
  if (stops === undefined || stops.length === 0) return undefined;
  if (max !== undefined && stops.length > max)
    throw new InvalidRequestError({
      message: `${context.provider}: takes at most ${max} stop sequences, got ${stops.length}`,
      provider: context.provider,
      requestId: context.requestId,
      providerCode: refusalCodes.tooManyStopSequences,
    });
  return stops;
}
