/** Builds the Messages API request body (canonical → wire): messages, tools, thinking, caching, output format. */
import type { JsonObject } from '../../core/json.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { ToolChoice, ToolSpec } from '../../core/tools.ts';
import type { ProviderContext, WireRequest } from '../common/definition.ts';
import type { WireOutputConfig, WireTextBlock, WireTool, WireToolChoice } from './api.ts';
import { objectRootedOutput } from '../common/object-root.ts';
import { anthropicOutputSchema } from './output-schema.ts';
import { jsonInstruction, recordJsonMode } from './json-mode.ts';
import { applyCacheBreakpoints } from './cache.ts';
import { modelProfile } from './capabilities.ts';
import { convertMessages } from './messages.ts';
import { mergePassThrough } from '../common/pass-through.ts';
import { stopSequencesWithText } from '../common/stop-sequences.ts';
import type { AnthropicProviderOptions } from './options.ts';
import { convertReasoning, convertSampling } from './thinking.ts';

export { convertMessages } from './messages.ts';

/** Settings of the adapter instance that shape every request. */
export interface RequestSettings {
  /** Beta flags configured on the adapter (`AnthropicOptions.betas`). */
  betas?: readonly string[];
  /**
   * Whether `providerOptions.anthropic.clientBetas` is sent: by the Anthropic API's own adapter,
   * never by Claude on Bedrock or Vertex (their origins are not Anthropic's).
   */
  clientBetas?: boolean;
}

/** The WARN of a strict tool sent without `strict` (the OpenAI adapters' words). */
export type StrictWarn = (message: string, fields: Record<string, unknown>) => void;

/**
 * A strict tool's schema as Claude's strict tool use takes it (GA with structured outputs, no beta
 * flag; the models that take `output_config.format`): in the closed form the API requires
 * (`anthropicOutputSchema`), or undefined — with a WARN — where the model has no strict tools or
 * the schema no closed form, and the tool goes as written, without `strict`.
 */
export function strictToolSchema(
  tool: ToolSpec,
  modelTakes: boolean,
  warn?: StrictWarn,
): JsonObject | undefined {
  if (tool.strict !== true) return undefined;
  const schema = modelTakes ? anthropicOutputSchema(tool.inputSchema) : undefined;
  if (schema === undefined)
    warn?.('sent a tool without strict', {
      tool: tool.name,
      reason: modelTakes ? 'its schema cannot be made strict' : 'the model has no strict tool use',
    });
  return schema;
}

/**
 * Canonical tool specs → `{name, description, input_schema}`, with `strict: true` for a strict
 * tool where the model takes it ({@link strictToolSchema}).
 */
export function convertTools(tools: readonly ToolSpec[], strictModel = false, warn?: StrictWarn): WireTool[] {
  return tools.map((tool) => {
    const strict = strictToolSchema(tool, strictModel, warn);
    const input_schema = strict ?? tool.inputSchema;
    const wire: WireTool =
      tool.description === undefined
        ? { name: tool.name, input_schema }
        : { name: tool.name, description: tool.description, input_schema };
    if (strict !== undefined) wire.strict = true;
    return wire;
  });
}

/**
 * Canonical tool choice → `tool_choice`: auto, `required` → any, none, a named tool → `{type:'tool'}`.
 * `parallelToolCalls === false` adds `disable_parallel_tool_use` (on `auto` when no choice is given).
 */
export function convertToolChoice(
  choice: ToolChoice | undefined,
  parallelToolCalls: boolean | undefined,
): WireToolChoice | undefined {
  if (choice === 'none') return { type: 'none' };
  const parallel = parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === 'auto') return { type: 'auto', ...parallel };
  if (choice === 'required') return { type: 'any', ...parallel };
  if (typeof choice === 'object') return { type: 'tool', name: choice.name, ...parallel };
  return parallelToolCalls === false ? { type: 'auto', disable_parallel_tool_use: true } : undefined;
}

function requestOptions(request: CanonicalRequest): AnthropicProviderOptions {
  return (request.providerOptions?.anthropic ?? {}) as AnthropicProviderOptions;
}

function betaHeader(settings: RequestSettings, options: AnthropicProviderOptions): Record<string, string> {
  const extra = [
    ...(options.betas ?? []),
    ...(settings.clientBetas === true ? (options.clientBetas ?? []) : []),
  ];
  if (extra.length === 0) return {};
  const betas = [...new Set([...(settings.betas ?? []), ...extra])];
  return { 'anthropic-beta': betas.join(',') };
}

