/** Extended thinking: canonical reasoning requests → `thinking` / `output_config.effort`, and their sampling limits. */
import { InvalidRequestError } from '../../core/errors/invalid-request-error.ts';
import type { CanonicalRequest, ReasoningEffort } from '../../core/request.ts';
import type { ProviderContext } from '../common/definition.ts';
import { refusalCodes } from '../common/refusal-codes.ts';
import { findToolTurnWithoutReasoning, type ToolTurnShape } from '../common/tool-turn.ts';
import type { WireMessage, WireThinking } from './api.ts';
import type { ModelProfile, OutputEffort } from './capabilities.ts';

/** The smallest `budget_tokens` the API accepts. */
export const minimumThinkingBudget = 1024;

/**
 * Budgets for an effort level on models that only take `budget_tokens`: minimal 1024, low 2048,
 * medium 8192, high 16384, xhigh 32768, max 65536 — each capped at three quarters of `max_tokens`
 * (at least 1024).
 */
export const effortBudgets: Record<ReasoningEffort, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 32768,
  max: 65536,
};

type Effort = OutputEffort;

/** The thinking settings of one request. */
export interface ThinkingSettings {
  thinking?: WireThinking;
  effort?: Effort;
}

/**
 * Canonical effort → `output_config.effort`: itself where the model takes it (`xhigh` and `max`
 * both on Opus 4.7). `xhigh` is the model's most where it has no `xhigh` (`max` on Opus and Sonnet
 * 4.6); any other level the model does not take (`minimal`; `xhigh` or `max` on Opus 4.5, whose most
 * is `high`) is the nearest it takes,
 * with the WARN `changed the reasoning effort to a level the model takes`.
 */
function mapEffort(effort: ReasoningEffort, profile: ModelProfile, context: ProviderContext): Effort {
  if ((profile.efforts as readonly string[]).includes(effort)) return effort as Effort;
  const sent = effort === 'minimal' ? (profile.efforts[0] ?? 'low') : (profile.efforts.at(-1) ?? 'high');
  if (sent !== 'max')
    context.warn('changed the reasoning effort to a level the model takes', {
      model: context.model,
      requested: effort,
      sent,
    });
  return sent;
}

/** The effort closest to a token budget, for models that take no budget (≤2048 low, ≤8192 medium). */
function effortForBudget(budget: number): Effort {
  if (budget <= 2048) return 'low';
  return budget <= 8192 ? 'medium' : 'high';
}

/** A refusal naming the adapter that refuses (Anthropic's, or Bedrock's for Claude there). */
function invalid(message: string, context: ProviderContext, providerCode: string): InvalidRequestError {
  return new InvalidRequestError({
    message: `${context.provider}: ${message}`,
    provider: context.provider,
    requestId: context.requestId,
    providerCode,
  });
}

/** Why thinking cannot fit under `maxTokens` (the WARN of an effort sent without thinking). */
const noRoomReason = (maxTokens: number) =>
  `maxOutputTokens ${maxTokens} leaves no room for extended thinking (budget_tokens must be at least ${minimumThinkingBudget} and below max_tokens)`;

function checkRoom(maxTokens: number, context: ProviderContext): void {
  if (maxTokens > minimumThinkingBudget) return;
  throw invalid(
    `extended thinking needs maxOutputTokens above ${minimumThinkingBudget} (budget_tokens must be at least ${minimumThinkingBudget} and below max_tokens), got ${maxTokens}`,
    context,
    refusalCodes.thinkingNeedsRoom,
  );
}

/** An explicit budget: raised to the minimum, kept below `max_tokens`, with a WARN when changed. */
function clampBudget(budget: number, maxTokens: number, context: ProviderContext): number {
  checkRoom(maxTokens, context);
  const clamped = Math.min(Math.max(Math.round(budget), minimumThinkingBudget), maxTokens - 1);
  if (clamped !== budget)
    context.warn('adjusted the thinking budget', { requested: budget, sent: clamped, maxTokens });
  return clamped;
}

/**
 * The budget of an effort level: its `effortBudgets` entry, scaled down to three quarters of
 * `max_tokens` (never below the 1024 minimum) so the answer keeps room. Not a WARN: an effort names
 * no exact budget.
 */
function effortBudget(effort: ReasoningEffort, maxTokens: number, context: ProviderContext): number {
  checkRoom(maxTokens, context);
  const room = Math.max(minimumThinkingBudget, Math.floor(maxTokens * 0.75));
  return Math.min(effortBudgets[effort], room);
}

/** Anthropic's wire messages, for {@link findToolTurnWithoutReasoning}: a turn opens with `thinking`/`redacted_thinking`. */
const toolTurnShape: ToolTurnShape<WireMessage> = {
  isAssistant: (message) => message.role === 'assistant',
  isToolResults: (message) =>
    message.role === 'user' && message.content.every((block) => block.type === 'tool_result'),
  startsWithReasoning: (message) => {
    const first = message.content[0]?.type;
    return first === 'thinking' || first === 'redacted_thinking';
  },
  hasToolCall: (message) => message.content.some((block) => block.type === 'tool_use'),
};

