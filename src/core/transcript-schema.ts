/** Boundary validation of transcripts with zod, and lossless JSON (de)serialization. */
import { z } from 'zod';
import { InvalidRequestError } from './errors/invalid-request-error.ts';
import type { ToolCallId } from './ids.ts';
import type { JsonObject, JsonValue } from './json.ts';
import { parseJson } from './json-text.ts';
import { isMetadataKey, type MetadataMap, sortMetadata } from './metadata.ts';
import type { Item, Part, Transcript } from './transcript.ts';
import { findShapeProblem, maxNestingDepth } from './value-shape.ts';

/** Names what JSON takes: BigInt, Symbol, functions, NaN/Infinity, Dates, Maps and class instances do not. */
const notJson = 'expected a JSON value (string, finite number, boolean, null, array or plain object)';
/**
 * Any JSON value, checked by {@link nonJsonPath} rather than a recursive zod schema: zod 4.6 wraps
 * every schema whose subtree is recursive (here: the request, its transcript and parts) in a
 * per-value memo for cycle detection, which made validating a one-message request about three
 * times as costly as it is now (`npm run bench:frontdoor` prints the current cost); cycles are
 * refused before zod runs (`findShapeProblem`).
 */
const jsonValue = z.unknown().superRefine((value, context) => {
  const path = nonJsonPath(value, 0);
  if (path !== undefined) context.addIssue({ code: 'custom', message: notJson, path });
}) as unknown as z.ZodType<JsonValue>;

/**
 * The path to the first part of `value` that JSON does not take (BigInt, Symbol, functions,
 * undefined, NaN/Infinity, Dates, Maps, class instances, sparse-array holes), `[]` for `value`
 * itself, undefined when it is all JSON. Allocates only on failure; depth-capped.
 */
export function nonJsonPath(value: unknown, depth: number): PropertyKey[] | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : [];
    case 'object': {
      if (value === null) return undefined;
      if (depth >= maxNestingDepth) return [];
      if (Array.isArray(value)) {
        for (let index = 0; index < value.length; index++) {
          const inner = nonJsonPath(value[index], depth + 1);
          if (inner !== undefined) return [index, ...inner];
        }
        return undefined;
      }
      const prototype: unknown = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) return [];
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        const inner = nonJsonPath((value as Record<string, unknown>)[key], depth + 1);
        if (inner !== undefined) return [key, ...inner];
      }
      return undefined;
    }
    default:
      return [];
  }
}
const jsonObject = z.record(z.string(), jsonValue) as z.ZodType<JsonObject>;
/** The zod schema of any JSON value (finite numbers only). */
export const jsonValueSchema = jsonValue;
/** The zod schema of a JSON object. */
export const jsonObjectSchema = jsonObject;
const metadata = z
  .record(z.string().refine(isMetadataKey, 'metadata keys have the shape namespace.field'), jsonValue)
  .optional() as z.ZodType<MetadataMap | undefined>;

/** The runtime-closed marker (`TextPart.incomplete`): `true` or absent, never `false`. */
const incomplete = z.literal(true).optional();

/** The length of base64 `text` without its trailing `=` padding (no copy of a 32 MiB image's text). */
function unpaddedLength(text: string): number {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x3d) end--;
  return end;
}

const base64Text = z
  .string()
  .regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'expected base64')
  .refine((text) => unpaddedLength(text) % 4 !== 1, 'base64 text has an impossible length');
const dataRef = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('base64'), data: base64Text }),
  z.strictObject({
    type: z.literal('bytes'),
    // In JSON, bytes travel as base64 text; in memory they are a Uint8Array.
    bytes: z.union([z.instanceof(Uint8Array), base64Text.transform((text) => Buffer.from(text, 'base64'))]),
  }),
  z.strictObject({ type: z.literal('uri'), uri: z.string().min(1) }),
  z.strictObject({ type: z.literal('handle'), handle: z.string().min(1) }),
]);

const toolCallIdSchema = z.string().transform((value) => value as ToolCallId);

/** The parts a tool result may hold: every kind but tool calls and tool results. */
const contentParts = [
  z.strictObject({ type: z.literal('text'), text: z.string(), incomplete, metadata }),
  z.strictObject({
    type: z.literal('media'),
    modality: z.enum(['image', 'audio', 'video', 'binary']),
    mimeType: z.string().min(1),
    data: dataRef,
    metadata,
  }),
  z.strictObject({
    type: z.literal('file'),
    mimeType: z.string().min(1),
    data: dataRef,
    filename: z.string().optional(),
    metadata,
  }),
  z.strictObject({
    type: z.literal('structured'),
    value: jsonValue,
    schema: jsonObject.optional(),
    metadata,
  }),
  z.strictObject({
    type: z.literal('reasoning'),
    text: z.string(),
    signature: z.string().optional(),
    data: z.string().optional(),
    redacted: z.boolean().optional(),
    provider: z.string().optional(),
    incomplete,
    metadata,
  }),
  z.strictObject({
    type: z.literal('custom'),
    provider: z.string().min(1),
    kind: z.string().min(1),
    data: jsonValue,
    metadata,
  }),
] as const;

/**
 * A tool result's `parts`: content parts only. Checked without recursion into `part` (a recursive
 * schema makes zod 4.6 memoize every value of the parse; see `jsonValue`).
 */