/** `system` with `instruction` after it: a string joined, blocks with one more text block. */
function withInstruction(
  system: string | WireTextBlock[] | undefined,
  instruction: string,
): string | WireTextBlock[] {
  if (Array.isArray(system)) return [...system, { type: 'text', text: instruction }];
  return system === undefined ? instruction : `${system}\n\n${instruction}`;
}

/** Body fields no pass-through option sets (`common/pass-through.ts`): the model, the messages. */
export const callFields = ['model', 'messages'] as const;

/**
 * Builds `POST /messages`. Body fields, in order: model, max_tokens, system, messages, tools,
 * tool_choice, thinking, output_config (effort, and structured output as `format: {type:'json_schema'}`,
 * the GA successor of the `output_format` beta, a root that is not an object wrapped as `{ value }`
 * (`common/object-root.ts`); a schema it cannot take is asked for by an
 * instruction after the system prompt, see `json-mode.ts`), stop_sequences, sampling, stream, then
 * `providerOptions.anthropic.body` (one of {@link callFields} there is refused). Cache requests then add breakpoints, counting those the body
 * fields brought (see `applyCacheBreakpoints`). Thinking is left out, with a WARN, when the request
 * continues a tool-use turn that did not start with an Anthropic thinking block (see
 * `convertReasoning`): the API would refuse it.
 */
export function buildRequest(
  request: CanonicalRequest,
  context: ProviderContext,
  settings: RequestSettings = {},
): WireRequest {
  const profile = modelProfile(context.model);
  const options = requestOptions(request);
  const { system, messages } = convertMessages(request.transcript, context);
  // Copies: cache breakpoints are written into the body, never into the caller's tool objects.
  const tools: Array<WireTool | Record<string, unknown>> = [
    ...convertTools(request.tools ?? [], profile.capabilities.structuredOutput, (message, fields) =>
      context.warn(message, fields),
    ),
    ...(options.tools ?? []).map((tool) => ({ ...tool })),
  ];
  const body: {
    model: string;
    max_tokens: number;
    system?: string | WireTextBlock[];
    messages: typeof messages;
    tools?: typeof tools;
    [field: string]: unknown;
  } = {
    model: context.model,
    max_tokens: request.maxOutputTokens,
    ...((typeof system === 'string' ? system.trim() : system).length === 0 ? {} : { system }),
    messages,
  };
  if (tools.length > 0) body.tools = tools;
  const toolChoice = convertToolChoice(request.toolChoice, request.parallelToolCalls);
  // The API refuses a tool_choice without tools.
  if (toolChoice !== undefined && tools.length > 0) body.tool_choice = toolChoice;
  const reasoning = convertReasoning(request, profile, context, messages);
  if (reasoning.thinking !== undefined) body.thinking = reasoning.thinking;
  const outputConfig: WireOutputConfig = {};
  if (reasoning.effort !== undefined) outputConfig.effort = reasoning.effort;
  if (request.outputSchema !== undefined) {
    // A root that is not an object goes wrapped as { value }, its reply unwrapped (object-root.ts).
    const output = objectRootedOutput(request.outputSchema, context);
    const schema = anthropicOutputSchema(output.schema);
    if (schema !== undefined) outputConfig.format = { type: 'json_schema', schema };
    else {
      // JSON of any shape has no closed form: asked for by instruction, the reply cleaned (json-mode.ts).
      body.system = withInstruction(body.system, jsonInstruction(output));
      recordJsonMode(context);
      context.warn('structured output asked for by instruction', {
        reason: "Anthropic's JSON outputs take no object of free-form keys (every object closed)",
      });
    }
  }
  if (Object.keys(outputConfig).length > 0) body.output_config = outputConfig;
  const stops = stopSequencesWithText(request, context);
  if (stops !== undefined) body.stop_sequences = stops;
  Object.assign(body, convertSampling(request, reasoning.thinking !== undefined, profile, context));
  if (context.stream) body.stream = true;
  // Body fields first: their markers (a top-level `cache_control`, verbatim blocks) count toward the limit.
  mergePassThrough(body, options.body, callFields, 'providerOptions.anthropic.body', context);
  if (request.cache !== undefined)
    applyCacheBreakpoints(body, request.cache, (message, fields) => context.warn(message, fields));
  return { path: '/messages', body: body as JsonObject, headers: betaHeader(settings, options) };
}
