/** The schema of a `Usage` read back from JSON (a paused run's state, a conversation snapshot). */
import { z } from 'zod';

/** A count or a cost: finite and never negative (a negative cost would lift a budget). */
export const amountSchema = z.number().finite().nonnegative();

/** Usage as stored: every count an amount, the cost (when priced) an amount in a currency. */
export const usageSchema = z.object({
  input: amountSchema,
  cacheRead: amountSchema,
  cacheWrite: amountSchema,
  output: amountSchema,
  reasoning: amountSchema,
  toolUsePrompt: amountSchema.optional(),
  webSearches: amountSchema.optional(),
  audioInput: amountSchema.optional(),
  audioCacheRead: amountSchema.optional(),
  audioOutput: amountSchema.optional(),
  serviceTier: z.string().optional(),
  cost: z
    .object({
      amount: amountSchema,
      currency: z.string(),
      pricingVersion: z.string().optional(),
      webSearchFees: amountSchema.optional(),
      unpricedServiceTier: z.string().optional(),
    })
    .optional(),
  byModel: z.unknown().optional(),
});
