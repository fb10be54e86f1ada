/** OpenAI Chat Completions request rules (bearer auth, tool-call pairing); Responses rules are in openai-responses.ts. */
import { openaiError } from '../errors.ts';
import type { JsonScript, RecordedRequest } from '../types.ts';

interface ToolCall {
  function?: { arguments?: unknown } | null;
}

interface ChatMessage {
  role?: unknown;
  tool_call_id?: unknown;
  tool_calls?: unknown;
}

const missingKeyMessage =
  "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username. You can obtain an API key from https://platform.openai.com/account/api-keys.";

/** Requires `authorization: Bearer <key>` (or Azure's `api-key`); OpenAI answers 401 without one. */
export function checkBearer(request: RecordedRequest): JsonScript | undefined {
  const authorization = request.headers.authorization ?? '';
  // Azure OpenAI takes the key in `api-key` instead.
  if (/\S/.test(request.headers['api-key'] ?? '')) return undefined;
  return /^Bearer\s+\S+/i.test(authorization) ? undefined : openaiError(401, missingKeyMessage);
}

function objectBody(request: RecordedRequest): Record<string, unknown> | undefined {
  return typeof request.body === 'object' && request.body !== null
    ? (request.body as Record<string, unknown>)
    : undefined;
}

function callIds(message: ChatMessage): string[] {
  if (message.role !== 'assistant' || !Array.isArray(message.tool_calls)) return [];
  return message.tool_calls.map((call: { id?: unknown }) => String(call?.id));
}

/**
 * `previous`: the index of the last message before this run of tool messages (−1 for none); `ids`:
 * its call ids, built once per run (per tool message, 20,000 parallel calls took minutes).
 */
