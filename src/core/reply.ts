/** A routed response with its text and tool calls: what every caller above the adapters reads. */
import type { JsonValue } from './json.ts';
import type { CanonicalResponse } from './request.ts';
import type { Part, ToolCallPart } from './transcript.ts';

/** A routed response: the canonical response plus its text, tool calls and validated structured value. */
export interface Reply extends CanonicalResponse {
  /** The text parts joined (empty when there are none). */
  text: string;
  /** The tool calls, in order. */
  toolCalls: ToolCallPart[];
  /** With an output schema: the parsed, validated value (also a `structured` part of `content`). */
  structured?: JsonValue;
}

/** The text parts of `content` joined with no separator. */
export function textOf(content: readonly Part[]): string {
  let text = '';
  for (const part of content) if (part.type === 'text') text += part.text;
  return text;
}

/** The tool calls of `content`. */
export function toolCallsOf(content: readonly Part[]): ToolCallPart[] {
  const calls: ToolCallPart[] = [];
  for (const part of content) if (part.type === 'tool-call') calls.push(part);
  return calls;
}
