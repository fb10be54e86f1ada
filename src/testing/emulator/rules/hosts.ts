/**
 * Rules of OpenAI-compatible hosts that are stricter than OpenAI, recognised by the model named in
 * the request: Mistral's 9-character tool-call ids, DeepSeek and Kimi (Moonshot) thinking mode's
 * `reasoning_content`.
 */
import { openaiError } from '../errors.ts';
import type { JsonScript, RecordedRequest } from '../types.ts';

interface HostMessage {
  role?: unknown;
  tool_call_id?: unknown;
  tool_calls?: unknown;
  reasoning_content?: unknown;
}

const mistralModel = /^(mistral|magistral|codestral|ministral|devstral|pixtral|open-mistral)/;
const mistralToolId = /^[a-zA-Z0-9]{9}$/;
const deepseekThinkingModel = /^deepseek-reasoner/;
/** Kimi's thinking models: `kimi-k2-thinking*` (always thinking), `kimi-k2.5`, `kimi-k2.6`… (thinking by default). */
const kimiThinkingModel = /^kimi-k2(?:-thinking|\.\d)/;

function messagesOf(
  request: RecordedRequest,
): { model: string; messages: HostMessage[]; thinking: unknown } | undefined {
  const body = request.body;
  if (typeof body !== 'object' || body === null) return undefined;
  const { model, messages, thinking } = body as { model?: unknown; messages?: unknown; thinking?: unknown };
  if (typeof model !== 'string' || !Array.isArray(messages)) return undefined;
  return { model, messages: messages as HostMessage[], thinking };
}

/** Mistral: every tool-call id and `tool_call_id` is exactly 9 letters or digits. */
function checkMistral(messages: HostMessage[]): JsonScript | undefined {
  for (const message of messages) {
    const ids = Array.isArray(message?.tool_calls)
      ? (message.tool_calls as Array<{ id?: unknown } | null>).map((call) => call?.id)
      : [];
    if (message?.role === 'tool') ids.push(message.tool_call_id);
    const bad = ids.find((id) => typeof id !== 'string' || !mistralToolId.test(id));
    if (bad !== undefined) {
      return {
        type: 'json',
        status: 400,
        body: {
          object: 'error',
          message: `Tool call id was ${String(bad)} but must be a-z, A-Z, 0-9, with a length of 9.`,
          type: 'invalid_request_message_error',
          param: null,
          code: '3280',
        },
      };
    }
  }
  return undefined;
}

/**
 * DeepSeek thinking mode: an assistant message with tool calls in the current turn (after the last
 * user message) must carry its `reasoning_content` back.
 */
function checkDeepSeek(messages: HostMessage[]): JsonScript | undefined {
  let lastUser = -1;
  messages.forEach((message, index) => {
    if (message?.role === 'user') lastUser = index;
  });
  for (let index = lastUser + 1; index < messages.length; index++) {
    const message = messages[index];
    if (message?.role !== 'assistant' || !Array.isArray(message.tool_calls)) continue;
    if (typeof message.reasoning_content === 'string') continue;
    return openaiError(
      400,
      `Missing \`reasoning_content\` field in the assistant message at message index ${index}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`,
      { code: 'invalid_request_error' },
    );
  }
  return undefined;
}

/**
 * Kimi thinking mode (Moonshot): every assistant message with tool calls, in any turn, carries a
 * non-empty `reasoning_content` (an empty string counts as missing), unless the request turns
 * thinking off (`thinking: {type: 'disabled'}`). The 400 as reported against api.moonshot.ai
 * (continuedev/continue#11711, mastra#12592, pi#4251).
 */
function checkKimi(messages: HostMessage[], thinking: unknown): JsonScript | undefined {
  if ((thinking as { type?: unknown } | null | undefined)?.type === 'disabled') return undefined;
  const index = messages.findIndex(
    (message) =>
      message?.role === 'assistant' &&
      Array.isArray(message.tool_calls) &&
      message.tool_calls.length > 0 &&
      (typeof message.reasoning_content !== 'string' || message.reasoning_content === ''),
  );
  if (index === -1) return undefined;
  return {
    type: 'json',
    status: 400,
    body: {
      error: {
        message: `thinking is enabled but reasoning_content is missing in assistant tool call message at index ${index}`,
        type: 'invalid_request_error',
      },
    },
  };
}

/** Applies the host rules the request's model calls for; `undefined` when it passes (or no host matches). */
export function checkHostRules(request: RecordedRequest): JsonScript | undefined {
  const parsed = messagesOf(request);
  if (parsed === undefined) return undefined;
  if (mistralModel.test(parsed.model)) return checkMistral(parsed.messages);
  if (deepseekThinkingModel.test(parsed.model)) return checkDeepSeek(parsed.messages);
  if (kimiThinkingModel.test(parsed.model)) return checkKimi(parsed.messages, parsed.thinking);
  return undefined;
}
