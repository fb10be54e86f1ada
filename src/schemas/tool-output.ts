/**
 * What a tool's `execute` receives and returns, and the tool the agent runs: the runtime half of
 * {@link tool} (`structured.ts`), below the agent so that requests and the agent share one tool type.
 */
import type { JsonValue } from '../core/json.ts';
import type { Part, ToolOutput } from '../core/transcript.ts';

/** What a tool's `execute` receives besides its input. */
export interface ToolContext {
  /** The id of the call being answered. */
  callId: string;
  /** Aborted when the run is interrupted or the tool times out: stop work and return. */
  signal: AbortSignal;
  /** The turn (1-based) that asked for the call. */
  turn: number;
}

const outputMarker = Symbol.for('switchyard.tool-output');

/** A tool output built by {@link toolOutput}; carries an error flag. */
export type MarkedToolOutput = ToolOutput & { readonly [outputMarker]: { isError: boolean } };

/** What `execute` may return: a string (text), any JSON value (json), or a {@link toolOutput}. */
export type ToolReturn = string | JsonValue | MarkedToolOutput | undefined;

/** Builders for explicit tool outputs: parts (e.g. an image), JSON, text, or an error result. */
export const toolOutput = {
  text: (text: string): MarkedToolOutput => mark({ type: 'text', text }, false),
  json: (value: JsonValue): MarkedToolOutput => mark({ type: 'json', value }, false),
  parts: (parts: Part[]): MarkedToolOutput => mark({ type: 'parts', parts }, false),
  /** An error result the model sees (the tool ran but failed in a way the model should know). */
  error: (text: string): MarkedToolOutput => mark({ type: 'text', text }, true),
};

function mark(output: ToolOutput, isError: boolean): MarkedToolOutput {
  Object.defineProperty(output, outputMarker, { value: { isError }, enumerable: false });
  return output as MarkedToolOutput;
}

/** Whether `value` was built by {@link toolOutput} (and carries its error flag). */
export function isMarkedOutput(value: unknown): value is MarkedToolOutput {
  return typeof value === 'object' && value !== null && outputMarker in value;
}

/** Converts whatever `execute` returned into a tool output and its error flag. */
export function normalizeToolReturn(value: ToolReturn): { output: ToolOutput; isError: boolean } {
  if (typeof value === 'object' && value !== null && outputMarker in value) {
    const { isError } = (value as MarkedToolOutput)[outputMarker];
    const output = { ...value } as ToolOutput;
    return { output, isError };
  }
  if (typeof value === 'string') return { output: { type: 'text', text: value }, isError: false };
  if (value === undefined) return { output: { type: 'text', text: '' }, isError: false };
  return { output: { type: 'json', value }, isError: false };
}

/** Whether a call needs the user's approval before it runs. */
// A method signature, so a rule typed by one tool's input fits a list of tools of any input (bivariant).
export type ApprovalRule<Input> = boolean | { rule(input: Input): boolean | Promise<boolean> }['rule'];
