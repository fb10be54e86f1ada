/** The request's reasoning setting → the host's reasoning control (`reasoning_effort`, `reasoning`, `enable_thinking`). */
import type { JsonObject } from '../../core/json.ts';
import { type CanonicalRequest, type ReasoningRequest, wantsReasoning } from '../../core/request.ts';
import type { ProviderContext } from '../common/definition.ts';
import { acceptedEfforts, clampEffort, effortForBudget, openaiEffort } from '../openai/reasoning.ts';
import { matchesAnyGlob } from './capabilities.ts';
import type { ChatQuirks } from './quirks.ts';

export { clampEffort } from '../openai/reasoning.ts';

function addReasoningEffort(
  body: JsonObject,
  reasoning: ReasoningRequest,
  context: ProviderContext,
  quirks: ChatQuirks,
): void {
  const { effort, budgetTokens } = reasoning;
  const wanted =
    effort !== undefined
      ? openaiEffort(effort)
      : budgetTokens !== undefined
        ? effortForBudget(budgetTokens)
        : undefined;
  if (wanted === undefined) return;
  if (!matchesAnyGlob(quirks.reasoningEffortModels, context.model)) {
    context.warn('dropped reasoning_effort: the model does not take it', { model: context.model });
    return;
  }
  const sent = clampEffort(wanted, acceptedEfforts(quirks.reasoningEffortValues, context.model));
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
    if (wantsReasoning(reasoning))
      context.warn('dropped reasoning settings: the host thinks only in streaming calls', {
        model: context.model,
      });
    return;
  }
  if (reasoning === undefined) return;
  if (reasoning.effort === 'none') {
    if (context.capabilities.reasoning) body.enable_thinking = false;
    return;
  }
  if (reasoning.thinking === false) {
    // An effort without thinking: the host has no effort level, and thinking was not asked for.
    if (reasoning.effort !== undefined)
      context.warn('dropped the effort: the host takes no effort level', {
        model: context.model,
        requested: reasoning.effort,
      });
    return;
  }
  body.enable_thinking = true;
  if (reasoning.budgetTokens !== undefined) body.thinking_budget = reasoning.budgetTokens;
}

/**
 * Adds the reasoning control `quirks.reasoningParameter` names: `reasoning_effort` (limited to
 * `reasoningEffortModels`, clamped to `reasoningEffortValues`; a budget becomes the nearest level;
 * effort `none`, reasoning off, is sent as `none` or the least level the model takes, `xhigh` as
 * `xhigh` or the highest, each with a WARN when changed),
 * an OpenRouter `reasoning` object, `enable_thinking` (+ `thinking_budget`; `false` for reasoning
 * off, and always on a non-streaming call where `thinkingRequiresStream`; nothing, with a WARN, for
 * an effort without thinking, `thinking: false`), or nothing (with a WARN
 * when reasoning was requested). Reasoning off for a model that does not reason sends nothing.
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
  // Reasoning off on a model that does not reason: nothing to turn off.
  if (reasoning.effort === 'none' && !context.capabilities.reasoning) return;
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
