/** Canonical request → Converse body and path (`/model/{modelId}/converse` or `/converse-stream`). */
import { InvalidRequestError } from '../../core/errors/invalid-request-error.ts';
import type { JsonObject } from '../../core/json.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { ToolChoice, ToolSpec } from '../../core/tools.ts';
import type { ProviderContext, WireRequest } from '../common/definition.ts';
import type { WireCachePoint, WireMessage, WireRequestBody, WireTool } from './api.ts';
import { baseModelId } from './capabilities.ts';
import { modelProfile } from '../anthropic/capabilities.ts';
import { strictToolSchema, type StrictWarn } from '../anthropic/request.ts';
import { convertSampling, type Sampling } from '../anthropic/thinking.ts';
import { refusalCodes } from '../common/refusal-codes.ts';
import { findToolTurnWithoutReasoning, type ToolTurnShape } from '../common/tool-turn.ts';
import { applyCachePoints, convertSystem } from './cache.ts';
import { convertMessages } from './messages.ts';
import { modelPath } from './model-id.ts';
import { forbidToolCalls, notToBeCalled } from './no-tool-calls.ts';
import { readProviderOptions } from './options.ts';
import { mergePassThrough } from '../common/pass-through.ts';
import { stopSequencesWithText } from '../common/stop-sequences.ts';
import { warnSerialCallsUnenforced } from '../common/tool-settings.ts';

export { convertMessages } from './messages.ts';

/**
 * Canonical tool specs → `toolSpec`s (`inputSchema.json`). A strict tool gets `strict: true` on
 * the Claude models that take structured outputs (Converse's `toolSpec.strict`), its schema in
 * the closed form Claude's constrained decoding requires; on other models, or with a schema that
 * has none, it goes as written, with a WARN ({@link strictToolSchema}).
 */
export function convertTools(tools: readonly ToolSpec[], model = '', warn?: StrictWarn): WireTool[] {
  const id = baseModelId(model);
  const strictModel = id.startsWith('anthropic.') && modelProfile(id).capabilities.structuredOutput;
  return tools.map((tool) => {
    const strict = strictToolSchema(tool, strictModel, warn);
    const toolSpec: WireTool['toolSpec'] = {
      name: tool.name,
      inputSchema: { json: strict ?? tool.inputSchema },
    };
    if (tool.description !== undefined) toolSpec.description = tool.description;
    if (strict !== undefined) toolSpec.strict = true;
    return { toolSpec };
  });
}

/** auto → `{auto:{}}`, required → `{any:{}}`, a named tool → `{tool:{name}}` (Converse has no "none"). */
export function convertToolChoice(choice: ToolChoice | undefined): JsonObject | undefined {
  if (choice === 'auto') return { auto: {} };
  if (choice === 'required') return { any: {} };
  if (typeof choice === 'object') return { tool: { name: choice.name } };
  return undefined;
}

/** Names of the tools the transcript's calls use: Converse refuses tool blocks without a `toolConfig`. */
function usedToolNames(messages: WireMessage[]): string[] {
  const names = new Set<string>();
  for (const message of messages)
    for (const block of message.content) if (block.toolUse !== undefined) names.add(block.toolUse.name);
  return [...names];
}

function hasToolBlocks(messages: WireMessage[]): boolean {
  return messages.some((message) =>
    message.content.some((block) => block.toolUse !== undefined || block.toolResult !== undefined),
  );
}

/**
 * The tool config. With `toolChoice: 'none'` tools are left out; when the transcript still holds
 * tool blocks (Converse then requires a `toolConfig`), the tools it names are declared with an
 * open schema, so the history stays valid — under 'none' described as not to be called, and a
 * call made anyway dropped from the reply (`no-tool-calls.ts`).
 */
function buildToolConfig(
  request: CanonicalRequest,
  messages: WireMessage[],
  context: ProviderContext,
): WireRequestBody['toolConfig'] {
  const none = request.toolChoice === 'none';
  const tools: Array<WireTool | WireCachePoint> = none
    ? []
    : convertTools(request.tools ?? [], context.model, (message, fields) => context.warn(message, fields));
  if (tools.length === 0 && hasToolBlocks(messages)) {
    const declared = none ? [] : (request.tools ?? []).map((tool) => tool.name);
    for (const name of usedToolNames(messages))
      if (!declared.includes(name))
        tools.push({
          toolSpec: {
            name,
            ...(none ? { description: notToBeCalled } : {}),
            inputSchema: { json: { type: 'object' } },
          },
        });
  }
  if (tools.length === 0) return undefined;
  // Converse has no "none": a history with tool blocks must declare the tools it used, so the
  // model could call one of them; a call it makes is dropped from the reply.
  if (none) {
    forbidToolCalls(context);
    context.warn('dropped a tool setting the host does not take', {
      parameter: 'toolChoice',
      reason:
        "Converse has no tool choice 'none': the tools the history used are declared (it requires them), as not to be called; a call the model makes anyway is dropped from the reply",
    });
  }
  const config: NonNullable<WireRequestBody['toolConfig']> = { tools };
  const choice = none ? undefined : convertToolChoice(request.toolChoice);
  if (choice !== undefined) config.toolChoice = choice;
  return config;
}

