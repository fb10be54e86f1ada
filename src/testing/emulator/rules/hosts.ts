/**
 * Rules of OpenAI-compatible hosts that are stricter than OpenAI, recognised by the model named in
 * the request: Mistral's 9-character tool-call ids, DeepSeek thinking mode's `reasoning_content`.
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

function messagesOf(request: RecordedRequest): { model: string; messages: HostMessage[] } | undefined {
  const body = request.body;
  if (typeof body !== 'object' || body === null) return undefined;
  const { model, messages } = body as { model?: unknown; messages?: unknown };
  if (typeof model !== 'string' || !Array.isArray(messages)) return undefined;
  return { model, messages: messages as HostMessage[] };
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

/** Applies the host rules the request's model calls for; `undefined` when it passes (or no host matches). */
export function checkHostRules(request: RecordedRequest): JsonScript | undefined {
  const parsed = messagesOf(request);
  if (parsed === undefined) return undefined;
  if (mistralModel.test(parsed.model)) return checkMistral(parsed.messages);
  if (deepseekThinkingModel.test(parsed.model)) return checkDeepSeek(parsed.messages);
  return undefined;
}
