/** Decodes an OpenAI Responses request (`POST /v1/responses`) into the canonical request. */
import type { OutputSchema } from '../../core/request.ts';
import {
  type FreeformFormat,
  freeformNames,
  freeformTool,
  type ToolChoice,
  type ToolSpec,
} from '../../core/tools.ts';
import type { Item, Part } from '../../core/transcript.ts';
import {
  bodyObject,
  jsonObject,
  optionalArray,
  optionalBoolean,
  optionalCount,
  optionalNumber,
  optionalString,
  parseArguments,
  presentString,
  refuse,
  RequestFieldError,
  requiredString,
  temperatureRange,
  topPRange,
  shown,
  promptCacheOf,
  openAiBreakpoints,
  openAiPassThrough,
  refuseModeration,
} from '../fields.ts';
import { convertEffort, convertVerbosity } from '../openai-chat/request.ts';
import {
  checkedToolChoice,
  namedTool,
  partFromUrl,
  pushParts,
  sentAt,
  sentMedia,
  toolOutput,
  userTurnParts,
  withImageDetail,
} from '../common.ts';
import { untaggedItemIdKey } from '../opaque.ts';
import { decodeClientCall, decodeClientOutput } from './client-calls.ts';
import {
  addBuiltins,
  type BuiltinTools,
  isBuiltinType,
  keepBuiltin,
  responsesOptionsKey,
} from './builtin-tools.ts';
import type { DecodedRequest, ItemReference, OpaqueCodec } from '../types.ts';
import { isJsonObject, type JsonObject } from '../../core/json.ts';

function contentPart(value: unknown, path: string): Part {
  const part = jsonObject(value, path);
  switch (part.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      // Empty text is taken, as OpenAI takes it (an empty user turn: `userTurnParts`).
      return { type: 'text', text: presentString(part, 'text', `${path}.text`) };
    case 'refusal':
      return { type: 'text', text: requiredString(part, 'refusal', `${path}.refusal`) };
    case 'input_image': {
      const url = optionalString(part, 'image_url', `${path}.image_url`);
      if (url === undefined)
        throw new RequestFieldError(
          `${path}.file_id`,
          'uploaded file ids are not supported by the gateway',
          'unsupported',
        );
      return withImageDetail(partFromUrl(url, `${path}.image_url`), part.detail, `${path}.detail`);
    }
    case 'input_file': {
      const data =
        optionalString(part, 'file_data', `${path}.file_data`) ??
        optionalString(part, 'file_url', `${path}.file_url`);
      if (data === undefined)
        throw new RequestFieldError(
          `${path}.file_id`,
          'uploaded file ids are not supported by the gateway',
          'unsupported',
        );
      const parsed = partFromUrl(data, `${path}.file_data`, 'application/pdf');
      const filename = optionalString(part, 'filename', `${path}.filename`);
      return parsed.type === 'file' && filename !== undefined ? { ...parsed, filename } : parsed;
    }
    default:
      throw new RequestFieldError(
        `${path}.type`,
        `content type '${shown(part.type)}' is not supported`,
        'unsupported',
      );
  }
}

function contentParts(content: unknown, path: string): Part[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw new RequestFieldError(path, `${path} must be a string or an array`);
  return content.map((part, index) => sentMedia(contentPart(part, `${path}.${index}`), `${path}.${index}`));
}

function messageItem(item: Record<string, unknown>, path: string, transcript: Item[]): void {
  const parts = contentParts(item.content, `${path}.content`);
  const role = item.role;
  if (role === 'system' || role === 'developer') {
    if (parts.length > 0) transcript.push({ kind: role, parts });
  } else if (role === 'user') pushParts(transcript, role, userTurnParts(parts, `${path}.content`));
  else if (role === 'assistant') pushParts(transcript, role, parts);
  else
    throw new RequestFieldError(
      `${path}.role`,
      `${path}.role '${shown(role)}' is not supported`,
      'unsupported',
    );
}

function reasoningItem(item: Record<string, unknown>, path: string, opaque: OpaqueCodec): Part {
  const summary = optionalArray(item, 'summary', `${path}.summary`) ?? [];
  const text = summary
    .map((entry) => (isJsonObject(entry) && typeof entry.text === 'string' ? entry.text : ''))
    .join('\n\n');
  const encrypted = optionalString(item, 'encrypted_content', `${path}.encrypted_content`);
  if (encrypted === undefined) return { type: 'reasoning', text };
  const payload = opaque.unwrap(encrypted);
  // A bare value is OpenAI's own encrypted content: it travels as `data`, with the item's own id
  // (the API wants it back) until the gateway knows which adapter it goes to (`untaggedItemIdKey`).
  if (payload.provider === undefined && payload.data === undefined) {
    const id = optionalString(item, 'id', `${path}.id`);
    const part: Part = { type: 'reasoning', text, data: payload.signature ?? encrypted };
    if (id !== undefined) part.metadata = { [untaggedItemIdKey]: id };
    return part;
  }
  return { type: 'reasoning', text, ...payload };
}