const effortBudgets = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 24_576,
  xhigh: 32_768,
  max: 65_536,
} as const;
const minimumBudget = 1024;

/**
 * Reasoning off (effort `none`): Claude and Nova 2 reason only when asked, so no field; OpenAI's
 * open-weight models cannot turn it off and get `reasoning_effort: 'low'`, their least, with a WARN.
 */
function reasoningOff(id: string, context: ProviderContext): JsonObject {
  if (!id.startsWith('openai.')) return {};
  context.warn('changed the reasoning effort to a level the model takes', {
    model: context.model,
    requested: 'none',
    sent: 'low',
  });
  return { reasoning_effort: 'low' };
}

/** An effort without thinking (`thinking: false`) for Claude: Converse has no `output_config`, so nothing, with a WARN. */
function effortWithoutThinking(effort: string | undefined, context: ProviderContext): JsonObject {
  if (effort !== undefined)
    context.warn('dropped the effort: Claude on Bedrock takes no output_config.effort', {
      model: context.model,
      requested: effort,
    });
  return {};
}

/**
 * Converse's wire messages, for {@link findToolTurnWithoutReasoning}: a turn opens with
 * `reasoningContent`; cache points are not content. Under thinking, Claude refuses a tool-use turn
 * that does not (a ValidationException: "a final `assistant` message must start with a thinking
 * block").
 */
const toolTurnShape: ToolTurnShape<WireMessage> = {
  isAssistant: (message) => message.role === 'assistant',
  isToolResults: (message) => {
    const blocks = message.content.filter((block) => block.cachePoint === undefined);
    return (
      message.role === 'user' && blocks.length > 0 && blocks.every((block) => block.toolResult !== undefined)
    );
  },
  startsWithReasoning: (message) =>
    message.content.find((block) => block.cachePoint === undefined)?.reasoningContent !== undefined,
  hasToolCall: (message) => message.content.some((block) => block.toolUse !== undefined),
};

/**
 * Reasoning → `additionalModelRequestFields`: Claude `thinking` with `budget_tokens` (the explicit
 * budget, else by effort; kept ≥ 1,024 and below `maxTokens`; with `maxTokens` ≤ 1,024 an effort
 * goes without thinking with a WARN, an explicit budget is refused), Nova 2 `reasoningConfig`, OpenAI
 * `reasoning_effort` (both low to high: `minimal` is low, `xhigh` high with a WARN; an effort
 * without thinking too, as theirs is thinking effort; for Claude it is dropped). Other models
 * take no reasoning field (the pre-flight check refuses reasoning for models without it). Reasoning
 * off: see `reasoningOff`. Given the converted `messages`, Claude's thinking is left out with the
 * WARN `thinking disabled for this turn` when they continue a tool-use turn without a reasoning
 * block (`findToolTurnWithoutReasoning`), which Claude refuses under thinking — as the Anthropic
 * adapter does for the Messages API, InvokeModel and Vertex.
 */
