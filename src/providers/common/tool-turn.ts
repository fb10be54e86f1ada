/**
 * The tool-use turn a conversation leaves open, in any protocol's messages: the trailing run of
 * assistant messages and user messages holding only tool results — one assistant turn to an API
 * that reasons once per turn (Claude under thinking: the Messages API, InvokeModel, Vertex, and
 * Bedrock Converse).
 */
export interface ToolTurnShape<Message> {
  isAssistant(message: Message): boolean;
  /** A user message that only answers tool calls (it continues the assistant's turn). */
  isToolResults(message: Message): boolean;
  /** The message opens with the provider's own reasoning block. */
  startsWithReasoning(message: Message): boolean;
  hasToolCall(message: Message): boolean;
}

/**
 * The index of the assistant message that opened the tool-use turn still in progress, when it does
 * not start with the provider's reasoning (its calls came from another provider, or its reasoning
 * was dropped or cancelled before it was signed); `undefined` otherwise, or when no tool result
 * follows it.
 */
export function findToolTurnWithoutReasoning<Message>(
  messages: readonly Message[],
  shape: ToolTurnShape<Message>,
): number | undefined {
  let start: number | undefined;
  let results = false;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as Message;
    if (shape.isAssistant(message)) start = index;
    else if (shape.isToolResults(message)) results = true;
    else break;
  }
  if (start === undefined || !results) return undefined;
  const opening = messages[start] as Message;
  return !shape.startsWithReasoning(opening) && shape.hasToolCall(opening) ? start : undefined;
}
