/** The request's reasoning setting → the host's reasoning control (`reasoning_effort`, `reasoning`, `enable_thinking`). */
import type { JsonObject } from '../../core/json.ts';
import type { CanonicalRequest, ReasoningRequest } from '../../core/request.ts';
import type { ProviderContext } from '../common/definition.ts';
import { effortForBudget } from '../openai/reasoning.ts';
import { matchesAnyGlob, matchesGlob } from './capabilities.ts';
import type { ChatQuirks, ReasoningEffortValue } from './quirks.ts';

/** Effort levels from least to most reasoning. */
const effortOrder: readonly ReasoningEffortValue[] = ['none', 'minimal', 'low', 'medium', 'high'];

/** The levels the model accepts (the last matching glob of `quirks.reasoningEffortValues`), if limited. */
function acceptedEfforts(quirks: ChatQuirks, model: string): readonly ReasoningEffortValue[] | undefined {
  let accepted: readonly ReasoningEffortValue[] | undefined;
  for (const [pattern, values] of Object.entries(quirks.reasoningEffortValues)) {
    if (matchesGlob(pattern, model)) accepted = values;
  }
  return accepted;
}

/**
 * The level sent for `effort`: itself when the model takes it, else the lowest accepted level at or
 * above it, else the highest accepted level.
 */
export function clampEffort(
  effort: ReasoningEffortValue,
  accepted: readonly ReasoningEffortValue[] | undefined,
): ReasoningEffortValue {
  if (accepted === undefined || accepted.length === 0 || accepted.includes(effort)) return effort;
  const rank = effortOrder.indexOf(effort);
  const sorted = [...accepted].sort((left, right) => effortOrder.indexOf(left) - effortOrder.indexOf(right));
  return (
    sorted.find((value) => effortOrder.indexOf(value) >= rank) ?? (sorted.at(-1) as ReasoningEffortValue)
  );
}

function addReasoningEffort(
  body: JsonObject,
  reasoning: ReasoningRequest,
  context: ProviderContext,
  quirks: ChatQuirks,
): void {
  const { effort, budgetTokens } = reasoning;
  const wanted = effort ?? (budgetTokens !== undefined ? effortForBudget(budgetTokens) : undefined);
  if (wanted === undefined) return;
  if (!matchesAnyGlob(quirks.reasoningEffortModels, context.model)) {
    context.warn('dropped reasoning_effort: the model does not take it', { model: context.model });
    return;
  }
  const sent = clampEffort(wanted, acceptedEfforts(quirks, context.model));
  if (effort !== undefined && sent !== effort) {
    context.warn('changed the reasoning effort to a level the model takes', {
      model: context.model,
      requested: effort,
      sent,
    });
  }
  body.reasoning_effort = sent;
}

function addEnableThinking(
  body: JsonObject,
  reasoning: ReasoningRequest | undefined,
  context: ProviderContext,
  quirks: ChatQuirks,
): void {
  if (quirks.thinkingRequiresStream && !context.stream) {
    // Thinking is on by default for some models, and the host refuses it without streaming.
    body.enable_thinking = false;
    if (reasoning !== undefined)
      context.warn('dropped reasoning settings: the host thinks only in streaming calls', {
        model: context.model,
      });
    return;
  }
  if (reasoning === undefined) return;
  body.enable_thinking = true;
  if (reasoning.budgetTokens !== undefined) body.thinking_budget = reasoning.budgetTokens;
}

/**
 * Adds the reasoning control `quirks.reasoningParameter` names: `reasoning_effort` (limited to
 * `reasoningEffortModels`, clamped to `reasoningEffortValues`; a budget becomes the nearest level),
 * an OpenRouter `reasoning` object, `enable_thinking` (+ `thinking_budget`; always `false` on a
 * non-streaming call where `thinkingRequiresStream`), or nothing (with a WARN when reasoning was
 * requested).
 */
export function addReasoning(
  body: JsonObject,
  request: CanonicalRequest,
  context: ProviderContext,
  quirks: ChatQuirks,
): void {
  const reasoning = request.reasoning;
  if (quirks.reasoningParameter === 'enable_thinking') {
    addEnableThinking(body, reasoning, context, quirks);
    return;
  }
  if (reasoning === undefined) return;
  const { effort, budgetTokens } = reasoning;
  switch (quirks.reasoningParameter) {
    case 'reasoning_effort':
      addReasoningEffort(body, reasoning, context, quirks);
      return;
    case 'reasoning-object':
      body.reasoning =
        effort !== undefined ? { effort } : budgetTokens !== undefined ? { max_tokens: budgetTokens } : {};
      return;
    case 'none':
      context.warn('dropped reasoning settings: the host has no reasoning control', { model: context.model });
      return;
  }
}
