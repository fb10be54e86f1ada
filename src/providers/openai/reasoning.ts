/** Reasoning settings shared by OpenAI's protocols (Chat Completions `reasoning_effort`, Responses `reasoning.effort`). */

/**
 * The effort level closest to a token budget, for hosts that take only a level: under 4k tokens
 * `low`, under 16k `medium`, else `high`.
 */
export function effortForBudget(budgetTokens: number): 'low' | 'medium' | 'high' {
  if (budgetTokens < 4_096) return 'low';
  return budgetTokens < 16_384 ? 'medium' : 'high';
}
