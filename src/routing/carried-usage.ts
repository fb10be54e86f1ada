/** The usage of model failures a call failed over from, billed with the reply it serves. */
import type { CanonicalResponse } from '../core/request.ts';
import { addModelUsages, type ModelUsage, sumBuckets } from '../core/usage.ts';

/** Token usage by model (canonical id) of model failures a call failed over from. */
export type CarriedUsage = Record<string, ModelUsage> | undefined;

const noTokens: ModelUsage = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 };

/** `carried` with the usage of `response` (a model failure of the model `modelId`) added. */
export function carryUsage(
  carried: CarriedUsage,
  modelId: string,
  response: CanonicalResponse,
): CarriedUsage {
  const own = { [modelId]: sumBuckets(noTokens, response.usage) };
  return addModelUsages(addModelUsages(carried, own), response.usage.byModel);
}

/**
 * `response` billed with the model failures before it (their tokens were paid for): each in
 * `usage.byModel`, priced at its own model's rate into the reply's cost, so a budget or a gateway
 * key is charged for every attempt, not only the one served.
 */
export function withCarried(response: CanonicalResponse, carried: CarriedUsage): CanonicalResponse {
  if (carried === undefined) return response;
  return {
    ...response,
    usage: { ...response.usage, byModel: addModelUsages(response.usage.byModel, carried) },
  };
}
