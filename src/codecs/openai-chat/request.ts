/** Decodes an OpenAI Chat Completions request (`POST /v1/chat/completions`) into the canonical request. */
import type { OutputSchema, ReasoningEffort, ReasoningRequest, Verbosity } from '../../core/request.ts';
import { freeformNames, freeformTool, type ToolChoice, type ToolSpec } from '../../core/tools.ts';
import type { Item, Part, ToolCallPart } from '../../core/transcript.ts';
import { cacheBreakpointKey, participantNameKey } from '../../core/metadata.ts';
import { pushAll } from '../../core/arrays.ts';
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
import {
  binaryPart,
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
import type { DecodedRequest } from '../types.ts';
import { isJsonObject } from '../../core/json.ts';

function contentPart(value: unknown, path: string): Part | undefined {
  const part = jsonObject(value, path);
  switch (part.type) {
    case 'text':
    case 'input_text':
      return { type: 'text', text: requiredString(part, 'text', `${path}.text`) };
    case 'refusal':
      return { type: 'text', text: requiredString(part, 'refusal', `${path}.refusal`) };
    case 'image_url': {
      const image = part.image_url;
      const url = typeof image === 'string' ? image : isJsonObject(image) ? image.url : undefined;
      if (typeof url !== 'string')
        throw new RequestFieldError(`${path}.image_url.url`, `${path}.image_url.url is required`);
      const detail = isJsonObject(image) ? image.detail : undefined;
      return withImageDetail(partFromUrl(url, `${path}.image_url.url`), detail, `${path}.image_url.detail`);
    }
    case 'input_audio': {
      const audio = jsonObject(part.input_audio, `${path}.input_audio`);
      const format = requiredString(audio, 'format', `${path}.input_audio.format`);
      return binaryPart(`audio/${format}`, {
        base64: requiredString(audio, 'data', `${path}.input_audio.data`),
      });
    }
    case 'file': {
      const file = jsonObject(part.file, `${path}.file`);
      const data = optionalString(file, 'file_data', `${path}.file.file_data`);
      if (data === undefined)
        throw new RequestFieldError(
          `${path}.file.file_id`,
          'uploaded file ids are not supported by the gateway',
          'unsupported',
        );
      const filename = optionalString(file, 'filename', `${path}.file.filename`);
      const parsed = partFromUrl(data, `${path}.file.file_data`, 'application/pdf');
      return parsed.type === 'file' && filename !== undefined ? { ...parsed, filename } : parsed;
    }
    default:
      throw new RequestFieldError(
        `${path}.type`,
        `content part type '${shown(part.type)}' is not supported`,
        'unsupported',
      );
  }
}

function contentParts(content: unknown, path: string): Part[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw new RequestFieldError(path, `${path} must be a string or an array`);
  return content.flatMap((part, index) => {
    const decoded = contentPart(part, `${path}.${index}`);
    return decoded === undefined ? [] : [sentMedia(decoded, `${path}.${index}`)];
  });
}

function toolCalls(value: unknown, path: string): ToolCallPart[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new RequestFieldError(path, `${path} must be an array`);
  return value.map((call, index) => {
    const callPath = `${path}.${index}`;
    const object = jsonObject(call, callPath);
    if (object.type === 'custom') {
      // A custom (freeform) call: its text is the input `{ input: text }` (`freeformTool`).
      const custom = jsonObject(object.custom, `${callPath}.custom`);
      const part: ToolCallPart = {
        type: 'tool-call',
        id: requiredString(object, 'id', `${callPath}.id`) as never,
        name: requiredString(custom, 'name', `${callPath}.custom.name`),
        input: { input: presentString(custom, 'input', `${callPath}.custom.input`) },
      };
      return sentAt(part, `${callPath}.id`);
    }
    const fn = jsonObject(object.function, `${callPath}.function`);
    const part: ToolCallPart = {
      type: 'tool-call',
      id: requiredString(object, 'id', `${callPath}.id`) as never,
      name: requiredString(fn, 'name', `${callPath}.function.name`),
      ...parseArguments(fn.arguments ?? '{}', `${callPath}.function.arguments`),
    };
    return sentAt(part, `${callPath}.id`);
  });
}

/**
 * A user message: joined to the user item before it when both have the same participant name (or
 * none), else an item of its own carrying its `name` ({@link participantNameKey}), so two named
 * users' turns are never merged into one.
 */
function pushUser(transcript: Item[], parts: Part[], name: string | undefined): void {
  if (parts.length === 0) return;
  const named = name === undefined || name === '' ? undefined : name;
  const last = transcript.at(-1);
  if (last?.kind === 'user' && last.metadata?.[participantNameKey] === named) {
    pushAll(last.parts, parts);
    return;
  }
  transcript.push(
    named === undefined
      ? { kind: 'user', parts }
      : { kind: 'user', parts, metadata: { [participantNameKey]: named } },
  );
}

/**
 * A system or developer message's parts, a text part whose content part carries a
 * `prompt_cache_breakpoint` marked as an Anthropic client's system `cache_control` is
 * (`cacheBreakpointKey`): toward Claude the cached prefix ends there. `ttl` is the marker's
 * lifetime (`1h` when it or the request names one).
 */
function instructionParts(content: unknown, path: string, ttl: '5m' | '1h'): Part[] {
  const parts = contentParts(content, path);
  if (!Array.isArray(content)) return parts;
  return parts.map((part, index) => {
    const source = content[index];
    if (part.type !== 'text' || !isJsonObject(source) || !isJsonObject(source.prompt_cache_breakpoint))
      return part;
    const own = typeof source.prompt_cache_breakpoint.ttl === 'string' ? '1h' : ttl;
    return { ...part, metadata: { ...part.metadata, [cacheBreakpointKey]: own } };
  });
}

function convertMessage(message: unknown, index: number, transcript: Item[], ttl: '5m' | '1h'): void {
  const path = `messages.${index}`;
  const object = jsonObject(message, path);
  switch (object.role) {
    case 'system':
    case 'developer': {
      const parts = instructionParts(object.content, `${path}.content`, ttl);
      if (parts.length > 0) transcript.push({ kind: object.role, parts });
      return;
    }
    case 'user':
      pushUser(
        transcript,
        userTurnParts(contentParts(object.content, `${path}.content`), `${path}.content`),
        optionalString(object, 'name', `${path}.name`),
      );
      return;
    case 'assistant': {
      if (object.function_call !== undefined && object.function_call !== null)
        throw new RequestFieldError(
          `${path}.function_call`,
          `${path}.function_call: the legacy function_call is not supported: use tool_calls`,
          'unsupported',
        );
      // The SDK's message for a refusal is `{content: null, refusal}`: its refusal is the turn's text,
      // as a `refusal` content part is, or the turn would vanish and the user turns around it merge.
      const refusal = optionalString(object, 'refusal', `${path}.refusal`);
      const parts: Part[] = [
        ...contentParts(object.content, `${path}.content`),
        ...(refusal === undefined || refusal === '' ? [] : [{ type: 'text' as const, text: refusal }]),
        ...toolCalls(object.tool_calls, `${path}.tool_calls`),
      ];
      pushParts(transcript, 'assistant', parts);
      return;
    }
    case 'tool': {
      const callId = requiredString(object, 'tool_call_id', `${path}.tool_call_id`);
      const output = toolOutput(contentParts(object.content, `${path}.content`));
      const result: Part = { type: 'tool-result', callId: callId as never, output, isError: false };
      pushParts(transcript, 'tool', [sentAt(result, `${path}.tool_call_id`)]);
      return;
    }
    default:
      throw new RequestFieldError(
        `${path}.role`,
        `${path}.role '${shown(object.role)}' is not supported`,
        'unsupported',
      );
  }
}

function convertTools(body: Record<string, unknown>): ToolSpec[] | undefined {
  return optionalArray(body, 'tools')?.map((tool, index) => {
    const path = `tools.${index}`;
    const object = jsonObject(tool, path);
    if (object.type === 'custom')
      return customTool(jsonObject(object.custom, `${path}.custom`), `${path}.custom`);
    if (object.type !== 'function')
      throw new RequestFieldError(
        `${path}.type`,
        `tool type '${shown(object.type)}' is not supported`,
        'unsupported',
      );
    const fn = jsonObject(object.function, `${path}.function`);
    const spec: ToolSpec = {
      name: requiredString(fn, 'name', `${path}.function.name`),
      inputSchema: jsonObject(
        fn.parameters ?? { type: 'object', properties: {} },
        `${path}.function.parameters`,
      ),
    };
    const description = optionalString(fn, 'description', `${path}.function.description`);
    if (description !== undefined) spec.description = description;
    const strict = optionalBoolean(fn, 'strict', `${path}.function.strict`);
    if (strict !== undefined) spec.strict = strict;
    return spec;
  });
}

/**
 * A custom (freeform) tool (`{type: "custom", custom: {name, description, format}}`): the model
 * writes raw text, held to its grammar (`format: {type: "grammar", grammar: {syntax, definition}}`).
 */
function customTool(custom: Record<string, unknown>, path: string): ToolSpec {
  const name = requiredString(custom, 'name', `${path}.name`);
  const description = optionalString(custom, 'description', `${path}.description`);
  const format =
    custom.format === undefined || custom.format === null
      ? undefined
      : jsonObject(custom.format, `${path}.format`);
  if (format === undefined || format.type === 'text')
    return freeformTool(name, description, { type: 'text' });
  if (format.type !== 'grammar')
    throw new RequestFieldError(`${path}.format.type`, `${path}.format.type must be text or grammar`);
  const grammar = jsonObject(format.grammar, `${path}.format.grammar`);
  const syntax = grammar.syntax;
  if (syntax !== 'lark' && syntax !== 'regex')
    throw new RequestFieldError(
      `${path}.format.grammar.syntax`,
      `${path}.format.grammar.syntax must be lark or regex`,
    );
  const definition = requiredString(grammar, 'definition', `${path}.format.grammar.definition`);
  return freeformTool(name, description, { type: 'grammar', syntax, definition });
}

function convertToolChoice(value: unknown): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === 'auto' || value === 'none' || value === 'required') return value;
  const object = jsonObject(value, 'tool_choice');
  if (object.type === 'function' && isJsonObject(object.function))
    return namedTool(object.function.name, 'tool_choice.function.name');
  if (object.type === 'custom' && isJsonObject(object.custom))
    return namedTool(object.custom.name, 'tool_choice.custom.name');
  throw new RequestFieldError(
    'tool_choice',
    'tool_choice must be auto, none, required, a function or a custom tool',
  );
}

