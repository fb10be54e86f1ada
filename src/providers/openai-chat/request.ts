/** The canonical request → a Chat Completions request body (`POST /chat/completions`). */
import type { Capabilities } from '../../core/capabilities.ts';
import type { JsonObject, JsonValue } from '../../core/json.ts';
import type { CanonicalRequest, OutputSchema } from '../../core/request.ts';
import type { ToolChoice, ToolSpec } from '../../core/tools.ts';
import type { ProviderContext, WireRequest } from '../shared/definition.ts';
import type { ChatTool } from './api.ts';
import { matchesAnyGlob } from './capabilities.ts';
import { convertMessages } from './messages.ts';
import type { ChatQuirks } from './quirks.ts';

export { convertMessages, instructionRole } from './messages.ts';

/** What request building needs to know about the host. */
export interface RequestSettings {
  quirks: ChatQuirks;
  /** The model's capabilities (decides, e.g., whether past tool calls can be replayed). */
  capabilities?: (model: string) => Capabilities;
  /** The user opted into `strict: true` function tools (sent only where `quirks.strict`). */
  strictTools: boolean;
}

/** Function tools; `strict: true` when asked for and the host takes it. */
export function convertTools(tools: readonly ToolSpec[], strict = false): ChatTool[] {
  return tools.map((tool) => {
    const definition: ChatTool['function'] = { name: tool.name, parameters: tool.inputSchema };
    if (tool.description !== undefined) definition.description = tool.description;
    if (strict) definition.strict = true;
    return { type: 'function', function: definition };
  });
}

/** `auto` / `none` / `required`, or `{type:'function', function:{name}}` for one named tool. */
export function convertToolChoice(choice: ToolChoice): JsonValue {
  if (typeof choice === 'string') return choice;
  return { type: 'function', function: { name: choice.name } };
}

function schemaName(schema: OutputSchema): string {
  const cleaned = (schema.name ?? 'response').replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  return cleaned === '' ? 'response' : cleaned;
}

/** `response_format` for an output schema: `json_schema` (strict where the host takes it) or `json_object`. */
export function convertResponseFormat(schema: OutputSchema, quirks: ChatQuirks): JsonObject | undefined {
  if (quirks.structuredOutput === 'json_object') return { type: 'json_object' };
  if (quirks.structuredOutput === 'none') return undefined;
  const format: JsonObject = { name: schemaName(schema), schema: schema.schema };
  if (schema.description !== undefined) format.description = schema.description;
  if (quirks.strict) format.strict = schema.strict ?? true;
  return { type: 'json_schema', json_schema: format };
}

/** The instruction that carries the schema to hosts that only have JSON mode. */
export function schemaInstruction(schema: OutputSchema): string {
  return `Respond with a single JSON object that conforms to this JSON Schema:\n${JSON.stringify(schema.schema)}`;
}

function addSampling(
  body: JsonObject,
  request: CanonicalRequest,
  context: ProviderContext,
  quirks: ChatQuirks,
) {
  const samplingAllowed = !matchesAnyGlob(quirks.samplingUnsupportedModels, context.model);
  for (const [field, value] of [
    ['temperature', request.temperature],
    ['top_p', request.topP],
  ] as const) {
    if (value === undefined) continue;
    if (samplingAllowed) body[field] = value;
    else
      context.warn('dropped a sampling parameter the model rejects', {
        parameter: field,
        model: context.model,
      });
  }
  if (request.topK !== undefined) {
    if (quirks.topK) body.top_k = request.topK;
    else context.warn('dropped a sampling parameter the host does not take', { parameter: 'top_k' });
  }
}

/**
 * The effort level closest to a token budget, for hosts that take only a level: under 4k tokens
 * `low`, under 16k `medium`, else `high`.
 */
export function effortForBudget(budgetTokens: number): 'low' | 'medium' | 'high' {
  if (budgetTokens < 4_096) return 'low';
  return budgetTokens < 16_384 ? 'medium' : 'high';
}

function addReasoning(
  body: JsonObject,
  request: CanonicalRequest,
  context: ProviderContext,
  quirks: ChatQuirks,
) {
  const reasoning = request.reasoning;
  if (reasoning === undefined) return;
  const { effort, budgetTokens } = reasoning;
  switch (quirks.reasoningParameter) {
    case 'reasoning_effort':
      if (effort !== undefined) body.reasoning_effort = effort;
      else if (budgetTokens !== undefined) body.reasoning_effort = effortForBudget(budgetTokens);
      return;
    case 'reasoning-object':
      body.reasoning =
        effort !== undefined ? { effort } : budgetTokens !== undefined ? { max_tokens: budgetTokens } : {};
      return;
    case 'enable_thinking':
      body.enable_thinking = true;
      if (budgetTokens !== undefined) body.thinking_budget = budgetTokens;
      return;
    case 'none':
      context.warn('dropped reasoning settings: the host has no reasoning control', { model: context.model });
      return;
  }
}

/**
 * Builds the request body, fields in this order: model, messages, tools, tool_choice,
 * parallel_tool_calls, the output limit (`max_completion_tokens` or `max_tokens`), temperature,
 * top_p, top_k, stop, response_format, the reasoning control, then the request's
 * `providerOptions[<adapter name>]` merged verbatim (e.g. `seed`, `service_tier`, OpenRouter
 * `provider` routing), then stream and stream_options (which pass-through options cannot change).
 */
export function buildRequest(
  request: CanonicalRequest,
  context: ProviderContext,
  settings: RequestSettings,
): WireRequest {
  const { quirks } = settings;
  const schema = request.outputSchema;
  const appendix =
    schema !== undefined && quirks.structuredOutput === 'json_object' ? schemaInstruction(schema) : undefined;
  const tools = request.tools ?? [];
  const toolsSupported = settings.capabilities?.(context.model).tools ?? true;
  const messages = convertMessages(request.transcript, context, quirks, { appendix, tools: toolsSupported });
  const body: JsonObject = { model: context.model, messages: messages as unknown as JsonValue };
  if (tools.length > 0) {
    body.tools = convertTools(tools, settings.strictTools && quirks.strict) as unknown as JsonValue;
    if (request.toolChoice !== undefined) body.tool_choice = convertToolChoice(request.toolChoice);
    if (request.parallelToolCalls !== undefined && quirks.parallelToolCalls)
      body.parallel_tool_calls = request.parallelToolCalls;
  }
  body[quirks.maxTokensField] = request.maxOutputTokens;
  addSampling(body, request, context, quirks);
  if (request.stopSequences !== undefined && request.stopSequences.length > 0)
    body.stop = request.stopSequences;
  if (schema !== undefined) {
    const format = convertResponseFormat(schema, quirks);
    if (format !== undefined) body.response_format = format;
  }
  addReasoning(body, request, context, quirks);
  const extra = request.providerOptions?.[context.provider];
  if (extra !== undefined) Object.assign(body, extra);
  // Streaming is the call's choice, never a pass-through option.
  delete body.stream;
  delete body.stream_options;
  if (context.stream) {
    body.stream = true;
    if (quirks.streamOptions) body.stream_options = { include_usage: true };
  }
  return { path: '/chat/completions', body };
}
