/** The canonical request → a Chat Completions request body (`POST /chat/completions`). */
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import type { CanonicalRequest, OutputSchema } from '../../core/request.ts';
import type { ToolChoice, ToolSpec } from '../../core/tools.ts';
import type { ProviderContext, WireRequest } from '../common/definition.ts';
import type { ChatTool } from './api.ts';
import { matchesAnyGlob } from './capabilities.ts';
import { convertMessages } from './messages.ts';
import type { ChatQuirks } from './quirks.ts';
import { addReasoning } from './reasoning.ts';
import { recordStrictOutput, recordStrictTool } from '../openai/strict-nulls.ts';
import { convertStrictSchema, strictToolParameters } from '../openai/strict-schema.ts';
import { objectRootedOutput } from '../common/object-root.ts';
import { hasDefaultOutputLimit } from '../common/routed.ts';
import { emulateStopSequences, stopSequencesWithin } from '../common/stop-sequences.ts';
import { warnSerialCallsUnenforced } from '../common/tool-settings.ts';
import { mergePassThrough } from '../common/pass-through.ts';
import { promptCacheKey } from '../openai/prompt-cache-key.ts';

export { convertMessages, instructionRole } from './messages.ts';

/** Where WARN entries go (`context.warn`). */
type Warn = ProviderContext['warn'];

/** What request building needs to know about the host. */
export interface RequestSettings {
  quirks: ChatQuirks;
  /** The user opted into `strict: true` function tools (sent only where `quirks.strict`). */
  strictTools: boolean;
}

/**
 * Function tools. With `strict` (asked by the tool, else by the adapter's option; only where the
 * host takes it, else with a WARN) each tool's parameters are made strict-ready
 * ({@link convertStrictSchema}) and sent with `strict: true`; a tool whose schema cannot be
 * normalised safely goes without `strict`, with a WARN.
 */
