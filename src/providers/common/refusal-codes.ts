/**
 * The codes of an adapter's refusals that are about one request setting, so that a caller (the
 * gateway) can name the setting in its own terms: Anthropic's and Bedrock's thinking rules, and the
 * stop sequences past what Switchyard applies for a provider that takes fewer (`stop-sequences.ts`).
 */
export const refusalCodes = {
  /** More or longer stop sequences than are applied here for a provider that takes fewer (`stopSequences`). */
  tooManyStopSequences: 'too_many_stop_sequences',
  /** Extended thinking with a forced tool choice (`toolChoice`). */
  thinkingWithForcedToolChoice: 'thinking_with_forced_tool_choice',
  /** Extended thinking without room for its minimum budget (`maxOutputTokens`). */
  thinkingNeedsRoom: 'thinking_needs_room',
} as const;
