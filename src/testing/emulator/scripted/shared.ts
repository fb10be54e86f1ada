/** Helpers shared by the per-protocol response synthesizers: chunking, usage defaults, tool ids. */
import type { ScriptedContent, ScriptedCustom, ScriptedScript, ScriptedToolCall } from '../types.ts';

/** What a synthesizer needs to know about the request. */
export interface ScriptContext {
  /** The model to report. */
  model: string;
  /** OpenAI chat only: whether `stream_options.include_usage` asked for the usage chunk. */
  streamUsage: boolean;
  /** OpenAI Responses only: `include` asked for `reasoning.encrypted_content`. */
  encryptedReasoning?: boolean;
  /** OpenAI Responses only: the request's `store` (default true) and `previous_response_id`. */
  store?: boolean;
  previousResponseId?: string;
}

/** Usage with every count filled in. */
export interface ResolvedUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
  serviceTier?: string;
}

/** A tool call whose id has been fixed for the response. */
export type ResolvedToolCall = ScriptedToolCall & { id: string };

/** Scripted content with tool-call ids resolved. */
export type ResolvedContent = Exclude<ScriptedContent, ScriptedToolCall | ScriptedCustom> | ResolvedToolCall;

/** Default characters per delta. */
export const defaultChunkSize = 8;

export { chunkText } from '../../../codecs/common.ts';

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Fills in usage: input 10, output and reasoning estimated at four characters per token. */
export function resolveUsage(script: ScriptedScript): ResolvedUsage {
  let visible = 0;
  let reasoning = 0;
  for (const part of script.content) {
    if (part.type === 'text') visible += estimateTokens(part.text);
    else if (part.type === 'reasoning') reasoning += estimateTokens(part.text);
    else if (part.type === 'custom') visible += estimateTokens(JSON.stringify(part.data));
    else visible += estimateTokens(JSON.stringify(part.input)) + 5;
  }
  const usage = script.usage ?? {};
  const resolved: ResolvedUsage = {
    input: usage.input ?? 10,
    output: usage.output ?? Math.max(1, visible),
    cacheRead: usage.cacheRead ?? 0,
    cacheWrite: usage.cacheWrite ?? 0,
    reasoning: usage.reasoning ?? reasoning,
  };
  if (usage.serviceTier !== undefined) resolved.serviceTier = usage.serviceTier;
  return resolved;
}

/** Gives every tool call an id, minting one with `createId` where the script has none. */
export function resolveContent(content: ScriptedContent[], createId: () => string): ResolvedContent[] {
  // A provider's own block has no place in these protocols (Bedrock): left out.
  return content.flatMap((part) =>
    part.type === 'custom' ? [] : [part.type === 'tool-call' ? { ...part, id: part.id ?? createId() } : part],
  );
}

/** Whether the script calls any tool. */
export function hasToolCall(script: ScriptedScript): boolean {
  return script.content.some((part) => part.type === 'tool-call');
}

/** The concatenated visible text of the script. */
export function visibleText(content: ScriptedContent[]): string {
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** The concatenated reasoning text of the script. */
export function reasoningText(content: ScriptedContent[]): string {
  return content.map((part) => (part.type === 'reasoning' ? part.text : '')).join('');
}
