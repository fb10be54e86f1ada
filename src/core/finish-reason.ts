/** The closed set of reasons a response ends, plus the provider's raw value. */

/**
 * All finish reasons: the one list the {@link FinishReason} type, validation (the agent's stored
 * state) and exhaustive tests derive from.
 */
export const finishReasons = [
  'completed',
  'tool-call',
  'max-tokens',
  'stop-sequence',
  'content-filter',
  'cancelled',
  'error',
  'other',
] as const;

/** Why generation stopped. Providers map their own values into this set and keep the raw one. */
export type FinishReason = (typeof finishReasons)[number];