export function convertTools(
  tools: readonly ToolSpec[],
  strict = false,
  warn?: Warn,
  hostTakesStrict = true,
): ChatTool[] {
  return tools.map((tool) => {
    if (!hostTakesStrict && tool.strict === true)
      warn?.('sent a tool without strict: the host does not take it', { tool: tool.name });
    const asked = hostTakesStrict ? tool : { ...tool, strict: false };
    const { parameters, strict: isStrict } = strictToolParameters(asked, strict, warn);
    const definition: ChatTool['function'] = { name: tool.name, parameters };
    if (tool.description !== undefined) definition.description = tool.description;
    if (isStrict) definition.strict = true;
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

/**
 * `response_format` for an output schema: `json_schema` or `json_object`. Where the host takes
 * `strict`, it is `schema.strict ?? true`; a strict schema is sent strict-ready
 * ({@link convertStrictSchema}: objects closed, optional properties required but nullable), or, when
 * that cannot be done safely, with `strict: false` and a WARN.
 */
export function convertResponseFormat(
  schema: OutputSchema,
  quirks: ChatQuirks,
  warn?: Warn,
): JsonObject | undefined {
  if (quirks.structuredOutput === 'json_object') return { type: 'json_object' };
  if (quirks.structuredOutput === 'none') return undefined;
  const format: JsonObject = { name: schemaName(schema), schema: schema.schema };
  if (schema.description !== undefined) format.description = schema.description;
  if (quirks.strict) {
    const strict = schema.strict ?? true;
    const converted = strict ? convertStrictSchema(schema.schema) : undefined;
    if (converted !== undefined && 'schema' in converted) format.schema = converted.schema;
    else if (converted !== undefined)
      warn?.('sent the output schema without strict: it cannot be made strict', {
        schema: format.name,
        reason: converted.reason,
      });
    format.strict = converted !== undefined && 'schema' in converted;
  }
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
  if (request.verbosity !== undefined) {
    if (matchesAnyGlob(quirks.verbosityModels, context.model)) body.verbosity = request.verbosity;
    else
      context.warn('dropped the verbosity: the host or model does not take it', {
        model: context.model,
        requested: request.verbosity,
      });
  }
}

/** Removes `stop` and the penalties (pass-through ones too) where the model rejects them. */
function dropStop(body: JsonObject, context: ProviderContext, quirks: ChatQuirks): void {
  if (!matchesAnyGlob(quirks.stopUnsupportedModels, context.model)) return;
  for (const field of ['stop', 'presence_penalty', 'frequency_penalty']) {
    if (body[field] === undefined) continue;
    delete body[field];
    context.warn('dropped a sampling parameter the model rejects', {
      parameter: field,
      model: context.model,
    });
  }
}

/** The endpoint path: `quirks.chatPath` with the model filled in, plus `?api-version=` when set. */
export function chatPath(quirks: ChatQuirks, model: string): string {
  const path = quirks.chatPath.replace('{model}', encodeURIComponent(model));
  return quirks.apiVersion === undefined
    ? path
    : `${path}?api-version=${encodeURIComponent(quirks.apiVersion)}`;
}

/** Body fields no pass-through option sets (`common/pass-through.ts`): the model, the messages. */
export const callFields = ['model', 'messages'] as const;

/**
 * Builds the request body, fields in this order: model, messages, tools, tool_choice,
 * parallel_tool_calls, the output limit (`max_completion_tokens` or `max_tokens`), temperature,
 * top_p, top_k, verbosity, stop, response_format, the reasoning control (`reasoning.ts`), then the request's
 * `providerOptions[<adapter name>]` merged verbatim (e.g. `seed`, `service_tier`, OpenRouter
 * `provider` routing; one of {@link callFields} there is refused), then stream and stream_options.
 * Where the model rejects `stop` and the penalties (`quirks.stopUnsupportedModels`) they are
 * dropped with a WARN, pass-through ones included.
 */
export function buildRequest(
  request: CanonicalRequest,
  context: ProviderContext,
  settings: RequestSettings,
): WireRequest {
  const { quirks } = settings;
  // JSON schema or JSON mode (an object either way): another root goes wrapped (object-root.ts).
  const schema =
    request.outputSchema === undefined || quirks.structuredOutput === 'none'
      ? request.outputSchema
      : objectRootedOutput(request.outputSchema, context);
  const appendix =
    schema !== undefined && quirks.structuredOutput === 'json_object' ? schemaInstruction(schema) : undefined;
  const tools = request.tools ?? [];
  // The model's capabilities (the user's overrides included) decide whether past tool calls are replayed.
  const toolsSupported = context.capabilities.tools;
  const warn: Warn = (message, fields) => context.warn(message, fields);
  const messages = convertMessages(request.transcript, context, quirks, { appendix, tools: toolsSupported });
  const body: JsonObject = { model: context.model, messages: messages as unknown as JsonValue };
  if (tools.length > 0) {
    const converted = convertTools(tools, settings.strictTools && quirks.strict, warn, quirks.strict);
    body.tools = converted as unknown as JsonValue;
    // Sent strict: the added nulls in its calls' arguments are removed again (strict-nulls.ts).
    converted.forEach((entry, index) => {
      if (entry.function.strict === true)
        recordStrictTool(context, tools[index]!.name, tools[index]!.inputSchema);
    });
    if (request.toolChoice !== undefined) body.tool_choice = convertToolChoice(request.toolChoice);
    if (request.parallelToolCalls !== undefined && quirks.parallelToolCalls)
      body.parallel_tool_calls = request.parallelToolCalls;
    else warnSerialCallsUnenforced(request, context);
  }
  // A limit the router chose is the model's own: the host's default, left to it.
  if (!hasDefaultOutputLimit(request)) body[quirks.maxTokensField] = request.maxOutputTokens;
  if (quirks.promptCacheKey) {
    const cacheKey = promptCacheKey(request, context);
    if (cacheKey !== undefined) body.prompt_cache_key = cacheKey;
  }
  addSampling(body, request, context, quirks);
  // A model that refuses `stop` is sent none: the reply is cut at them here (stop-sequences.ts).
  if (matchesAnyGlob(quirks.stopUnsupportedModels, context.model)) emulateStopSequences(request, context);
  else {
    const stops = stopSequencesWithin(request, quirks.maxStopSequences, context);
    if (stops !== undefined) body.stop = stops;
  }
  if (schema !== undefined) {
    const format = convertResponseFormat(schema, quirks, warn);
    if (format !== undefined) body.response_format = format;
    const sent = format?.json_schema;
    // Sent strict: the reply's added nulls are removed again (strict-nulls.ts).
    if (isJsonObject(sent) && sent.strict === true) recordStrictOutput(context, schema.schema);
  }
  addReasoning(body, request, context, quirks);
  const option = `providerOptions.${context.provider}`;
  mergePassThrough(body, request.providerOptions?.[context.provider], callFields, option, context);
  dropStop(body, context, quirks);
  // Streaming is the call's choice, never a pass-through option.
  if (context.stream) {
    body.stream = true;
    if (quirks.streamOptions) body.stream_options = { include_usage: true };
  }
  return { path: chatPath(quirks, context.model), body };
}