function convertResponseFormat(value: unknown): OutputSchema | undefined {
  if (value === undefined || value === null) return undefined;
  const object = jsonObject(value, 'response_format');
  if (object.type === 'text') return undefined;
  if (object.type === 'json_object') return { schema: { type: 'object' }, strict: false };
  if (object.type !== 'json_schema')
    throw new RequestFieldError(
      'response_format.type',
      `response_format.type '${shown(object.type)}' is not supported`,
      'unsupported',
    );
  const spec = jsonObject(object.json_schema, 'response_format.json_schema');
  const schema: OutputSchema = {
    schema: jsonObject(spec.schema ?? { type: 'object' }, 'response_format.json_schema.schema'),
  };
  const name = optionalString(spec, 'name', 'response_format.json_schema.name');
  if (name !== undefined) schema.name = name;
  const description = optionalString(spec, 'description', 'response_format.json_schema.description');
  if (description !== undefined) schema.description = description;
  const strict = optionalBoolean(spec, 'strict', 'response_format.json_schema.strict');
  if (strict !== undefined) schema.strict = strict;
  return schema;
}

/** The effort of each `reasoning_effort` level: `none` turns reasoning off; `max` is the most Switchyard has, `xhigh`. */
const efforts: Readonly<Record<string, ReasoningEffort | 'none'>> = {
  none: 'none',
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'xhigh',
  max: 'max',
};

