/**
 * JSON mode by instruction: a structured-output request whose schema Anthropic's JSON outputs
 * cannot take (JSON of any shape — a client's `json_object`, a Gemini client's `responseMimeType:
 * application/json` without a schema — or a schema with an object of free-form keys) is asked for
 * in the system prompt instead, and the reply's text is cleaned of what models add around JSON.
 *
 * Why not a forced tool call (LiteLLM's `json_tool_call`, the AI SDK's `json` tool): Claude refuses
 * a forced `tool_choice` with thinking, and forcing it would keep the model from the client's own
 * tools. The instruction works beside both; the cleaning makes up for the model's habits: a
 * markdown code fence around the object, a sentence before it.
 */
import { parseJson } from '../../core/json-text.ts';
import type { OutputSchema } from '../../core/request.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import { callOf, type ProviderContext } from '../common/definition.ts';

/**
 * Calls whose structured output was asked for by instruction: their reply text is cleaned. Keyed by
 * the call (`callOf`), not the context object: Claude on Vertex and Bedrock InvokeModel build the
 * body and read the reply on copies of the context.
 */
const instructed = new WeakSet<object>();

/**
 * The system-prompt instruction for `schema`: a single JSON object and nothing else, and the
 * schema itself when it says more than "an object" (so the model still reads its properties).
 */
export function jsonInstruction(schema: OutputSchema): string {
  const lines = [
    'Answer with a single JSON object only: no text before or after it, and no markdown code fence.',
  ];
  const { type, ...rest } = schema.schema;
  if (type !== 'object' || Object.keys(rest).length > 0) {
    const described = schema.description === undefined ? '' : ` (${schema.description})`;
    lines.push(`The object must conform to this JSON Schema${described}:\n${JSON.stringify(schema.schema)}`);
  }
  return lines.join('\n');
}

/** The request builder's hook: this call's reply text is JSON asked for by instruction. */
export function recordJsonMode(context: ProviderContext): void {
  instructed.add(callOf(context));
}

/**
 * The reply reader's hook: for a call recorded by {@link recordJsonMode}, each text part is held
 * and sent at its end as ONE delta, cleaned by {@link extractJson} (streamed and not alike).
 */
export function holdJsonText(context: ProviderContext, builder: StreamBuilder): void {
  if (instructed.has(callOf(context))) builder.holdText(extractJson);
}

/**
 * The inside of a markdown code fence around the whole text (`json` or no language on its opening
 * line), trimmed; undefined when the text is not so fenced. Slices, not a regular expression: a
 * pattern with optional blanks beside a lazy body backtracks cubically on a fence followed by
 * thousands of blanks (a runaway reply held the event loop for seconds).
 */
function fencedInside(text: string): string | undefined {
  if (text.length < 6 || !text.startsWith('```') || !text.endsWith('```')) return undefined;
  const inner = text.slice(3, -3);
  const newline = inner.indexOf('\n');
  const tag = (newline === -1 ? inner : inner.slice(0, newline)).trim();
  if (newline !== -1 && (tag === '' || tag === 'json' || tag === 'JSON'))
    return inner.slice(newline + 1).trim();
  const bare = inner.trimStart();
  return (bare.startsWith('json') || bare.startsWith('JSON') ? bare.slice(4) : bare).trim();
}

/**
 * The JSON in a reply's text: the text itself when it is JSON (trimmed); else the inside of a code
 * fence around it, or of the first fenced block, when that is JSON; else the outermost bracketed
 * span that is JSON — from the first `{` to the last `}` or from the first `[` to the last `]`,
 * whichever opens first (an array answer after a sentence stays an array, not its first element);
 * else the text as the model wrote it (the client sees what it got, and its own parser reports it).
 */
export function extractJson(text: string): string {
  const trimmed = text.trim();
  const candidates = [trimmed];
  const whole = fencedInside(trimmed);
  if (whole !== undefined) candidates.push(whole);
  const block = /```(?:json|JSON)?[ \t]*\r?\n([\s\S]*?)```/.exec(trimmed);
  if (block !== null) candidates.push(block[1]!.trim());
  const spans: Array<[number, number]> = [];
  for (const [open, close] of [
    ['{', '}'],
    ['[', ']'],
  ] as const) {
    const start = trimmed.indexOf(open);
    const end = trimmed.lastIndexOf(close);
    if (start >= 0 && end > start) spans.push([start, end]);
  }
  spans.sort((left, right) => left[0] - right[0]);
  for (const [start, end] of spans) candidates.push(trimmed.slice(start, end + 1));
  return candidates.find(isJson) ?? text;
}

function isJson(text: string): boolean {
  if (text === '') return false;
  try {
    parseJson(text);
    return true;
  } catch {
    return false;
  }
}