/**
 * The thinking settings for a request. Budget models get `{type:'enabled', budget_tokens}` (the
 * explicit budget, else the effort's budget scaled to `max_tokens`, see `effortBudget`). Adaptive
 * models get `{type:'adaptive'}` plus `output_config.effort` when an effort is given, and a budget
 * when only a budget is; a budget and an effort both asked go together where the model takes
 * both (Opus 4.5, 4.6: `budgetWithEffort`). Adaptive-only models (Opus 4.7+) always get adaptive
 * thinking, a budget being mapped to the nearest effort. Neither effort nor budget is the API's default effort: adaptive
 * thinking with no `output_config.effort` (the API applies `high`); a budget model, which has no
 * default, gets high's budget with the WARN `chose a thinking budget`. Effort `none` (reasoning off)
 * sends no `thinking`; an effort without thinking (`thinking: false`) only `output_config.effort`,
 * see `effortWithoutThinking`. On a budget model, a `maxOutputTokens` of 1,024 or less leaves no
 * room for the smallest budget: an effort (or no level) is then sent without thinking with a WARN
 * (`ignored a reasoning request`), an explicit budget refused (`thinking_needs_room`), as Anthropic
 * refuses it. Given the converted `messages`, thinking is left out with a WARN when
 * they continue a tool-use turn without a thinking block (`findToolTurnWithoutReasoning`), which the
 * API refuses under thinking, and beside a forced tool choice unless the budget is explicit (then
 * refused, as the API refuses it).
 */
export function convertReasoning(
  request: CanonicalRequest,
  profile: ModelProfile,
  context: ProviderContext,
  messages?: readonly WireMessage[],
): ThinkingSettings {
  const reasoning = request.reasoning;
  // Reasoning off (effort `none`) is Anthropic's default: no `thinking`.
  if (reasoning === undefined || reasoning.effort === 'none') return {};
  const { effort, budgetTokens } = reasoning;
  if (reasoning.thinking === false) return effortWithoutThinking(effort, profile, context);
  if (profile.thinking === 'none') {
    // The runtime refuses such requests first (capability `reasoning`); direct callers get a WARN.
    context.warn('ignored a reasoning request', { reason: `${profile.family} has no extended thinking` });
    return {};
  }
  const turnStart =
    messages === undefined ? undefined : findToolTurnWithoutReasoning(messages, toolTurnShape);
  if (turnStart !== undefined) {
    context.warn('thinking disabled for this turn: the last tool-use turn has no Anthropic thinking block', {
      messageIndex: turnStart,
      firstBlock: messages?.[turnStart]?.content[0]?.type,
    });
    return {};
  }
  // The API refuses thinking beside a forced tool choice. An effort names no exact thinking (OpenAI
  // and Gemini think beside a forced tool): the call goes without thinking, its effort kept as the
  // answer's effort where the model takes one, with a WARN. An explicit budget is refused
  // (`samplingUnderThinking`), as Anthropic refuses it.
  if (budgetTokens === undefined && forcesTool(request.toolChoice)) {
    context.warn('thinking disabled: a forced tool choice cannot be combined with extended thinking', {
      model: context.model,
      effort: effort ?? 'default',
    });
    return effortWithoutThinking(effort, profile, context);
  }
  if (budgetTokens !== undefined && effort !== undefined && profile.thinking !== 'adaptive-only') {
    const both = budgetWithEffort(request.maxOutputTokens, budgetTokens, effort, profile, context);
    if (both !== undefined) return both;
  }
  const adaptive =
    profile.thinking === 'adaptive-only' ||
    (profile.thinking === 'adaptive' && (effort !== undefined || budgetTokens === undefined));
  if (adaptive) {
    if (effort !== undefined)
      return { thinking: { type: 'adaptive' }, effort: mapEffort(effort, profile, context) };
    if (budgetTokens === undefined) return { thinking: { type: 'adaptive' } };
    return { thinking: { type: 'adaptive' }, effort: effortForBudget(budgetTokens) };
  }
  const maxTokens = request.maxOutputTokens;
  if (budgetTokens !== undefined)
    return { thinking: { type: 'enabled', budget_tokens: clampBudget(budgetTokens, maxTokens, context) } };
  if (maxTokens <= minimumThinkingBudget) {
    // An effort names no budget: with no room for the smallest one the call goes without thinking,
    // as OpenAI and Gemini serve a small cap with reasoning. An explicit budget is refused (`checkRoom`).
    context.warn('ignored a reasoning request', {
      reason: noRoomReason(maxTokens),
      effort: effort ?? 'high',
    });
    return {};
  }
  const budget = effortBudget(effort ?? 'high', maxTokens, context);
  if (effort === undefined)
    context.warn('chose a thinking budget: the model takes no adaptive thinking', {
      model: context.model,
      sent: budget,
      reason: "no effort or budget was asked; high's budget, as adaptive thinking defaults to effort high",
    });
  return { thinking: { type: 'enabled', budget_tokens: budget } };
}

