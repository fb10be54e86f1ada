/**
 * The codes of an adapter's refusals that are about one request setting, so that a caller (the
 * gateway) can name the setting in its own terms: Anthropic's and Bedrock's thinking rules.
 */
export const refusalCodes = {
  /** Extended thinking with a forced tool choice (`toolChoice`). */
  thinkingWithForcedToolChoice: 'thinking_with_forced_tool_choice',
  /** Extended thinking without room for its minimum budget (`maxOutputTokens`). */
  thinkingNeedsRoom: 'thinking_needs_room',
} as const;