/** What the input gives besides the transcript: tools declared by `additional_tools` items, with their paths. */
type DeclaredTools = Array<[tool: unknown, path: string]>;

/**
 * An `item_reference`: an item of a stored response, which the gateway puts back (it knows only
 * its own: an id it returned). Its place is kept in the current assistant item (a new one after
 * any other), so the calls and messages around it join the same assistant turn as sent whole.
 */
function referenceItem(item: Record<string, unknown>, path: string, transcript: Item[]): ItemReference {
  const id = requiredString(item, 'id', `${path}.id`);
  let last = transcript.at(-1);
  if (last?.kind !== 'assistant') transcript.push((last = { kind: 'assistant', parts: [] }));
  return { id, path: `${path}.id`, item: last, at: last.parts.length };
}

function convertItem(
  value: unknown,
  index: number,
  transcript: Item[],
  opaque: OpaqueCodec,
  declared: DeclaredTools,
  references: ItemReference[],
): void {
  const path = `input.${index}`;
  const item = jsonObject(value, path);
  switch (item.type ?? 'message') {
    case 'message':
      return messageItem(item, path, transcript);
    case 'additional_tools':
      // Tools declared in the input (Codex's code mode sends all of its tools so): offered like `tools`.
      (optionalArray(item, 'tools', `${path}.tools`) ?? []).forEach((tool, toolIndex) =>
        declared.push([tool, `${path}.tools.${toolIndex}`]),
      );
      return;
    case 'function_call':
    case 'custom_tool_call': {
      // A custom (freeform) call's text is the input `{ input: text }` (`freeformTool`).
      const input =
        item.type === 'custom_tool_call'
          ? { input: { input: presentString(item, 'input', `${path}.input`) } }
          : parseArguments(item.arguments ?? '{}', `${path}.arguments`);
      const id = requiredString(item, 'call_id', `${path}.call_id`) as never;
      const call: Part = { type: 'tool-call', id, name: qualifiedName(item, path), ...input };
      return pushParts(transcript, 'assistant', [sentAt(call, `${path}.call_id`)]);
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const output = item.output;
      const parts =
        typeof output === 'string'
          ? [{ type: 'text' as const, text: output }]
          : contentParts(output, `${path}.output`);
      const callId = requiredString(item, 'call_id', `${path}.call_id`);
      return pushParts(transcript, 'tool', [
        sentAt(
          { type: 'tool-result', callId: callId as never, output: toolOutput(parts), isError: false },
          `${path}.call_id`,
        ),
      ]);
    }
    case 'apply_patch_call':
    case 'local_shell_call':
    case 'shell_call':
    case 'tool_search_call':
      // A built-in call the client ran: a tool call keeping the item (client-calls.ts).
      return pushParts(transcript, 'assistant', [decodeClientCall(item, path)]);
    case 'apply_patch_call_output':
    case 'local_shell_call_output':
    case 'shell_call_output':
    case 'tool_search_output':
      return pushParts(transcript, 'tool', [decodeClientOutput(item, path)]);
    case 'reasoning':
      return pushParts(transcript, 'assistant', [reasoningItem(item, path, opaque)]);
    case 'item_reference':
      references.push(referenceItem(item, path, transcript));
      return;
    default:
      throw new RequestFieldError(
        `${path}.type`,
        `input item type '${shown(item.type)}' is not supported by the gateway`,
        'unsupported',
      );
  }
}

/**
 * Function and custom (freeform) tools are offered, and so are those of a `namespace` tool (Codex
 * groups its sub-agent tools in one), as `{namespace}.{name}`; built-in tools are kept apart
 * ({@link BuiltinTools}).
 */
