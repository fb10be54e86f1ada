/** The closed set of reasons a response ends, plus the provider's raw value. */

/** Why generation stopped. Providers map their own values into this set and keep the raw one. */
export type FinishReason =
  | 'completed'
  | 'tool-call'
  | 'max-tokens'
  | 'stop-sequence'
  | 'content-filter'
  | 'cancelled'
  | 'error'
  | 'other';

/** All finish reasons, for validation and exhaustive tests. */
export const finishReasons: readonly FinishReason[] = [
  'completed',
  'tool-call',
  'max-tokens',
  'stop-sequence',
  'content-filter',
  'cancelled',
  'error',
  'other',
];
