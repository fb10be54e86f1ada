/** Tool specifications and tool choice. */
import { isJsonObject, type JsonObject, type JsonValue } from './json.ts';

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
 * // A call's input: { input: '*** Begin Patch\n…' }; freeformText(call.input) is the text.
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
 * A freeform tool call's text: its input's `input` string; none for an empty input (a cut call);
 * any other input as JSON, so nothing is lost.
 */
export function freeformText(input: JsonValue): string {
  if (isJsonObject(input)) {
    if (typeof input.input === 'string') return input.input;
    if (Object.keys(input).length === 0) return '';
  }
  return JSON.stringify(input);
}

/** The names of a request's freeform tools (empty when it has none). */
export function freeformNames(tools: readonly ToolSpec[] | undefined): ReadonlySet<string> {
  const names = new Set<string>();
  if (tools !== undefined) for (const tool of tools) if (tool.freeform !== undefined) names.add(tool.name);
  return names;
}

/** Whether and which tool the model must call. */
export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; name: string };
