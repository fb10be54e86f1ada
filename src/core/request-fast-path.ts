/**
 * The common request checked without zod: {@link plainRequest} returns exactly what
 * `requestSchema` would return for a request of the everyday shape (text, reasoning, tool calls and
 * their text or JSON results, tools, sampling settings), and `undefined` for anything else, which
 * then goes to zod. It never accepts what zod refuses; `request-fast-path.test.ts` holds it to zod
 * on recorded transcripts and on generated and mutated requests.
 *
 * Why: zod's schema walk is a large, general piece of code; between two calls of a streamed reply
 * the CPU caches have moved on, and validating a one-message request cost 10–12 µs of an adapter
 * call (`node bench/fixed-cost-profile.ts`), about a tenth of the whole fixed cost. This walk
 * touches only the fields the request has.
 *
 * What zod gives, this gives: new objects and arrays for the request, its items, parts, tools and
 * records (keys in the schema's order), the caller's strings and JSON values as they are.
 */
import { isMetadataKey } from './metadata.ts';
import type { CanonicalRequest } from './request.ts';
import { nonJsonPath } from './transcript-schema.ts';
import { findShapeProblem } from './value-shape.ts';

type Plain = Record<string, unknown>;

/** Thrown inside the walk when the value is not of the shape taken here (caught in {@link plainRequest}). */
const declined = Symbol('declined');

function decline(): never {
  throw declined;
}

/** A plain object whose every key (own or inherited enumerable, as zod's `for…in`) is in `keys`. */
function plainWith(value: unknown, keys: ReadonlySet<string>): Plain {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype)
    decline();
  for (const key in value) if (!keys.has(key)) decline();
  return value as Plain;
}

/** Reads an optional member: absent is `undefined`; present but `undefined` is left to zod. */
function optional(object: Plain, key: string): unknown {
  const value = object[key];
  if (value === undefined && key in object) decline();
  return value;
}

function string(value: unknown, minimum = 0): string {
  if (typeof value !== 'string' || value.length < minimum) decline();
  return value;
}

function optionalString(object: Plain, key: string, target: Plain): void {
  const value = optional(object, key);
  if (value !== undefined) target[key] = string(value);
}

function optionalBoolean(object: Plain, key: string, target: Plain): void {
  const value = optional(object, key);
  if (value === undefined) return;
  if (typeof value !== 'boolean') decline();
  target[key] = value;
}

/** `incomplete`: `true` or absent. */
function optionalTrue(object: Plain, key: string, target: Plain): void {
  const value = optional(object, key);
  if (value === undefined) return;
  if (value !== true) decline();
  target[key] = value;
}

/** A JSON value, as `jsonValueSchema` checks it: returned as it is. */
function json(value: unknown): unknown {
  if (nonJsonPath(value, 0) !== undefined) decline();
  return value;
}

/** A record of JSON values (`jsonObjectSchema`, or metadata with its key rule): a new object, keys in order. */
function record(value: unknown, keyRule?: (key: string) => boolean): Plain {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype)
    decline();
  // zod reads own keys (symbols too, which a string key refuses); a `constructor` key changes its plain-object test.
  if (Object.getOwnPropertySymbols(value).length > 0 || Object.hasOwn(value, 'constructor')) decline();
  const copy: Plain = {};
  for (const key of Object.keys(value)) {
    if (keyRule !== undefined && !keyRule(key)) decline();
    copy[key] = json((value as Plain)[key]);
  }
  return copy;
}

function optionalMetadata(object: Plain, target: Plain): void {
  const value = optional(object, 'metadata');
  if (value !== undefined) target.metadata = record(value, isMetadataKey);
}

/** A plain array (no holes: a hole reads as `undefined`, which every element refuses). */
function array<Element>(value: unknown, element: (entry: unknown) => Element): Element[] {
  if (!Array.isArray(value)) decline();
  const copy: Element[] = new Array<Element>(value.length);
  for (let index = 0; index < value.length; index++) copy[index] = element(value[index]);
  return copy;
}

const textKeys = new Set(['type', 'text', 'incomplete', 'metadata']);
const reasoningKeys = new Set([
  'type',
  'text',
  'signature',
  'data',
  'redacted',
  'provider',
  'incomplete',
  'metadata',
]);
const toolCallKeys = new Set([
  'type',
  'id',
  'name',
  'input',
  'signature',
  'provider',
  'incomplete',
  'metadata',
]);
const toolResultKeys = new Set(['type', 'callId', 'name', 'output', 'isError', 'metadata']);
const textOutputKeys = new Set(['type', 'text']);
const jsonOutputKeys = new Set(['type', 'value']);