function checkToolMessage(
  messages: ChatMessage[],
  index: number,
  previous: number,
  ids: ReadonlySet<string>,
): JsonScript | undefined {
  const answered = messages[previous];
  if (!answered || ids.size === 0) {
    return openaiError(
      400,
      "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
      { param: `messages.[${index}].role` },
    );
  }
  const id = String(messages[index]?.tool_call_id);
  if (ids.has(id)) return undefined;
  return openaiError(
    400,
    `Invalid parameter: 'tool_call_id' of '${id}' not found in 'tool_calls' of previous message.`,
    {
      param: `messages.[${index}].tool_call_id`,
    },
  );
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** OpenAI validates types first: every assistant `tool_calls[].function.arguments` must be a string. */
function checkArgumentTypes(messages: ChatMessage[]): JsonScript | undefined {
  for (const [index, message] of messages.entries()) {
    if (message?.role !== 'assistant' || !Array.isArray(message.tool_calls)) continue;
    for (const [callIndex, call] of (message.tool_calls as Array<ToolCall | null>).entries()) {
      const value = call?.function?.arguments;
      if (value === undefined || typeof value === 'string') continue;
      return openaiError(
        400,
        `Invalid type for 'messages[${index}].tool_calls[${callIndex}].function.arguments': expected a string, but got ${typeName(value)} instead.`,
        { param: `messages.[${index}].tool_calls.[${callIndex}].function.arguments`, code: 'invalid_type' },
      );
    }
  }
  return undefined;
}

/** OpenAI refuses a function name outside `^[a-zA-Z0-9_-]+$` or longer than 64 characters. */
function checkToolNames(request: RecordedRequest): JsonScript | undefined {
  const tools = objectBody(request)?.tools;
  if (!Array.isArray(tools)) return undefined;
  for (const [index, tool] of tools.entries()) {
    const name = (tool as { function?: { name?: unknown } } | null)?.function?.name;
    if (typeof name !== 'string' || /^[a-zA-Z0-9_-]{1,64}$/.test(name)) continue;
    return openaiError(
      400,
      `Invalid 'tools[${index}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
      { param: `tools[${index}].function.name`, code: 'invalid_value' },
    );
  }
  return undefined;
}

/** OpenAI refuses a tool-call id longer than 40 characters, in an assistant message or a tool message. */
function checkIdLengths(messages: ChatMessage[]): JsonScript | undefined {
  for (const [index, message] of messages.entries()) {
    const ids =
      message?.role === 'tool'
        ? [[`messages.[${index}].tool_call_id`, String(message.tool_call_id)]]
        : callIds(message ?? {}).map((id, call) => [`messages.[${index}].tool_calls.[${call}].id`, id]);
    for (const [param, id] of ids) {
      if (id!.length <= 40) continue;
      return openaiError(
        400,
        `Invalid '${param!.replace(/\.\[/g, '[').replace(/\]\./g, '].')}': string too long. Expected a string with maximum length 40, but got a string with length ${id!.length} instead.`,
        { param: param!, code: 'string_above_max_length' },
      );
    }
  }
  return undefined;
}

function checkAnswered(messages: ChatMessage[], index: number): JsonScript | undefined {
  const ids = callIds(messages[index] ?? {});
  if (ids.length === 0) return undefined;
  const answered = new Set<string>();
  for (let next = index + 1; next < messages.length && messages[next]?.role === 'tool'; next++)
    answered.add(String(messages[next]!.tool_call_id));
  const missing = ids.filter((id) => !answered.has(id));
  if (missing.length === 0) return undefined;
  return openaiError(
    400,
    `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`,
    { param: `messages.[${index}].role` },
  );
}

/**
 * OpenAI refuses an output schema whose root is not `type: "object"` (an array, a string, an enum,
 * no type), strict or not: `format` is a `json_schema` response format (Chat's `json_schema`
 * member, Responses' `text.format`), `param` where the error points.
 */
export function checkSchemaRoot(format: unknown, param: string): JsonScript | undefined {
  if (typeof format !== 'object' || format === null) return undefined;
  const { name, schema } = format as { name?: unknown; schema?: unknown };
  if (typeof schema !== 'object' || schema === null) return undefined;
  const type = (schema as { type?: unknown }).type;
  if (type === 'object') return undefined;
  const got = typeof type === 'string' ? type : type === undefined ? 'None' : JSON.stringify(type);
  return openaiError(
    400,
    `Invalid schema for response_format '${String(name)}': schema must be a JSON Schema of 'type: "object"', got 'type: "${got}"'.`,
    { param, code: 'invalid_json_schema' },
  );
}

/**
 * Checks a chat completion request: every assistant tool call's `function.arguments` is a string,
 * every tool-call id at most 40 characters, a `json_schema` response format's root an object,
 * every `role: tool` message answers a `tool_calls` id of the assistant message right before its run
 * of tool messages, and every assistant tool call is answered.
 */
export function checkChatRequest(request: RecordedRequest): JsonScript | undefined {
  const messages = objectBody(request)?.messages;
  if (!Array.isArray(messages))
    return openaiError(400, "Missing required parameter: 'messages'.", {
      param: 'messages',
      code: 'missing_required_parameter',
    });
  const format = objectBody(request)?.response_format as
    { type?: unknown; json_schema?: unknown } | undefined;
  const typeError =
    checkArgumentTypes(messages) ??
    checkIdLengths(messages) ??
    checkToolNames(request) ??
    (format?.type === 'json_schema' ? checkSchemaRoot(format.json_schema, 'response_format') : undefined);
  if (typeError) return typeError;
  // One pass each (a conversation of tens of thousands of messages is checked in linear time).
  let previous = -1;
  let ids: ReadonlySet<string> | undefined;
  for (let index = 0; index < messages.length; index++) {
    if ((messages[index] as ChatMessage | null)?.role !== 'tool') {
      previous = index;
      ids = undefined;
      continue;
    }
    ids ??= new Set(messages[previous] ? callIds(messages[previous]) : []);
    const error = checkToolMessage(messages, index, previous, ids);
    if (error) return error;
  }
  for (let index = 0; index < messages.length; index++) {
    const error = checkAnswered(messages, index);
    if (error) return error;
  }
  return undefined;
}
