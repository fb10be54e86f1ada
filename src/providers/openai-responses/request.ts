/** The canonical request → a Responses request body (`POST /responses`). */
import { clientCallItems } from './client-calls.ts';
import type { ProtocolId } from '../../core/adapter.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import { type CanonicalRequest, type OutputSchema, wantsReasoning } from '../../core/request.ts';
import type { ToolChoice, ToolSpec } from '../../core/tools.ts';
import type { Item } from '../../core/transcript.ts';
import {
  acceptedEfforts,
  clampEffort,
  effortForBudget,
  openaiEffort,
  openaiEffortValues,
} from '../openai/reasoning.ts';
import { matchesAnyGlob } from '../openai/capabilities.ts';
import { recordStrictOutput, recordStrictTool } from '../openai/strict-nulls.ts';
import { convertStrictSchema, strictToolParameters } from '../openai/strict-schema.ts';
import { objectRootedOutput } from '../common/object-root.ts';
import type { ProviderContext, WireRequest } from '../common/definition.ts';
import { joinInstructions, leadingInstructions } from '../common/projection.ts';
import { hasDefaultOutputLimit } from '../common/routed.ts';
import { emulateStopSequences } from '../common/stop-sequences.ts';
import { convertInput } from './messages.ts';
import type { ResponsesStateMode } from './options.ts';
import { planInput } from './state.ts';
import { checkPassThrough, withoutStreamFields } from '../common/pass-through.ts';
import { promptCacheKey } from '../openai/prompt-cache-key.ts';

export { convertInput } from './messages.ts';

/** Where WARN entries go (`context.warn`). */
type Warn = ProviderContext['warn'];

/** What request building needs to know about the host. */
export interface RequestSettings {
  strictTools: boolean;
  state: ResponsesStateMode;
  /** Path of the endpoint (Azure adds `?api-version=…`). */
  path: string;
  /** Whether the host takes `reasoning.summary` and `include: ["reasoning.encrypted_content"]`. */
  reasoningReplay: boolean;
  /** Model globs that take `reasoning.effort`; for others a requested effort is dropped with a WARN. */
  effortModels: string[];
  /** Whether the host takes `custom` tools: a freeform tool goes as one (else as its function). */
  customTools: boolean;
}

/**
 * Function tools, `strict` sent explicitly (the Responses API defaults it to true). With `strict`
 * asked for, each schema is made strict-ready; one that cannot be goes with `strict: false` and a WARN.
 * A freeform tool goes as a `custom` tool with its format where the host takes them (`custom`),
 * else as the function of its `inputSchema`.
 */
export function convertTools(
  tools: readonly ToolSpec[],
  strict: boolean,
  warn?: Warn,
  custom = false,
): JsonObject[] {
  return tools.map((tool) => {
    if (custom && tool.freeform !== undefined) {
      const definition: JsonObject = { type: 'custom', name: tool.name };
      if (tool.description !== undefined) definition.description = tool.description;
      definition.format = { ...tool.freeform };
      return definition;
    }
    const definition: JsonObject = { type: 'function', name: tool.name };
    if (tool.description !== undefined) definition.description = tool.description;
    const { parameters, strict: isStrict } = strictToolParameters(tool, strict, warn);
    definition.parameters = parameters;
    // Sent even when false: the Responses API defaults to strict.
    definition.strict = isStrict;
    return definition;
  });
}

/** `auto` / `none` / `required`, or `{type:'function' | 'custom', name}` for one named tool. */
export function convertToolChoice(choice: ToolChoice, custom?: ReadonlySet<string>): JsonValue {
  if (typeof choice === 'string') return choice;
  return { type: custom?.has(choice.name) === true ? 'custom' : 'function', name: choice.name };
}

/** `text.format` for an output schema: `json_schema`, strict-ready unless the schema cannot be (WARN). */
export function convertTextFormat(schema: OutputSchema, warn?: Warn): JsonObject {
  const name = (schema.name ?? 'response').replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || 'response';
  const format: JsonObject = { type: 'json_schema', name, schema: schema.schema };
  if (schema.description !== undefined) format.description = schema.description;
  const converted = (schema.strict ?? true) ? convertStrictSchema(schema.schema) : undefined;
  if (converted !== undefined && 'schema' in converted) format.schema = converted.schema;
  else if (converted !== undefined)
    warn?.('sent the output schema without strict: it cannot be made strict', {
      schema: name,
      reason: converted.reason,
    });
  format.strict = converted !== undefined && 'schema' in converted;
  return format;
}