function textPart(part: Plain): Plain {
  plainWith(part, textKeys);
  const copy: Plain = { type: 'text', text: string(part.text) };
  optionalTrue(part, 'incomplete', copy);
  optionalMetadata(part, copy);
  return copy;
}

function reasoningPart(part: Plain): Plain {
  plainWith(part, reasoningKeys);
  const copy: Plain = { type: 'reasoning', text: string(part.text) };
  optionalString(part, 'signature', copy);
  optionalString(part, 'data', copy);
  optionalBoolean(part, 'redacted', copy);
  optionalString(part, 'provider', copy);
  optionalTrue(part, 'incomplete', copy);
  optionalMetadata(part, copy);
  return copy;
}

function toolCallPart(part: Plain): Plain {
  plainWith(part, toolCallKeys);
  const copy: Plain = {
    type: 'tool-call',
    id: string(part.id),
    name: string(part.name, 1),
    input: record(part.input),
  };
  optionalString(part, 'signature', copy);
  optionalString(part, 'provider', copy);
  optionalTrue(part, 'incomplete', copy);
  optionalMetadata(part, copy);
  return copy;
}

function toolResultOutput(output: unknown): Plain {
  const type = typeof output === 'object' && output !== null ? (output as Plain).type : undefined;
  if (type === 'text') return { type, text: string(plainWith(output, textOutputKeys).text) };
  if (type === 'json') return { type, value: json(plainWith(output, jsonOutputKeys).value) };
  return decline();
}

function toolResultPart(part: Plain): Plain {
  plainWith(part, toolResultKeys);
  const copy: Plain = { type: 'tool-result', callId: string(part.callId) };
  optionalString(part, 'name', copy);
  copy.output = toolResultOutput(part.output);
  // Each member is read once, as zod reads it (a getter could answer differently the second time).
  const isError = part.isError;
  if (typeof isError !== 'boolean') decline();
  copy.isError = isError;
  optionalMetadata(part, copy);
  return copy;
}

function part(value: unknown): Plain {
  const type = typeof value === 'object' && value !== null ? (value as Plain).type : undefined;
  switch (type) {
    case 'text':
      return textPart(value as Plain);
    case 'reasoning':
      return reasoningPart(value as Plain);
    case 'tool-call':
      return toolCallPart(value as Plain);
    case 'tool-result':
      return toolResultPart(value as Plain);
    default:
      return decline();
  }
}

const itemKeys = new Set(['id', 'kind', 'parts', 'metadata']);
const itemKinds = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'context']);

function item(value: unknown): Plain {
  const object = plainWith(value, itemKeys);
  const copy: Plain = {};
  optionalString(object, 'id', copy);
  const kind = object.kind;
  if (!itemKinds.has(kind as string)) decline();
  copy.kind = kind;
  copy.parts = array(object.parts, part);
  optionalMetadata(object, copy);
  return copy;
}

const toolKeys = new Set(['name', 'description', 'inputSchema', 'outputSchema', 'freeform', 'strict']);
const textFormatKeys = new Set(['type']);
const grammarKeys = new Set(['type', 'syntax', 'definition']);

function tool(value: unknown): Plain {
  const object = plainWith(value, toolKeys);
  const copy: Plain = { name: string(object.name, 1) };
  optionalString(object, 'description', copy);
  copy.inputSchema = record(object.inputSchema);
  const output = optional(object, 'outputSchema');
  if (output !== undefined) copy.outputSchema = record(output);
  const freeform = optional(object, 'freeform');
  if (freeform !== undefined) copy.freeform = freeformSetting(freeform);
  optionalBoolean(object, 'strict', copy);
  return copy;
}

/** A freeform tool's format: `{ type: 'text' }` or a grammar (anything else is left to zod). */
function freeformSetting(value: unknown): Plain {
  const type = (value as Plain | null)?.type;
  if (type === 'text') return { type: plainWith(value, textFormatKeys).type };
  const object = plainWith(value, grammarKeys);
  if (type !== 'grammar' || (object.syntax !== 'lark' && object.syntax !== 'regex')) decline();
  return { type, syntax: object.syntax, definition: string(object.definition) };
}

const toolChoiceKeys = new Set(['type', 'name']);
const toolChoices = new Set(['auto', 'none', 'required']);