/** `reasoning_effort` (Responses: `reasoning.effort`) → the canonical effort (`efforts`). */
export function convertEffort(value: unknown, path: string): ReasoningRequest | undefined {
  if (value === undefined || value === null) return undefined;
  const effort = typeof value === 'string' && Object.hasOwn(efforts, value) ? efforts[value] : undefined;
  if (effort !== undefined) return { effort };
  throw new RequestFieldError(path, `${path} must be none, minimal, low, medium, high, xhigh or max`);
}

function refuseUnhonourable(object: Record<string, unknown>): void {
  refuse(object, 'n', [1], 'only one choice per request is supported');
  refuse(object, 'logprobs', [false], 'log probabilities are not supported by the gateway');
  refuse(object, 'top_logprobs', [0], 'log probabilities are not supported by the gateway');
  refuse(object, 'audio', [], 'audio output is not supported by the gateway');
  refuseModeration(object);
  // The legacy function-calling fields, refused like the legacy `function` role: `tools` and
  // `tool_choice` say the same, and dropping them would answer without the tools unannounced. An
  // empty list asks for nothing, and with no functions `function_call` `none` or `auto` asks for
  // no call: taken as absent (a named function is still refused).
  const functions = object.functions;
  if (!Array.isArray(functions) || functions.length > 0)
    refuse(object, 'functions', [], 'the legacy functions field is not supported: declare them in tools');
  refuse(
    object,
    'function_call',
    ['none', 'auto'],
    'the legacy function_call field is not supported: choose the tool with tool_choice',
  );
  const modalities = optionalArray(object, 'modalities');
  if (modalities !== undefined && modalities.some((modality) => modality !== 'text'))
    throw new RequestFieldError(
      'modalities',
      'modalities: only text output is supported by the gateway',
      'unsupported',
    );
}

