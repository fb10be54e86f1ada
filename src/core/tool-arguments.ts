/** The arguments text of a tool call, for the protocols that send it as a string (Chat, Responses). */
import { isDeepStrictEqual } from 'node:util';
import type { ToolCallPart } from './transcript.ts';
import { losesNumberDigits, parseJson, parseJsonKeepingDigits } from './json-text.ts';
import type { JsonObject } from './json.ts';
import type { MetadataMap } from './metadata.ts';

type ToolCallArguments = Pick<ToolCallPart, 'input' | 'metadata'>;

/** The model's own text of the arguments when it was kept (`switchyard.raw_input`). */
export function rawInput(call: ToolCallArguments): string | undefined {
  const raw = call.metadata?.['switchyard.raw_input'];
  return typeof raw === 'string' ? raw : undefined;
}

/**
 * Metadata of a call whose arguments parsed, but not exactly: the text as written, when its parse
 * changed a number (`losesNumberDigits`: an id of 19 digits), or, in a whole reply
 * (`complete()`), when the text is not its input's JSON (spacing, key order, `1.0`). Unlike
 * `switchyard.raw_input` the call is whole; `input` is the parse.
 */
export const argumentsTextKey = 'switchyard.arguments_text';

/**
 * The metadata objects the stream builder made to keep arguments text, each with the input parsed
 * from that text: an encoder of the same call then takes the text without parsing it again (a
 * whole reply's every tool call, encoded and replayed, paid a parse and a deep compare per use).
 */
const keptFrom = new WeakMap<object, JsonObject>();

/** Metadata keeping `text` (under {@link argumentsTextKey}) as the text `input` was parsed from. */
export function keptArgumentsText(
  metadata: MetadataMap | undefined,
  text: string,
  input: JsonObject,
): MetadataMap {
  const kept: MetadataMap = { ...metadata, [argumentsTextKey]: text };
  keptFrom.set(kept, input);
  return kept;
}

/**
 * The exact text of arguments whose parse changed a number, when it was kept and still is the
 * input's text: it parses to `input` (metadata a caller wrote, or an input edited since, is not
 * taken over the input).
 */
function exactText(call: ToolCallArguments): string | undefined {
  const text = call.metadata?.[argumentsTextKey];
  if (typeof text !== 'string') return undefined;
  // Kept by the stream builder from the very text `input` was parsed from: no parse to check it.
  if (keptFrom.get(call.metadata!) === call.input) return text;
  try {
    return isDeepStrictEqual(parseJson(text), call.input) ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * For a client (the gateway's encoders): the provider's own text when it did not parse, as a
 * streamed client saw it arrive, rather than the repair in `input`; the text as written when its
 * parse changed a number; else the input as JSON.
 */
export function argumentsText(call: ToolCallArguments): string {
  return rawInput(call) ?? exactText(call) ?? JSON.stringify(call.input);
}

/**
 * For an upstream (Chat, Responses adapters): the model's own text when its arguments were kept as written (`switchyard.raw_input`: JSON that is
 * not an object, `[1,2]`, which `input` cannot hold) and it is JSON; else the input as JSON. Text that
 * does not parse (a call cut short) goes as its repair: hosts that parse the arguments of earlier
 * calls (chat templates) would refuse the whole request over it. Text whose parse changed a number
 * goes as written.
 */
export function argumentsJson(call: ToolCallArguments): string {
  const raw = rawInput(call);
  if (raw === undefined) return exactText(call) ?? JSON.stringify(call.input);
  try {
    parseJson(raw);
    return raw;
  } catch {
    return JSON.stringify(call.input);
  }
}

/**
 * For a client protocol that carries arguments as a JSON object (Anthropic, Gemini), in a body
 * serialized at once: the input, with the numbers its parse changed (a 19-digit id) written as the
 * model wrote them when the text was kept.
 */
export function argumentsObject(call: ToolCallArguments): JsonObject {
  // Only a text whose parse changed a number differs here from the input (spacing does not).
  const kept = call.metadata?.[argumentsTextKey];
  if (typeof kept !== 'string' || !losesNumberDigits(kept)) return call.input;
  const text = exactText(call);
  if (text === undefined) return call.input;
  return (parseJsonKeepingDigits(text) as JsonObject | undefined) ?? call.input;
}