function addSampling(
  body: JsonObject,
  request: CanonicalRequest,
  context: ProviderContext,
  reasoning: boolean,
) {
  for (const [field, value] of [
    ['temperature', request.temperature],
    ['top_p', request.topP],
  ] as const) {
    if (value === undefined) continue;
    if (!reasoning) body[field] = value;
    else
      context.warn('dropped a sampling parameter the model rejects', {
        parameter: field,
        model: context.model,
      });
  }
  if (request.topK !== undefined)
    context.warn('dropped a sampling parameter the host does not take', { parameter: 'top_k' });
  // Responses takes no stop sequences: the reply is cut at them here (stop-sequences.ts).
  emulateStopSequences(request, context);
}

/**
 * `reasoning`: the effort (a budget becomes the nearest level) clamped to the levels the model takes
 * (`openaiEffortValues`, a WARN when changed: effort `none`, reasoning off, is gpt-5's `minimal`;
 * `xhigh` is gpt-5.1's `high`), and a summary when reasoning is replayed and wanted.
 */
function addReasoning(
  body: JsonObject,
  request: CanonicalRequest,
  context: ProviderContext,
  settings: RequestSettings,
) {
  const { effort, budgetTokens, includeThoughts } = request.reasoning ?? {};
  let wanted =
    effort !== undefined
      ? openaiEffort(effort)
      : budgetTokens !== undefined
        ? effortForBudget(budgetTokens)
        : undefined;
  if (wanted !== undefined && !matchesAnyGlob(settings.effortModels, context.model)) {
    context.warn('dropped a reasoning setting the model does not take', {
      parameter: 'reasoning.effort',
      model: context.model,
    });
    wanted = undefined;
  }
  if (wanted !== undefined) {
    const sent = clampEffort(wanted, acceptedEfforts(openaiEffortValues, context.model));
    if (effort !== undefined && sent !== effort)
      context.warn('changed the reasoning effort to a level the model takes', {
        model: context.model,
        requested: effort,
        sent,
      });
    wanted = sent;
  }
  const reasoning: JsonObject = {};
  if (wanted !== undefined) reasoning.effort = wanted;
  if (settings.reasoningReplay && wantsReasoning(request.reasoning) && includeThoughts !== false)
    reasoning.summary = 'auto';
  if (Object.keys(reasoning).length > 0) body.reasoning = reasoning;
  if (settings.reasoningReplay) body.include = ['reasoning.encrypted_content'];
}

/**
 * Builds the request body, fields in this order: model, instructions, input, tools, tool_choice,
 * parallel_tool_calls, max_output_tokens, temperature, top_p, text, reasoning, include, store,
 * previous_response_id / conversation, prompt_cache_key, then `providerOptions['openai-responses']`
 * (read by every Responses adapter, whatever its name) and `providerOptions[<adapter name>]`
 * merged verbatim (a `tools` array there is appended: built-in tools such as `web_search`; one of
 * {@link callFields} there is refused), then stream. What the input holds depends on the state mode ({@link planInput}).
 */
