/**
 * Anthropic Messages request rules: headers, `max_tokens`, message order, text blocks, tool-id
 * pairing, stop sequences that are not empty or whitespace only, an object root for a structured
 * output's schema, and under thinking a tool-use turn that starts with a thinking block.
 */
import { anthropicError } from '../errors.ts';
import type { JsonScript, RecordedRequest } from '../types.ts';

type Block = Record<string, unknown>;
interface Message {
  role?: unknown;
  content?: unknown;
}

const toolIdPattern = /^[a-zA-Z0-9_-]+$/;

function invalid(message: string): JsonScript {
  return anthropicError(400, 'invalid_request_error', message);
}

function blocksOf(message: Message): Block[] {
  return Array.isArray(message.content)
    ? message.content.filter((block): block is Block => typeof block === 'object' && block !== null)
    : [];
}

function checkToolId(id: unknown, location: string): JsonScript | undefined {
  if (typeof id !== 'string' || !toolIdPattern.test(id)) {
    return invalid(`${location}: String should match pattern '^[a-zA-Z0-9_-]+$'`);
  }
  if (id.length > 64) return invalid(`${location}: String should have at most 64 characters`);
  return undefined;
}

function checkIds(messages: Message[]): JsonScript | undefined {
  for (const [messageIndex, message] of messages.entries()) {
    for (const [blockIndex, block] of blocksOf(message).entries()) {
      const location = `messages.${messageIndex}.content.${blockIndex}`;
      if (block.type === 'tool_use') {
        const error = checkToolId(block.id, `${location}.tool_use.id`);
        if (error) return error;
      }
      if (block.type === 'tool_result') {
        const error = checkToolId(block.tool_use_id, `${location}.tool_result.tool_use_id`);
        if (error) return error;
      }
    }
  }
  return undefined;
}

/** Anthropic reports the later block of a pair that reuses a `tool_use` id. */
function checkUniqueIds(messages: Message[]): JsonScript | undefined {
  const seen = new Set<string>();
  for (const [messageIndex, message] of messages.entries()) {
    for (const [blockIndex, block] of blocksOf(message).entries()) {
      if (block.type !== 'tool_use') continue;
      const id = String(block.id);
      if (seen.has(id))
        return invalid(`messages.${messageIndex}.content.${blockIndex}: tool_use ids must be unique`);
      seen.add(id);
    }
  }
  return undefined;
}

function isBlank(block: Block): boolean {
  return typeof block.text === 'string' && block.text.trim() === '';
}

/**
 * Text blocks must not be empty; a whitespace-only one is rejected unless another text block of the
 * same message carries non-whitespace text (what the API accepts, observed against `messages.create`).
 */
function checkText(messages: Message[]): JsonScript | undefined {
  for (const message of messages) {
    const texts = blocksOf(message).filter((block) => block.type === 'text');
    if (texts.some((block) => block.text === ''))
      return invalid('messages: text content blocks must be non-empty');
    if (texts.length > 0 && texts.every(isBlank)) {
      return invalid('messages: text content blocks must contain non-whitespace text');
    }
  }
  return undefined;
}

/** The `tool_result` blocks at the start of a message; only those answer the previous `tool_use` blocks. */
function leadingResults(message: Message): Block[] {
  const blocks = blocksOf(message);
  const end = blocks.findIndex((block) => block.type !== 'tool_result');
  return end === -1 ? blocks : blocks.slice(0, end);
}

function toolUseIds(message: Message | undefined): string[] {
  if (message?.role !== 'assistant') return [];
  return blocksOf(message)
    .filter((block) => block.type === 'tool_use')
    .map((block) => String(block.id));
}

function checkResults(messages: Message[]): JsonScript | undefined {
  for (const [index, message] of messages.entries()) {
    const offered = toolUseIds(messages[index - 1]);
    for (const [blockIndex, block] of blocksOf(message).entries()) {
      if (block.type !== 'tool_result' || offered.includes(String(block.tool_use_id))) continue;
      return invalid(
        `messages.${index}.content.${blockIndex}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
      );
    }
  }
  return undefined;
}

function checkAnswered(messages: Message[]): JsonScript | undefined {
  for (const [index, message] of messages.entries()) {
    const next = messages[index + 1];
    if (next === undefined) continue;
    const answered = new Set(leadingResults(next).map((block) => String(block.tool_use_id)));
    const missing = toolUseIds(message).filter((id) => !answered.has(id));
    if (missing.length > 0) {
      return invalid(
        `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      );
    }
  }
  return undefined;
}