function convertTools(
  body: Record<string, unknown>,
  declared: DeclaredTools,
  warnings: string[],
  namespaced: Map<string, string>,
  builtin: BuiltinTools,
): ToolSpec[] | undefined {
  const tools = optionalArray(body, 'tools')?.flatMap((tool, index) =>
    convertTool(tool, `tools.${index}`, warnings, namespaced, builtin),
  );
  if (declared.length === 0) return tools;
  // Tools an `additional_tools` item declares join them; one declared again replaces the earlier
  // (found by name in a map: a search of the list per tool made 40,000 tools take 5 s).
  const all = tools ?? [];
  const at = new Map<string, number>();
  all.forEach((spec, index) => at.set(spec.name, index));
  for (const [tool, path] of declared)
    for (const spec of convertTool(tool, path, warnings, namespaced, builtin)) {
      const index = at.get(spec.name);
      if (index === undefined) at.set(spec.name, all.push(spec) - 1);
      else all[index] = spec;
    }
  return all;
}

function convertTool(
  tool: unknown,
  path: string,
  warnings: string[],
  namespaced: Map<string, string>,
  builtin: BuiltinTools,
): ToolSpec[] {
  const object = jsonObject(tool, path);
  if (isBuiltinType(object.type)) {
    keepBuiltin(builtin, object, path);
    return [];
  }
  if (object.type === 'namespace') {
    const namespace = requiredString(object, 'name', `${path}.name`);
    return (optionalArray(object, 'tools', `${path}.tools`) ?? []).flatMap((inner, innerIndex) => {
      const specs = functionTool(inner, `${path}.tools.${innerIndex}`, warnings, `${namespace}.`);
      for (const spec of specs) namespaced.set(spec.name, namespace);
      return specs;
    });
  }
  return functionTool(object, path, warnings, '');
}

/**
 * A function or custom tool's spec (its name after `prefix`), or none with a warning for any other
 * type. A custom tool is a freeform one (`freeformTool`): the model writes raw text, held to its grammar.
 */
function functionTool(tool: unknown, path: string, warnings: string[], prefix: string): ToolSpec[] {
  const object = jsonObject(tool, path);
  if (object.type === 'custom') {
    const name = prefix + requiredString(object, 'name', `${path}.name`);
    const description = optionalString(object, 'description', `${path}.description`);
    return [freeformTool(name, description, freeformFormat(object.format, `${path}.format`))];
  }
  if (object.type !== 'function') {
    warnings.push(`${path}: tool type '${shown(object.type)}' is not offered to the model`);
    return [];
  }
  const spec: ToolSpec = {
    name: prefix + requiredString(object, 'name', `${path}.name`),
    inputSchema: jsonObject(object.parameters ?? { type: 'object', properties: {} }, `${path}.parameters`),
  };
  const description = optionalString(object, 'description', `${path}.description`);
  if (description !== undefined) spec.description = description;
  const strict = optionalBoolean(object, 'strict', `${path}.strict`);
  if (strict !== undefined) spec.strict = strict;
  return [spec];
}

/** A custom tool's `format`: text (also when absent) or a Lark or regex grammar. */
function freeformFormat(value: unknown, path: string): FreeformFormat {
  if (value === undefined || value === null) return { type: 'text' };
  const format = jsonObject(value, path);
  if (format.type === 'text') return { type: 'text' };
  if (format.type !== 'grammar')
    throw new RequestFieldError(`${path}.type`, `${path}.type must be text or grammar`);
  const syntax = format.syntax;
  if (syntax !== 'lark' && syntax !== 'regex')
    throw new RequestFieldError(`${path}.syntax`, `${path}.syntax must be lark or regex`);
  return { type: 'grammar', syntax, definition: requiredString(format, 'definition', `${path}.definition`) };
}

/** A call's tool name: `{namespace}.{name}` for a function of a namespace (see {@link convertTools}). */
function qualifiedName(item: Record<string, unknown>, path: string): string {
  const name = requiredString(item, 'name', `${path}.name`);
  const namespace = optionalString(item, 'namespace', `${path}.namespace`);
  return namespace === undefined ? name : `${namespace}.${name}`;
}

/** The request's `tool_choice`: a canonical choice, or a built-in tool's as written (`{type: 'web_search'}`). */
function convertToolChoice(value: unknown): { choice?: ToolChoice; builtin?: JsonObject } {
  if (value === undefined || value === null) return {};
  if (value === 'auto' || value === 'none' || value === 'required') return { choice: value };
  const object = jsonObject(value, 'tool_choice');
  if (object.type === 'function' || object.type === 'custom') {
    const namespace = optionalString(object, 'namespace', 'tool_choice.namespace');
    const name =
      namespace === undefined || typeof object.name !== 'string'
        ? object.name
        : `${namespace}.${object.name}`;
    return { choice: namedTool(name, 'tool_choice.name') };
  }
  if (isBuiltinType(object.type)) return { builtin: { ...object } };
  throw new RequestFieldError(
    'tool_choice',
    'tool_choice must be auto, none, required, a function, a custom tool or a built-in tool',
    'unsupported',
  );
}