const resultParts = z.array(z.unknown()).transform((parts, context) => {
  const parsed: unknown[] = [];
  parts.forEach((inner, index) => {
    const type = typeof inner === 'object' && inner !== null ? (inner as { type?: unknown }).type : undefined;
    if (type === 'tool-call' || type === 'tool-result') {
      const message = 'a tool result cannot hold tool calls or tool results';
      context.addIssue({ code: 'custom', message, path: [index] });
      return;
    }
    const checked = contentPart.safeParse(inner);
    if (checked.success) parsed.push(checked.data);
    else
      for (const issue of checked.error.issues)
        context.addIssue({ ...issue, path: [index, ...issue.path] } as never);
  });
  return parsed;
});
const contentPart = z.discriminatedUnion('type', contentParts);

const part = z.discriminatedUnion('type', [
  ...contentParts,
  z.strictObject({
    type: z.literal('tool-call'),
    id: toolCallIdSchema,
    name: z.string().min(1),
    input: jsonObject,
    signature: z.string().optional(),
    provider: z.string().optional(),
    incomplete,
    metadata,
  }),
  z.strictObject({
    type: z.literal('tool-result'),
    callId: toolCallIdSchema,
    name: z.string().optional(),
    output: z.discriminatedUnion('type', [
      z.strictObject({ type: z.literal('text'), text: z.string() }),
      z.strictObject({ type: z.literal('json'), value: jsonValue }),
      z.strictObject({ type: z.literal('parts'), parts: resultParts }),
    ]),
    isError: z.boolean(),
    metadata,
  }),
]) as unknown as z.ZodType<Part>;

const item = z.strictObject({
  id: z.string().optional(),
  kind: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'context']),
  parts: z.array(part),
  metadata,
}) as z.ZodType<Item>;

/** The zod schema of a transcript, for composing into larger schemas. */
export const transcriptSchema: z.ZodType<Transcript> = z.array(item);

/** One problem found while validating input. */
export interface ValidationIssue {
  /** JSON path to the offending value, e.g. `[2].parts[0].input`. */
  path: string;
  message: string;
}

/** Result of {@link parseTranscript}. */
export type ParseResult<Value> = { ok: true; value: Value } | { ok: false; issues: ValidationIssue[] };

/** Formats a zod path as `[2].parts[0].input`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    text += typeof segment === 'number' ? `[${segment}]` : `.${String(segment)}`;
  }
  return text.startsWith('.') ? text.slice(1) : text || '(root)';
}

/**
 * Validates unknown JSON (a parsed value or a JSON string) as a transcript. On failure, lists every
 * bad path, not just the first. Never throws: circular values and nesting deeper than
 * `maxNestingDepth` are reported as issues.
 */
export function parseTranscript(input: unknown): ParseResult<Transcript> {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = parseJson(input);
    } catch (error) {
      return {
        ok: false,
        issues: [{ path: '(root)', message: `invalid JSON: ${(error as Error).message}` }],
      };
    }
  }
  return parseWithSchema(transcriptSchema, value);
}

/**
 * Runs `schema` over `value` after the stack-safe shape check; never throws (a failure inside zod,
 * such as a getter that throws, becomes an issue at the root).
 */
export function parseWithSchema<Value>(schema: z.ZodType<Value>, value: unknown): ParseResult<Value> {
  let result: ReturnType<z.ZodType<Value>['safeParse']>;
  try {
    const problem = findShapeProblem(value);
    if (problem !== undefined) {
      return { ok: false, issues: [{ path: formatPath(problem.path), message: problem.message }] };
    }
    result = schema.safeParse(value);
  } catch (error) {
    return { ok: false, issues: [{ path: '(root)', message: `unreadable value: ${describe(error)}` }] };
  }
  if (!result.success) {
    return {
      ok: false,
      issues: result.error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message })),
    };
  }
  return { ok: true, value: result.data };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

/**
 * Serializes a transcript to JSON losslessly: bytes become base64 text and metadata keys are
 * sorted, so equal transcripts always produce equal strings. `parseTranscript` reverses it.
 *
 * The transcript is validated first, so nothing is lost on the way (JSON.stringify would turn a
 * Date into text, a Map into `{}`, NaN into `null` and drop functions): an invalid one throws an
 * `InvalidRequestError` (code `invalid_transcript`) listing every bad path, never a `TypeError`.
 */
export function stringifyTranscript(transcript: Transcript, indent?: number): string {
  const checked = parseWithSchema(transcriptSchema, transcript);
  if (!checked.ok) {
    const listed = checked.issues.slice(0, 20).map((issue) => `${issue.path}: ${issue.message}`);
    if (checked.issues.length > 20) listed.push(`… and ${checked.issues.length - 20} more`);
    throw new InvalidRequestError({
      message: `stringifyTranscript: not a valid transcript: ${listed.join('; ')}`,
      providerCode: 'invalid_transcript',
      cause: { issues: checked.issues },
    });
  }
  // The validated copy is written, so a getter is read once and what was checked is what is written.
  return JSON.stringify(checked.value.map(itemToJson), undefined, indent);
}

/** Only the transcript's own `metadata` fields are sorted; user data (tool inputs…) is left alone. */
function itemToJson(item: Item): unknown {
  return withSortedMetadata({ ...item, parts: item.parts.map(partToJson) });
}

function partToJson(part: Part): unknown {
  if ((part.type === 'media' || part.type === 'file') && part.data.type === 'bytes') {
    return withSortedMetadata({
      ...part,
      data: { type: 'bytes', bytes: Buffer.from(part.data.bytes).toString('base64') },
    });
  }
  if (part.type === 'tool-result' && part.output.type === 'parts') {
    return withSortedMetadata({
      ...part,
      output: { type: 'parts', parts: part.output.parts.map(partToJson) },
    });
  }
  return withSortedMetadata(part);
}

function withSortedMetadata<Value extends { metadata?: unknown }>(value: Value): Value {
  const metadata = value.metadata;
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) return value;
  return { ...value, metadata: sortMetadata(metadata as MetadataMap) };
}