function checkMessages(value: unknown): JsonScript | undefined {
  if (!Array.isArray(value)) return invalid('messages: Field required');
  if (value.length === 0) return invalid('messages: at least one message is required');
  const messages = value as Message[];
  for (const [index, message] of messages.entries()) {
    if (message?.role !== 'user' && message?.role !== 'assistant') {
      return invalid(`messages.${index}.role: Input should be 'user' or 'assistant'`);
    }
  }
  if (messages[0]?.role !== 'user') return invalid('messages: first message must use the "user" role');
  // Tool ids are well-formed and unique, text blocks carry text, every `tool_result` answers a
  // `tool_use` of the immediately preceding assistant message, and every `tool_use` (except in a final
  // assistant message) is answered by a `tool_result` at the start of the next message: one after
  // another block does not count, as the API reports.
  return (
    checkIds(messages) ??
    checkUniqueIds(messages) ??
    checkText(messages) ??
    checkResults(messages) ??
    checkAnswered(messages)
  );
}

/** One message as the thinking rule reads it: its role and the types of its blocks, in order. */
export interface TurnShape {
  role: unknown;
  types: string[];
}

/**
 * The thinking rule of Claude (the Messages API, and Bedrock Converse, which quotes it): with
 * thinking enabled, a tool-use turn still in progress — the trailing run of assistant messages and
 * user messages holding only `tool_result` blocks — must start with a `thinking` or
 * `redacted_thinking` block. Returns the API's message for the violation, `undefined` otherwise
 * (a conversation ending in user text, or continuing no tool call, opens a new turn).
 */
export function thinkingTurnViolation(messages: readonly TurnShape[]): string | undefined {
  let start: number | undefined;
  let results = false;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as TurnShape;
    if (message.role === 'assistant') start = index;
    else if (message.types.length > 0 && message.types.every((type) => type === 'tool_result'))
      results = true;
    else break;
  }
  if (start === undefined || !results) return undefined;
  const first = (messages[start] as TurnShape).types[0] ?? 'text';
  if (first === 'thinking' || first === 'redacted_thinking') return undefined;
  return `messages.${start}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`;
}

/** Whether a request's `thinking` field turns thinking on (`enabled` or `adaptive`). */
export function thinkingOn(thinking: unknown): boolean {
  const type = (thinking as { type?: unknown } | null | undefined)?.type;
  return type === 'enabled' || type === 'adaptive';
}

function checkThinkingTurn(body: Record<string, unknown>, messages: Message[]): JsonScript | undefined {
  if (!thinkingOn(body.thinking)) return undefined;
  const shapes = messages.map((message) => ({
    role: message.role,
    types:
      typeof message.content === 'string' ? ['text'] : blocksOf(message).map((block) => String(block.type)),
  }));
  const violation = thinkingTurnViolation(shapes);
  return violation === undefined ? undefined : invalid(violation);
}

/**
 * The API's stop sequence rule (Claude on Bedrock and Vertex too): each one is non-empty and holds
 * a character other than whitespace. Returns the API's message for the violation.
 */
export function stopSequenceViolation(stops: unknown): string | undefined {
  if (!Array.isArray(stops)) return undefined;
  for (const stop of stops) {
    if (stop === '') return 'stop_sequences: each stop sequence must be non-empty';
    if (typeof stop === 'string' && stop.trim() === '')
      return 'stop_sequences: each stop sequence must contain non-whitespace';
  }
  return undefined;
}

/** Checks a `POST …/messages` request; returns the API's error response on the first violation. */
export function checkAnthropicRequest(request: RecordedRequest): JsonScript | undefined {
  if (!request.headers['x-api-key'])
    return anthropicError(401, 'authentication_error', 'x-api-key header is required');
  if (!request.headers['anthropic-version']) return invalid('anthropic-version: header is required');
  return checkAnthropicBody(request);
}

/**
 * A structured-output schema (`output_config.format`) whose root is not an object (an array, a
 * string, an enum). Anthropic's own SDK refuses one before sending (`jsonSchemaOutputFormat`: "JSON
 * schema must be an object"); the API's wording for it is this emulator's, not a recorded one.
 */
function outputRootViolation(config: unknown): string | undefined {
  if (typeof config !== 'object' || config === null) return undefined;
  const format = (config as { format?: unknown }).format;
  if (typeof format !== 'object' || format === null) return undefined;
  const schema = (format as { schema?: unknown }).schema;
  if (typeof schema !== 'object' || schema === null) return undefined;
  const type = (schema as { type?: unknown }).type;
  if (type === 'object') return undefined;
  return `output_config.format.schema: the root must be of type 'object', got ${JSON.stringify(type ?? null)}`;
}

/** The body rules of a Messages request (shared by the transports carrying it: Bedrock, Vertex). */
export function checkAnthropicBody(request: RecordedRequest): JsonScript | undefined {
  if (typeof request.body !== 'object' || request.body === null)
    return invalid('There was an error parsing the body');
  const body = request.body as Record<string, unknown>;
  if (body.max_tokens === undefined) return invalid('max_tokens: Field required');
  const stops = stopSequenceViolation(body.stop_sequences);
  if (stops !== undefined) return invalid(stops);
  const root = outputRootViolation(body.output_config);
  if (root !== undefined) return invalid(root);
  return checkMessages(body.messages) ?? checkThinkingTurn(body, body.messages as Message[]);
}
