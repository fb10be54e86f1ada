/** Tool specifications and tool choice. */
import { isJsonObject, type JsonObject } from './json.ts';
import { parseJson } from './json-text.ts';
import { rawInput } from './tool-arguments.ts';
import type { ToolCallPart } from './transcript.ts';

/** A tool the model may call. */
export interface ToolSpec {
  name: string;
  description?: string;
  /** JSON Schema of the input object. */
  inputSchema: JsonObject;
  /** Optional JSON Schema of the output. */
  outputSchema?: JsonObject;
  /**
   * A freeform tool: the model writes its input as raw text, not JSON (OpenAI's custom tools, such
   * as Codex's `apply_patch`), optionally held to a grammar. A call's input is `{ input: text }`.
   * The OpenAI Responses API gets a `custom` tool with this format; every other protocol the
   * function of {@link freeformTool}'s `inputSchema`, whose one string parameter is the text.
   */
  freeform?: FreeformFormat;
  /**
   * The caller asks the provider to hold the model's arguments to `inputSchema` exactly (OpenAI's
   * and Anthropic's `strict` tools). Sent by the OpenAI adapters (with the schema made strict-ready,
   * and the `null`s that adds taken out of the call again); `false` opts a tool out of the
   * adapter's `strictTools` option. Absent: the adapter's option decides.
   */
  strict?: boolean;
}

/**
 * A tool's plain spec: its {@link ToolSpec} fields only (a schema-backed tool also carries its
 * schema, parser and `execute`, which no request sends). The one copy the front door, conversations
 * and the agent make.
 */
export function plainToolSpec(tool: ToolSpec): ToolSpec {
  const spec: ToolSpec = { name: tool.name, inputSchema: tool.inputSchema };
  if (tool.description !== undefined) spec.description = tool.description;
  if (tool.outputSchema !== undefined) spec.outputSchema = tool.outputSchema;
  if (tool.freeform !== undefined) spec.freeform = tool.freeform;
  if (tool.strict !== undefined) spec.strict = tool.strict;
  return spec;
}

/** What a freeform tool's text must be: any text, or text a Lark or regular-expression grammar accepts. */
export type FreeformFormat =
  { type: 'text' } | { type: 'grammar'; syntax: 'lark' | 'regex'; definition: string };

/**
 * A freeform tool's spec: `inputSchema` is the object of one string `input` (the text), described
 * with the grammar, for the protocols that have no freeform tools.
 *
 * @example
 * const patch = freeformTool('apply_patch', 'Edits files.', { type: 'grammar', syntax: 'lark', definition });
 * // A call's input: { input: '*** Begin Patch\n…' }; freeformText(call) is the text.
 */
export function freeformTool(
  name: string,
  description: string | undefined,
  format: FreeformFormat,
): ToolSpec {
  const about =
    format.type === 'grammar'
      ? `The tool's input as raw text (not JSON). It must match this ${format.syntax === 'lark' ? 'Lark' : 'regular-expression'} grammar:\n${format.definition}`
      : "The tool's input as raw text (not JSON).";
  const spec: ToolSpec = {
    name,
    inputSchema: {
      type: 'object',
      properties: { input: { type: 'string', description: about } },
      required: ['input'],
      additionalProperties: false,
    },
    freeform: format,
  };
  if (description !== undefined) spec.description = description;
  return spec;
}

/**
 * A freeform tool call's text: its input's `input` string. When the model's arguments did not
 * parse (its text kept as `switchyard.raw_input`), the `input` string of that text read with raw
 * control characters allowed in its strings (`{"input": "…"}` with literal newlines), or the text
 * itself (the raw text as the arguments). None for an empty input (a cut call); any other input as
 * JSON, so nothing is lost.
 */
export function freeformText(call: Pick<ToolCallPart, 'input' | 'metadata'>): string {
  const { input } = call;
  if (isJsonObject(input) && typeof input.input === 'string') return input.input;
  const raw = rawInput(call);
  if (raw !== undefined && raw.trim() !== '') return looseInput(raw) ?? raw;
  if (isJsonObject(input) && Object.keys(input).length === 0) return '';
  return JSON.stringify(input);
}

/** The `input` string of `{"input": "…"}` whose strings may hold raw control characters. */
function looseInput(text: string): string | undefined {
  let escaped = '';
  let inString = false;
  let afterBackslash = false;
  for (const character of text) {
    if (inString) {
      if (afterBackslash) afterBackslash = false;
      else if (character === '\\') afterBackslash = true;
      else if (character === '"') inString = false;
      else if (character < ' ') {
        escaped += `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
        continue;
      }
    } else if (character === '"') inString = true;
    escaped += character;
  }
  try {
    const value = parseJson(escaped);
    return isJsonObject(value) && typeof value.input === 'string' ? value.input : undefined;
  } catch {
    return undefined;
  }
}

/** The names of a request's freeform tools (empty when it has none). */
export function freeformNames(tools: readonly ToolSpec[] | undefined): ReadonlySet<string> {
  const names = new Set<string>();
  if (tools !== undefined) for (const tool of tools) if (tool.freeform !== undefined) names.add(tool.name);
  return names;
}

/** Whether and which tool the model must call. */
export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; name: string };