export function convertReasoning(
  request: CanonicalRequest,
  model: string,
  context: ProviderContext,
  messages?: readonly WireMessage[],
): JsonObject {
  const reasoning = request.reasoning;
  if (reasoning === undefined) return {};
  const id = baseModelId(model);
  const asked = reasoning.effort;
  if (asked === 'none') return reasoningOff(id, context);
  if (id.startsWith('anthropic.')) {
    if (reasoning.thinking === false) return effortWithoutThinking(asked, context);
    const turnStart =
      messages === undefined ? undefined : findToolTurnWithoutReasoning(messages, toolTurnShape);
    if (turnStart !== undefined) {
      context.warn(
        'thinking disabled for this turn: the last tool-use turn has no Anthropic thinking block',
        {
          messageIndex: turnStart,
          firstBlock: Object.keys(messages?.[turnStart]?.content[0] ?? {})[0],
        },
      );
      return {};
    }
    const wanted = reasoning.budgetTokens ?? effortBudgets[asked ?? 'medium'];
    if (reasoning.budgetTokens === undefined && request.maxOutputTokens <= minimumBudget) {
      // An effort names no budget: with no room for the smallest one, no thinking (an explicit budget is refused).
      context.warn('ignored a reasoning request', {
        reason: `maxOutputTokens ${request.maxOutputTokens} leaves no room for extended thinking (budget_tokens must be at least ${minimumBudget} and below maxTokens)`,
        effort: asked ?? 'medium',
      });
      return {};
    }
    if (request.maxOutputTokens <= minimumBudget)
      throw new InvalidRequestError({
        message: `bedrock: extended thinking needs maxOutputTokens above ${minimumBudget}, got ${request.maxOutputTokens}`,
        provider: context.provider,
        requestId: context.requestId,
        providerCode: refusalCodes.thinkingNeedsRoom,
      });
    const budget = Math.min(Math.max(Math.round(wanted), minimumBudget), request.maxOutputTokens - 1);
    return { thinking: { type: 'enabled', budget_tokens: budget } };
  }
  const most = asked === 'xhigh' || asked === 'max';
  const effort = asked === 'minimal' ? 'low' : most ? 'high' : (asked ?? 'medium');
  if (most && (id.startsWith('amazon.nova') || id.startsWith('openai.')))
    context.warn('changed the reasoning effort to a level the model takes', {
      model: context.model,
      requested: asked,
      sent: effort,
    });
  if (id.startsWith('amazon.nova'))
    return { reasoningConfig: { type: 'enabled', maxReasoningEffort: effort } };
  if (id.startsWith('openai.')) return { reasoning_effort: effort };
  return {};
}

/**
 * Body fields no pass-through option sets (`common/pass-through.ts`): the messages (the model and
 * streaming are in the path).
 */
export const callFields = ['messages'] as const;

/**
 * Builds `POST /model/{modelId}/converse` (or `/converse-stream`). Body: messages, system,
 * inferenceConfig (maxTokens, temperature, topP, stopSequences), toolConfig,
 * additionalModelRequestFields (reasoning, top_k), then `providerOptions.bedrock.body` fields (e.g.
 * `guardrailConfig`, `performanceConfig`, `requestMetadata`; one of {@link callFields} there is
 * refused). Cache requests add cache points; the
 * caller's breakpoints in the system prompt keep theirs (`convertSystem`).
 */
export function buildRequest(request: CanonicalRequest, context: ProviderContext): WireRequest {
  const { systemRuns, messages } = convertMessages(request.transcript, context);
  const body: WireRequestBody = { messages };
  const system = convertSystem(systemRuns, context);
  if (system !== undefined) body.system = system;
  const additional: JsonObject = convertReasoning(request, context.model, context, messages);
  // Claude on Bedrock has the Messages API's sampling rules (temperature or top_p on 4.5+; under
  // thinking no temperature other than 1, no top_k, top_p ≥ 0.95, no forced tool choice).
  const id = baseModelId(context.model);
  const sampling: Sampling = id.startsWith('anthropic.')
    ? convertSampling(request, additional.thinking !== undefined, modelProfile(id), context)
    : { temperature: request.temperature, top_p: request.topP, top_k: request.topK };
  const inference: NonNullable<WireRequestBody['inferenceConfig']> = { maxTokens: request.maxOutputTokens };
  if (sampling.temperature !== undefined) inference.temperature = sampling.temperature;
  if (sampling.top_p !== undefined) inference.topP = sampling.top_p;
  // Claude refuses an empty or whitespace-only stop sequence (emulated here); an empty one stops at nothing.
  const stops = id.startsWith('anthropic.')
    ? stopSequencesWithText(request, context)
    : request.stopSequences?.filter((stop) => stop !== '');
  if (stops !== undefined && stops.length > 0) inference.stopSequences = stops;
  body.inferenceConfig = inference;
  const toolConfig = buildToolConfig(request, messages, context);
  if (toolConfig !== undefined) body.toolConfig = toolConfig;
  warnSerialCallsUnenforced(request, context);
  if (sampling.top_k !== undefined) additional.top_k = sampling.top_k;
  if (Object.keys(additional).length > 0) body.additionalModelRequestFields = additional;
  const options = readProviderOptions(request);
  mergePassThrough(body, options.body, callFields, 'providerOptions.bedrock.body', context);
  if (request.cache !== undefined && context.capabilities.promptCaching)
    applyCachePoints(body, request.cache, context);
  const operation = context.stream ? 'converse-stream' : 'converse';
  return {
    path: `/model/${modelPath(context.model, context)}/${operation}`,
    body: body as unknown as JsonObject,
  };
}