/**
 * `max_tool_calls` (a cap on built-in tool calls, which only a Responses upstream runs), sent to it
 * as written through `providerOptions['openai-responses']`, as built-in tools are (another upstream
 * ignores it: docs/gateway.md); `text.verbosity` as the canonical verbosity, which every adapter
 * that has the setting sends (a Responses upstream's `text.verbosity`, OpenAI Chat's `verbosity`).
 */
function addResponsesOptions(decoded: DecodedRequest, object: Record<string, unknown>): void {
  const text = isJsonObject(object.text) ? object.text : undefined;
  const verbosity = convertVerbosity(text?.verbosity, 'text.verbosity');
  if (verbosity !== undefined) decoded.request.verbosity = verbosity;
  const maxToolCalls = optionalCount(object, 'max_tool_calls');
  if (maxToolCalls === undefined) return;
  const request = decoded.request;
  const existing = request.providerOptions?.[responsesOptionsKey];
  request.providerOptions = {
    ...request.providerOptions,
    [responsesOptionsKey]: { ...existing, max_tool_calls: maxToolCalls },
  };
}

function convertFormat(text: unknown): OutputSchema | undefined {
  if (text === undefined || text === null) return undefined;
  const object = jsonObject(text, 'text');
  if (object.format === undefined || object.format === null) return undefined;
  const format = jsonObject(object.format, 'text.format');
  if (format.type === 'text') return undefined;
  if (format.type === 'json_object') return { schema: { type: 'object' }, strict: false };
  if (format.type !== 'json_schema')
    throw new RequestFieldError(
      'text.format.type',
      `text.format.type '${shown(format.type)}' is not supported`,
      'unsupported',
    );
  const schema: OutputSchema = {
    schema: jsonObject(format.schema ?? { type: 'object' }, 'text.format.schema'),
  };
  const name = optionalString(format, 'name', 'text.format.name');
  if (name !== undefined) schema.name = name;
  const strict = optionalBoolean(format, 'strict', 'text.format.strict');
  if (strict !== undefined) schema.strict = strict;
  return schema;
}

/** The transcript: `instructions` first (one system item, counted apart: they hold for this turn), then `input`. */
function convertInput(
  object: Record<string, unknown>,
  opaque: OpaqueCodec,
  declared: DeclaredTools,
  references: ItemReference[],
): { transcript: Item[]; instructionItems: number } {
  const transcript: Item[] = [];
  const instructions = optionalString(object, 'instructions');
  if (instructions !== undefined && instructions !== '')
    transcript.push({ kind: 'system', parts: [{ type: 'text', text: instructions }] });
  const instructionItems = transcript.length;
  const input = object.input;
  if (typeof input === 'string')
    transcript.push({ kind: 'user', parts: userTurnParts([{ type: 'text', text: input }], 'input') });
  else if (Array.isArray(input))
    input.forEach((item, index) => convertItem(item, index, transcript, opaque, declared, references));
  else throw new RequestFieldError('input', 'input must be a string or an array of items');
  return { transcript, instructionItems };
}

/**
 * Refuses what would change whether or how the model serves the request: `generate: false` and
 * `prompt_cache_options.prewarm` (no output asked for), `reasoning.mode` other than
 * `standard` (`pro`: another execution mode of the model, which no other provider has) and
 * `access_programs.cyber` other than `standard` (a Daybreak program of the operator's OpenAI
 * organization, which the gateway does not grant its clients).
 */
function refuseUnservable(object: Record<string, unknown>): void {
  // Asked for no output (a WebSocket `response.create`'s `generate: false`, `prompt_cache_options.prewarm`,
  // which prepare a later turn): served, the reply would be an answer the client never sees, kept
  // in the conversation its next `previous_response_id` continues.
  if (object.generate === false)
    throw new RequestFieldError(
      'generate',
      'generate: a response without output is not supported by the gateway',
      'unsupported',
    );
  if (isJsonObject(object.prompt_cache_options) && object.prompt_cache_options.prewarm === true)
    throw new RequestFieldError(
      'prompt_cache_options.prewarm',
      'prompt_cache_options.prewarm: preparing the cache without output is not supported by the gateway',
      'unsupported',
    );
  if (isJsonObject(object.reasoning))
    refusePath(
      object.reasoning,
      'mode',
      'reasoning.mode',
      'only the standard reasoning mode is supported by the gateway',
    );
  if (isJsonObject(object.access_programs))
    refusePath(
      object.access_programs,
      'cyber',
      'access_programs.cyber',
      'only the standard access program is supported by the gateway',
    );
}

