/** Reasoning settings shared by OpenAI's protocols (Chat Completions `reasoning_effort`, Responses `reasoning.effort`). */
import { lastMatchingRow } from '../../core/glob.ts';
import type { ReasoningEffort } from '../../core/request.ts';

/**
 * A `reasoning_effort` level as the wire spells it (`none` is OpenAI gpt-5.1+'s "no reasoning",
 * `xhigh` the level above `high` of gpt-5.1-codex-max, gpt-5.2 and later).
 */
export type ReasoningEffortValue = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

/**
 * A canonical effort as OpenAI's levels spell it: `max` (Anthropic's most) is OpenAI's most, `xhigh`
 * (then clamped to the model's levels as any other).
 */
export function openaiEffort(effort: ReasoningEffort | 'none'): ReasoningEffortValue {
  return effort === 'max' ? 'xhigh' : effort;
}

/** Effort levels from least to most reasoning. */
const effortOrder: readonly ReasoningEffortValue[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];

/**
 * The effort levels each OpenAI reasoning model accepts (glob rows, later keys win; OpenAI's
 * reasoning guide and model pages, and the levels Codex offers per model): the o-series low to high;
 * gpt-5 adds `minimal`; gpt-5.1 replaces it with `none`, the only way to turn reasoning off; gpt-5.2
 * and later add `xhigh`; the Codex models take neither `none` nor `minimal` (gpt-5.1-codex-max and
 * later `xhigh`); gpt-5-pro takes `high` only, gpt-5.2-pro `medium` to `xhigh`. A model without a
 * row takes any level.
 */
export const openaiEffortValues: Readonly<Record<string, ReasoningEffortValue[]>> = {
  'o1*': ['low', 'medium', 'high'],
  'o3*': ['low', 'medium', 'high'],
  'o4*': ['low', 'medium', 'high'],
  'gpt-5*': ['minimal', 'low', 'medium', 'high'],
  'gpt-5.*': ['none', 'low', 'medium', 'high', 'xhigh'],
  'gpt-5.1*': ['none', 'low', 'medium', 'high'],
  'gpt-5.*-codex*': ['low', 'medium', 'high', 'xhigh'],
  'gpt-5.1-codex*': ['low', 'medium', 'high'],
  'gpt-5.1-codex-max*': ['low', 'medium', 'high', 'xhigh'],
  'gpt-5-pro*': ['high'],
  'gpt-5.2-pro*': ['medium', 'high', 'xhigh'],
};

/** The levels `model` accepts under a table of glob rows (the last matching row), if limited. */
export function acceptedEfforts(
  table: Readonly<Record<string, readonly ReasoningEffortValue[]>>,
  model: string,
): readonly ReasoningEffortValue[] | undefined {
  return lastMatchingRow(table, model);
}

/**
 * The level sent for `effort`: itself when the model takes it, else the lowest accepted level at or
 * above it, else the highest accepted level. A model no table row knows takes it as is, but for
 * `xhigh`, sent as `high`: only OpenAI's newest models (rows of their own) take it, and a host whose
 * enum ends at `high` (Groq, Together, OpenRouter's routes) would refuse the whole call.
 */
export function clampEffort(
  effort: ReasoningEffortValue,
  accepted: readonly ReasoningEffortValue[] | undefined,
): ReasoningEffortValue {
  if (accepted === undefined || accepted.length === 0) return effort === 'xhigh' ? 'high' : effort;
  if (accepted.includes(effort)) return effort;
  const rank = effortOrder.indexOf(effort);
  const sorted = [...accepted].sort((left, right) => effortOrder.indexOf(left) - effortOrder.indexOf(right));
  return (
    sorted.find((value) => effortOrder.indexOf(value) >= rank) ?? (sorted.at(-1) as ReasoningEffortValue)
  );
}

/**
 * The effort level closest to a token budget, for hosts that take only a level: under 4k tokens
 * `low`, under 16k `medium`, else `high`.
 */
export function effortForBudget(budgetTokens: number): 'low' | 'medium' | 'high' {
  if (budgetTokens < 4_096) return 'low';
  return budgetTokens < 16_384 ? 'medium' : 'high';
}