export function buildRequest(
  request: CanonicalRequest,
  context: ProviderContext,
  settings: RequestSettings,
): WireRequest {
  const capabilities = context.capabilities;
  const plan = planInput(request.transcript, context, settings.state);
  // The instructions that lead the conversation (only a stored prefix's plan needs them).
  const leading = plan.kind === 'full' ? 0 : leadingInstructions(request.transcript);
  const stateless = plan.kind === 'full' ? !plan.store : false;
  // Calls to freeform tools (and their results) travel as custom items where the host takes them.
  const custom = settings.customTools ? context.freeformTools : undefined;
  const customCalls = !settings.customTools
    ? undefined
    : custom === undefined
      ? new Set<string>()
      : customCallIds(request.transcript, custom);
  const converted =
    plan.kind === 'full'
      ? convertInput(request.transcript, context, { stateless, customCalls })
      : convertInput(plan.items, context, {
          stateless,
          indexOffset: plan.from,
          customCalls,
          // A result sent after its call (held by the server) still answers it as its own item.
          clientCalls: clientCallItems(request.transcript, context.provider),
          begun: leading < plan.from,
        });
  // previous_response_id does not carry instructions over: they come from the whole transcript
  // (those that lead it; later ones went in place, in the input the stored prefix holds).
  const instructions =
    plan.kind === 'full' ? converted.instructions : joinInstructions(request.transcript.slice(0, leading));
  const input = converted.input;
  const body: JsonObject = { model: context.model };
  if (instructions !== '') body.instructions = instructions;
  body.input = input as unknown as JsonValue;
  const warn: Warn = (message, fields) => context.warn(message, fields);
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    const converted = convertTools(tools, settings.strictTools, warn, custom !== undefined);
    body.tools = converted as unknown as JsonValue;
    // Sent strict: the added nulls in its calls' arguments are removed again (strict-nulls.ts).
    converted.forEach((entry, index) => {
      if (entry.type === 'function' && entry.strict === true)
        recordStrictTool(context, tools[index]!.name, tools[index]!.inputSchema);
    });
    if (request.toolChoice !== undefined) body.tool_choice = convertToolChoice(request.toolChoice, custom);
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  }
  // A limit the router chose is the model's own: the API's default, left to it.
  if (!hasDefaultOutputLimit(request)) body.max_output_tokens = request.maxOutputTokens;
  addSampling(body, request, context, capabilities.reasoning);
  if (request.outputSchema !== undefined) {
    // A root that is not an object goes wrapped, its reply unwrapped (object-root.ts).
    const output = objectRootedOutput(request.outputSchema, context);
    const format = convertTextFormat(output, warn);
    body.text = { format };
    // Sent strict: the reply's added nulls are removed again (strict-nulls.ts).
    if (format.strict === true) recordStrictOutput(context, output.schema);
  }
  if (request.verbosity !== undefined)
    body.text = { ...(isJsonObject(body.text) ? body.text : {}), verbosity: request.verbosity };
  if (capabilities.reasoning) addReasoning(body, request, context, settings);
  body.store = plan.kind === 'full' ? plan.store : true;
  if (plan.kind === 'delta' && plan.previousResponseId !== undefined)
    body.previous_response_id = plan.previousResponseId;
  if (plan.kind === 'delta' && plan.conversation !== undefined) body.conversation = plan.conversation;
  const cacheKey = promptCacheKey(request, context);
  if (cacheKey !== undefined) body.prompt_cache_key = cacheKey;
  // Options for every Responses adapter (the gateway's built-in tools), then this adapter's own.
  if (context.provider !== protocolOptionsKey)
    mergeProviderOptions(body, request.providerOptions, protocolOptionsKey, context);
  mergeProviderOptions(body, request.providerOptions, context.provider, context);
  if (context.stream) body.stream = true;
  return { path: settings.path, body };
}

/** The ids of the transcript's calls to freeform tools (`custom_tool_call` items, whose results are `custom_tool_call_output`). */
function customCallIds(transcript: readonly Item[], freeform: ReadonlySet<string>): Set<string> {
  const ids = new Set<string>();
  for (const item of transcript)
    if (item.kind === 'assistant')
      for (const part of item.parts)
        if (part.type === 'tool-call' && freeform.has(part.name)) ids.add(part.id);
  return ids;
}

/** The provider-options key every Responses adapter reads beside its own name: the protocol's (`CanonicalRequest.providerOptions`). */
export const protocolOptionsKey: ProtocolId = 'openai-responses';

/** Body fields no pass-through option sets (`common/pass-through.ts`): the model, the input items. */
export const callFields = ['model', 'input'] as const;

/**
 * Pass-through options (`providerOptions[key]`): a `tools` array is appended to the function tools;
 * a `text` object is merged into the body's (`verbosity` beside the output schema's `format`); one of
 * {@link callFields} is refused; anything else replaces.
 */
function mergeProviderOptions(
  body: JsonObject,
  options: CanonicalRequest['providerOptions'],
  key: string,
  context: ProviderContext,
): void {
  const extra = options?.[key];
  if (extra === undefined) return;
  checkPassThrough(extra, callFields, `providerOptions.${key}`, context);
  const { tools, text, ...rest } = withoutStreamFields(extra);
  Object.assign(body, rest);
  if (Array.isArray(tools)) body.tools = [...((body.tools as JsonValue[] | undefined) ?? []), ...tools];
  if (isJsonObject(text) && isJsonObject(body.text)) body.text = { ...body.text, ...text };
  else if (text !== undefined) body.text = text;
}
