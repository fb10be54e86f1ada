/** Helpers for the agent's own tests: scripted parts, transcript consistency checks, event collection. */
import { expect } from 'vitest';
import { toolCallId } from '../core/ids.ts';
import type { JsonObject } from '../core/json.ts';
import type { Item, Part, ToolCallPart, ToolResultPart } from '../core/transcript.ts';
import { checkTranscript } from '../core/transcript-invariants.ts';
import type { AgentRun } from './agent.ts';
import type { AgentEvent, AgentResult } from './types.ts';

/** A scripted tool call part. */
export function call(id: string, name: string, input: JsonObject): ToolCallPart {
  return { type: 'tool-call', id: toolCallId(id), name, input };
}

/** A scripted text part. */
export function text(value: string): Part {
  return { type: 'text', text: value };
}

/** Every tool result of the transcript, by call id. */
export function resultsById(transcript: readonly Item[]): Map<string, ToolResultPart> {
  const results = new Map<string, ToolResultPart>();
  for (const item of transcript) {
    for (const part of item.parts) if (part.type === 'tool-result') results.set(part.callId, part);
  }
  return results;
}

/** The text of a tool result. */
export function resultText(result: ToolResultPart | undefined): string {
  if (result === undefined) return '<missing>';
  return result.output.type === 'text' ? result.output.text : JSON.stringify(result.output);
}

/** Asserts the transcript is valid and every tool call is answered by a result in the next item. */
export function expectConsistent(transcript: readonly Item[]): void {
  expect(checkTranscript([...transcript])).toEqual([]);
  transcript.forEach((item, index) => {
    if (item.kind !== 'assistant') return;
    const calls = item.parts.filter((part): part is ToolCallPart => part.type === 'tool-call');
    if (calls.length === 0) return;
    const next = transcript[index + 1];
    expect(next?.kind, `tool item after assistant item ${index}`).toBe('tool');
    const answered = new Set(next!.parts.map((part) => (part as ToolResultPart).callId));
    for (const toolCall of calls) expect(answered.has(toolCall.id), `answer to ${toolCall.id}`).toBe(true);
  });
}

/** Iterates a run, returning its events and result. */
export async function drain(run: AgentRun): Promise<{ events: AgentEvent[]; result: AgentResult }> {
  const events: AgentEvent[] = [];
  for await (const event of run) events.push(event);
  return { events, result: await run.result() };
}