function refusePath(object: Record<string, unknown>, key: string, path: string, why: string): void {
  const value = object[key];
  if (value === undefined || value === null || value === 'standard') return;
  throw new RequestFieldError(path, `${path}: ${why}`, 'unsupported');
}

/** Decodes a Responses request; unknown fields are ignored, unhonourable ones refused by name. */
export function decodeRequest(body: unknown, opaque: OpaqueCodec): DecodedRequest {
  const object = bodyObject(body);
  refuse(object, 'background', [false], 'background responses are not supported by the gateway');
  refuse(object, 'top_logprobs', [0], 'log probabilities are not supported by the gateway');
  refuseModeration(object);
  refuseUnservable(object);
  for (const [field, what] of [
    ['conversation', 'conversations are'],
    ['prompt', 'stored prompt templates are'],
  ] as const)
    if (object[field] !== undefined && object[field] !== null)
      throw new RequestFieldError(field, `${field}: ${what} not supported by the gateway`, 'unsupported');
  const declared: DeclaredTools = [];
  const references: ItemReference[] = [];
  const { transcript, instructionItems } = convertInput(object, opaque, declared, references);
  const request: DecodedRequest['request'] = { transcript };
  const warnings: string[] = [];
  const namespaced = new Map<string, string>();
  const builtin: BuiltinTools = { tools: [], paths: [], at: new Map() };
  const tools = convertTools(object, declared, warnings, namespaced, builtin);
  if (tools !== undefined && tools.length > 0) request.tools = tools;
  const { choice, builtin: builtinChoice } = convertToolChoice(object.tool_choice);
  // `required` with built-in tools only: a Responses upstream honours it ({@link addBuiltins}).
  const builtinRequired = choice === 'required' && request.tools === undefined && builtin.tools.length > 0;
  if (choice !== undefined && !builtinRequired)
    request.toolChoice = checkedToolChoice(choice, request.tools, 'tool_choice');
  const parallel = optionalBoolean(object, 'parallel_tool_calls');
  if (parallel !== undefined) request.parallelToolCalls = parallel;
  const maxTokens = optionalCount(object, 'max_output_tokens');
  if (maxTokens !== undefined) request.maxOutputTokens = maxTokens;
  const temperature = optionalNumber(object, 'temperature', 'temperature', temperatureRange);
  if (temperature !== undefined) request.temperature = temperature;
  const topP = optionalNumber(object, 'top_p', 'top_p', topPRange);
  if (topP !== undefined) request.topP = topP;
  const outputSchema = convertFormat(object.text);
  if (outputSchema !== undefined) request.outputSchema = outputSchema;
  const reasoning =
    object.reasoning === undefined || object.reasoning === null
      ? undefined
      : convertEffort(jsonObject(object.reasoning, 'reasoning').effort, 'reasoning.effort');
  if (reasoning !== undefined) request.reasoning = reasoning;
  const cache = promptCacheOf(
    object,
    Array.isArray(object.input) ? openAiBreakpoints(object.input, 'input') : undefined,
  );
  if (cache !== undefined) request.cache = cache;
  const include = optionalArray(object, 'include') ?? [];
  if (include.includes('message.output_text.logprobs'))
    throw new RequestFieldError(
      'include',
      'include: message.output_text.logprobs: log probabilities are not supported by the gateway',
      'unsupported',
    );
  const decoded: DecodedRequest = {
    model: requiredString(object, 'model'),
    stream: optionalBoolean(object, 'stream') ?? false,
    request,
    store: optionalBoolean(object, 'store') ?? true,
    encryptedReasoning: include.includes('reasoning.encrypted_content'),
  };
  addBuiltins(decoded, builtin, builtinRequired ? 'required' : builtinChoice);
  addResponsesOptions(decoded, object);
  const passed = openAiPassThrough(object, ['prompt_cache_retention']);
  if (passed !== undefined) request.providerOptions = { ...request.providerOptions, openai: passed };
  if (warnings.length > 0) decoded.warnings = warnings;
  if (namespaced.size > 0) decoded.namespaces = namespaced;
  const freeform = freeformNames(tools);
  if (freeform.size > 0) decoded.freeform = freeform;
  const previous = optionalString(object, 'previous_response_id');
  if (previous !== undefined) decoded.previousResponseId = previous;
  if (references.length > 0) decoded.itemReferences = references;
  decoded.instructionItems = instructionItems;
  decoded.input = object.input;
  return decoded;
}