function toolChoice(value: unknown): unknown {
  if (typeof value === 'string') return toolChoices.has(value) ? value : decline();
  const object = plainWith(value, toolChoiceKeys);
  if (object.type !== 'tool') decline();
  return { type: 'tool', name: string(object.name, 1) };
}

const reasoningSettingKeys = new Set(['effort', 'budgetTokens', 'includeThoughts', 'thinking']);
const efforts = new Set(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']);

function reasoning(value: unknown): Plain {
  const object = plainWith(value, reasoningSettingKeys);
  const copy: Plain = {};
  const effort = optional(object, 'effort');
  if (effort !== undefined) copy.effort = efforts.has(effort as string) ? effort : decline();
  const budget = optional(object, 'budgetTokens');
  if (budget !== undefined) copy.budgetTokens = integer(budget, 0);
  optionalBoolean(object, 'includeThoughts', copy);
  optionalBoolean(object, 'thinking', copy);
  return copy;
}

/** A safe integer of at least `minimum`. */
function integer(value: unknown, minimum: number): number {
  if (!Number.isSafeInteger(value) || (value as number) < minimum) decline();
  return value as number;
}

/** A finite number in `[minimum, maximum]` (NaN and the infinities fail the comparisons). */
function bounded(value: unknown, minimum: number, maximum: number): number {
  if (typeof value !== 'number' || !(value >= minimum && value <= maximum)) decline();
  return value;
}

/** The request members taken here, in the schema's order; the others (`outputSchema`, `cache`, …) go to zod. */
const requestKeys = new Set([
  'requestId',
  'model',
  'transcript',
  'tools',
  'toolChoice',
  'parallelToolCalls',
  'maxOutputTokens',
  'stopSequences',
  'temperature',
  'topP',
  'topK',
  'reasoning',
]);

/**
 * `isModelName` given: the front door's request (`routeRequestSchema`), whose model is a name that
 * rule accepts, as it is, and whose `maxOutputTokens` is optional.
 */
function request(value: unknown, isModelName?: (name: string) => boolean): Plain {
  const object = plainWith(value, requestKeys);
  const copy: Plain = {};
  const requestId = optional(object, 'requestId');
  if (requestId !== undefined) copy.requestId = string(requestId, 1);
  const model = string(object.model, isModelName === undefined ? 1 : 0);
  // zod trims the adapter request's model; a name that trimming would change is left to it.
  if (isModelName === undefined ? model.trim() !== model : !isModelName(model)) decline();
  copy.model = model;
  copy.transcript = array(object.transcript, item);
  const tools = optional(object, 'tools');
  if (tools !== undefined) {
    const checked = array(tools, tool);
    if (new Set(checked.map((entry) => entry.name)).size !== checked.length) decline();
    copy.tools = checked;
  }
  const choice = optional(object, 'toolChoice');
  if (choice !== undefined) copy.toolChoice = toolChoice(choice);
  optionalBoolean(object, 'parallelToolCalls', copy);
  const limit = isModelName === undefined ? object.maxOutputTokens : optional(object, 'maxOutputTokens');
  if (limit !== undefined || isModelName === undefined) copy.maxOutputTokens = integer(limit, 1);
  const stops = optional(object, 'stopSequences');
  if (stops !== undefined) copy.stopSequences = array(stops, (entry) => string(entry));
  const temperature = optional(object, 'temperature');
  if (temperature !== undefined) copy.temperature = bounded(temperature, 0, 2);
  const topP = optional(object, 'topP');
  if (topP !== undefined) copy.topP = bounded(topP, 0, 1);
  const topK = optional(object, 'topK');
  if (topK !== undefined) copy.topK = integer(topK, 1);
  const settings = optional(object, 'reasoning');
  if (settings !== undefined) copy.reasoning = reasoning(settings);
  return copy;
}

/**
 * What `requestSchema` returns for `input` when `input` is a request of the everyday shape (see
 * the module comment), else `undefined` (zod then decides). Runs the same stack-safe shape check
 * first; with `isModelName`, the same for `routeRequestSchema`. The transcript's tool pairing is not checked here (the caller runs `checkTranscript` on
 * whichever value it gets).
 */
export function plainRequest(
  input: unknown,
  isModelName?: (name: string) => boolean,
): CanonicalRequest | undefined {
  try {
    if (findShapeProblem(input) !== undefined) return undefined;
    return request(input, isModelName) as unknown as CanonicalRequest;
  } catch (error) {
    if (error === declined) return undefined;
    // A getter that throws, a Proxy trap: zod reports it as an issue.
    return undefined;
  }
}