/**
 * A budget and an effort both asked, on a model that takes both `budget_tokens` and
 * `output_config.effort` (Opus 4.5; Opus and Sonnet 4.6, whose budgets are deprecated but taken):
 * both are sent. The API takes them together, independent of each other — the effort steers all of
 * the reply's tokens, the budget caps the thinking ("high effort + 32k thinking": Anthropic's Opus
 * 4.5 migration guide, `references/effort.md` in anthropics/claude-code). No beta header: the
 * effort is sent without one wherever this adapter sends it (`effort-2025-11-24` was Opus 4.5's
 * launch beta). `undefined` for a model that takes no effort: the budget alone, as before (both
 * describe the thinking, and the explicit budget is the exact one).
 */
function budgetWithEffort(
  maxTokens: number,
  budget: number,
  effort: ReasoningEffort,
  profile: ModelProfile,
  context: ProviderContext,
): ThinkingSettings | undefined {
  if (profile.efforts.length === 0 || profile.thinking === 'none') return undefined;
  const thinking: WireThinking = { type: 'enabled', budget_tokens: clampBudget(budget, maxTokens, context) };
  return { thinking, effort: mapEffort(effort, profile, context) };
}

/**
 * An effort without thinking (`thinking: false`): `output_config.effort` alone where the model takes
 * one (Opus 4.5+: it steers text and tool calls), else nothing, with the WARN `dropped the effort`.
 */
function effortWithoutThinking(
  effort: ReasoningEffort | undefined,
  profile: ModelProfile,
  context: ProviderContext,
): ThinkingSettings {
  if (effort === undefined) return {};
  if (profile.efforts.length === 0) {
    context.warn('dropped the effort: the model takes no output_config.effort', {
      model: context.model,
      requested: effort,
    });
    return {};
  }
  return { effort: mapEffort(effort, profile, context) };
}

/** Whether a tool choice forces a tool call (`required` or a named tool), which thinking cannot go with. */
function forcesTool(choice: CanonicalRequest['toolChoice']): boolean {
  return choice === 'required' || (typeof choice === 'object' && choice.type === 'tool');
}

/** Sampling fields as they will be sent, after the thinking constraints. */
export interface Sampling {
  temperature?: number;
  top_p?: number;
  top_k?: number;
}

/**
 * Sampling as the API takes it. Claude 4.5 and later refuse `temperature` and `top_p` together:
 * `top_p` is then dropped with a WARN. Under extended thinking, `temperature` (other than 1) and
 * `top_k` are not allowed (dropped with a WARN), `top_p` must be within [0.95, 1] (raised with a
 * WARN), and a forced tool choice is refused (an InvalidRequestError: it cannot be sent as asked).
 */
export function convertSampling(
  request: CanonicalRequest,
  thinking: boolean,
  profile: ModelProfile,
  context: ProviderContext,
): Sampling {
  const sampling = samplingUnderThinking(request, thinking, context);
  if (profile.exclusiveSampling && sampling.temperature !== undefined && sampling.top_p !== undefined) {
    delete sampling.top_p;
    context.warn('dropped a sampling option', {
      option: 'top_p',
      reason: `${profile.family} takes temperature or top_p, not both`,
    });
  }
  return sampling;
}

/**
 * Anthropic's `temperature` runs from 0 to 1 (the API refuses more); OpenAI's and Gemini's to 2, so
 * a request written for them may carry 1.5: sent as 1, the nearest the API takes, with a WARN.
 */
function withinAnthropicRange(temperature: number, context: ProviderContext): number {
  if (temperature <= 1) return temperature;
  context.warn('adjusted a sampling option', {
    option: 'temperature',
    requested: temperature,
    sent: 1,
    reason: 'Anthropic takes a temperature from 0 to 1',
  });
  return 1;
}

function samplingUnderThinking(
  request: CanonicalRequest,
  thinking: boolean,
  context: ProviderContext,
): Sampling {
  const sampling: Sampling = {};
  const { temperature, topP, topK } = request;
  if (!thinking) {
    if (temperature !== undefined) sampling.temperature = withinAnthropicRange(temperature, context);
    if (topP !== undefined) sampling.top_p = topP;
    if (topK !== undefined) sampling.top_k = topK;
    return sampling;
  }
  if (forcesTool(request.toolChoice)) {
    throw invalid(
      'extended thinking cannot be combined with a forced tool choice (use auto or none)',
      context,
      refusalCodes.thinkingWithForcedToolChoice,
    );
  }
  if (temperature !== undefined && temperature !== 1)
    context.warn('dropped a sampling option', {
      option: 'temperature',
      reason: 'not allowed with extended thinking',
    });
  if (temperature === 1) sampling.temperature = 1;
  if (topK !== undefined)
    context.warn('dropped a sampling option', {
      option: 'top_k',
      reason: 'not allowed with extended thinking',
    });
  if (topP !== undefined) {
    sampling.top_p = Math.max(topP, 0.95);
    if (topP < 0.95)
      context.warn('adjusted a sampling option', {
        option: 'top_p',
        requested: topP,
        sent: 0.95,
        reason: 'extended thinking needs top_p ≥ 0.95',
      });
  }
  return sampling;
}