function stopSequences(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((entry) => typeof entry === 'string')) return value as string[];
  throw new RequestFieldError('stop', 'stop must be a string or an array of strings');
}

const verbosities: ReadonlySet<string> = new Set<Verbosity>(['low', 'medium', 'high']);

/** A `verbosity` (Chat) or `text.verbosity` (Responses) → the canonical one; absent or null → undefined. */
export function convertVerbosity(value: unknown, path: string): Verbosity | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !verbosities.has(value))
    throw new RequestFieldError(path, `${path} must be low, medium or high`);
  return value as Verbosity;
}

/** Decodes a Chat Completions request; unknown fields are ignored, unhonourable ones refused by name. */
export function decodeRequest(body: unknown): DecodedRequest {
  const object = bodyObject(body);
  refuseUnhonourable(object);
  const messages = optionalArray(object, 'messages');
  if (messages === undefined || messages.length === 0)
    throw new RequestFieldError('messages', 'messages must be a non-empty array');
  const cache = promptCacheOf(object, openAiBreakpoints(messages, 'messages'));
  const transcript: Item[] = [];
  const ttl = cache?.ttl === '1h' ? '1h' : '5m';
  messages.forEach((message, index) => convertMessage(message, index, transcript, ttl));
  const request: DecodedRequest['request'] = { transcript };
  const tools = convertTools(object);
  if (tools !== undefined && tools.length > 0) request.tools = tools;
  const choice = convertToolChoice(object.tool_choice);
  if (choice !== undefined) request.toolChoice = checkedToolChoice(choice, request.tools, 'tool_choice');
  const parallel = optionalBoolean(object, 'parallel_tool_calls');
  if (parallel !== undefined) request.parallelToolCalls = parallel;
  const completionTokens = optionalCount(object, 'max_completion_tokens');
  const maxTokens = completionTokens ?? optionalCount(object, 'max_tokens');
  if (maxTokens !== undefined) request.maxOutputTokens = maxTokens;
  const stops = stopSequences(object.stop);
  if (stops !== undefined) request.stopSequences = stops;
  const temperature = optionalNumber(object, 'temperature', 'temperature', temperatureRange);
  if (temperature !== undefined) request.temperature = temperature;
  const topP = optionalNumber(object, 'top_p', 'top_p', topPRange);
  if (topP !== undefined) request.topP = topP;
  const outputSchema = convertResponseFormat(object.response_format);
  if (outputSchema !== undefined) request.outputSchema = outputSchema;
  const reasoning = convertEffort(object.reasoning_effort, 'reasoning_effort');
  if (reasoning !== undefined) request.reasoning = reasoning;
  const verbosity = convertVerbosity(object.verbosity, 'verbosity');
  if (verbosity !== undefined) request.verbosity = verbosity;
  if (cache !== undefined) request.cache = cache;
  const passed = openAiPassThrough(object, ['prompt_cache_retention']);
  if (passed !== undefined) request.providerOptions = { openai: passed };
  const streamOptions = isJsonObject(object.stream_options) ? object.stream_options : {};
  const decoded: DecodedRequest = {
    model: requiredString(object, 'model'),
    stream: optionalBoolean(object, 'stream') ?? false,
    streamUsage: streamOptions.include_usage === true,
    request,
  };
  const freeform = freeformNames(tools);
  if (freeform.size > 0) decoded.freeform = freeform;
  // The older field: a refusal about the output limit names it, as the client wrote it.
  if (completionTokens === undefined && maxTokens !== undefined)
    decoded.requestFields = { maxOutputTokens: 'max_tokens' };
  return decoded;
}
