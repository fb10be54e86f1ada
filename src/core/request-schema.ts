/** Boundary validation of a whole CanonicalRequest and its call options, with zod; never throws. */
import { z } from 'zod';
import type { CallOptions } from './adapter.ts';
import { isMetadataKey, type MetadataMap } from './metadata.ts';
import type { JsonObject } from './json.ts';
import { type CanonicalRequest, isEnumSchema } from './request.ts';
import { plainRequest } from './request-fast-path.ts';
import { checkTranscript } from './transcript-invariants.ts';
import {
  formatPath,
  jsonObjectSchema as jsonObject,
  jsonValueSchema as jsonValue,
  type ParseResult,
  parseWithSchema,
  transcriptSchema,
} from './transcript-schema.ts';

const toolSpec = z.strictObject({
  name: z.string().min(1, 'a tool needs a name'),
  description: z.string().optional(),
  inputSchema: jsonObject,
  outputSchema: jsonObject.optional(),
  freeform: z
    .discriminatedUnion('type', [
      z.strictObject({ type: z.literal('text') }),
      z.strictObject({
        type: z.literal('grammar'),
        syntax: z.enum(['lark', 'regex']),
        definition: z.string(),
      }),
    ])
    .optional(),
  strict: z.boolean().optional(),
});

/** Tool names must be unique: a provider answers a duplicate with a 400, and a call could not be routed. */
const uniqueNames = (tools: ReadonlyArray<{ name: string }>) =>
  new Set(tools.map((tool) => tool.name)).size === tools.length;
const duplicateNames = 'tool names must be unique';

/** The request's fields; the type check below keeps it in step with `CanonicalRequest`. */
const requestShape = {
  requestId: z.string().min(1).optional(),
  model: z.string().trim().min(1, 'model must be a non-empty string'),
  transcript: transcriptSchema,
  tools: z.array(toolSpec).refine(uniqueNames, duplicateNames).optional(),
  toolChoice: z
    .union([
      z.enum(['auto', 'none', 'required']),
      z.strictObject({ type: z.literal('tool'), name: z.string().min(1) }),
    ])
    .optional(),
  parallelToolCalls: z.boolean().optional(),
  maxOutputTokens: z
    .number({ error: 'maxOutputTokens must be a positive integer' })
    .int('maxOutputTokens must be a positive integer')
    .positive('maxOutputTokens must be a positive integer')
    .max(Number.MAX_SAFE_INTEGER),
  stopSequences: z.array(z.string()).optional(),
  temperature: z.number().min(0).max(2).optional(),
  topP: z.number().min(0).max(1).optional(),
  topK: z.number().int().positive().optional(),
  outputSchema: z
    .strictObject({
      name: z.string().optional(),
      description: z.string().optional(),
      schema: jsonObject,
      strict: z.boolean().optional(),
      format: z.enum(['json', 'enum']).optional(),
    })
    .refine((output) => output.format !== 'enum' || isEnumSchema(output.schema as JsonObject), {
      message: "format 'enum' needs a string enum schema ({type: 'string', enum: [...]})",
      path: ['schema'],
    })
    .optional(),
  verbosity: z.enum(['low', 'medium', 'high']).optional(),
  reasoning: z
    .strictObject({
      effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']).optional(),
      budgetTokens: z.number().int().nonnegative().optional(),
      includeThoughts: z.boolean().optional(),
      thinking: z.boolean().optional(),
    })
    .optional(),
  cache: z
    .strictObject({ ttl: z.enum(['5m', '1h']).optional(), key: z.string().min(1).optional() })
    .optional(),
  metadata: z
    .record(z.string().refine(isMetadataKey, 'metadata keys have the shape namespace.field'), jsonValue)
    .optional() as z.ZodType<MetadataMap | undefined>,
  providerOptions: z.record(z.string(), jsonObject).optional(),
};

// Adding a field to CanonicalRequest without validating it here fails the typecheck.
type MissingFromSchema = Exclude<keyof CanonicalRequest, keyof typeof requestShape>;
const schemaCoversRequest: [MissingFromSchema] extends [never] ? true : MissingFromSchema = true;
void schemaCoversRequest;

/** The zod schema of a whole `CanonicalRequest` (unknown fields rejected). */
export const requestSchema = z.strictObject(requestShape) as unknown as z.ZodType<CanonicalRequest>;

/** Longest model name the front door takes (the longest real ids, Bedrock ARNs, are ~200). */
export const maxModelNameLength = 512;

/**
 * A model name at the front door: an alias, `provider:name` or a bare name — never a glob (`*`
 * belongs to the config; a name with it would be sent to the provider as is), never control
 * characters, at most {@link maxModelNameLength} characters.
 */
// eslint-disable-next-line no-control-regex
const controlCharacter = /[\u0000-\u001f\u007f]/;
const modelNameRules: Array<[(name: string) => boolean, string]> = [
  [(name) => name.trim() !== '', 'model must be a non-empty string'],
  [(name) => name.length <= maxModelNameLength, `model is longer than ${maxModelNameLength} characters`],
  [(name) => !name.includes('*'), 'model cannot contain "*" (globs belong in the config)'],
  [(name) => !controlCharacter.test(name), 'model cannot contain control characters'],
];

/**
 * Whether a string passes {@link modelNameSchema} (the same rules, for the zod-free fast path). A
 * plain loop: destructuring each rule (`([rule]) =>`) ran the array iterator per rule, per call.
 */
export const isModelName = (name: string): boolean => {
  for (const entry of modelNameRules) if (!entry[0](name)) return false;
  return true;
};

export const modelNameSchema = modelNameRules.reduce<z.ZodType<string>>(
  (schema, [rule, message]) => schema.refine(rule, message),
  z.string({ error: 'model must be a string (an alias, provider:name or a bare model name)' }),
);

/**
 * The routed request (the front door's, once `output` is split off and `tool()` objects are reduced
 * to their specs): a `CanonicalRequest` with a model name instead of an id and `maxOutputTokens`
 * optional. Unknown fields rejected.
 */
export const routeRequestSchema = z.strictObject({
  ...requestShape,
  model: modelNameSchema,
  maxOutputTokens: requestShape.maxOutputTokens.optional(),
});

/**
 * Validates an untrusted request: its shape (every bad path listed), then the transcript's tool
 * pairing (every tool call answered by a later result, every result answering an earlier call,
 * ids unique and non-empty). Never throws.
 */
export function validateRequest(input: unknown): ParseResult<CanonicalRequest> {
  if (isValidated(input)) return { ok: true, value: input as CanonicalRequest };
  // The everyday request is checked without zod, to the same result (`request-fast-path.ts`).
  const plain = plainRequest(input);
  if (plain !== undefined) return withPairedTools({ ok: true, value: plain });
  return validateWith(requestSchema, input);
}

/** {@link validateRequest} for the front door's request ({@link routeRequestSchema}). Never throws. */
export function validateRouteRequest(input: unknown): ParseResult<z.infer<typeof routeRequestSchema>> {
  const plain = plainRequest(input, isModelName) as z.infer<typeof routeRequestSchema> | undefined;
  if (plain !== undefined) return withPairedTools({ ok: true, value: plain });
  return validateWith(routeRequestSchema, input);
}

/**
 * The mark of a request validated in this call: the front door's own copy of a request once it
 * passed, and the adapter request the router builds from it (its fields plus a request id, a
 * resolved model id and an output limit). The adapter boundary takes a marked request as it is, so
 * a routed call is validated once, not twice (`npm run bench:frontdoor` prints what one validation
 * costs: 3.3–3.4 µs for its one-message request here). A private symbol rather than a WeakSet:
 * setting a property is cheap, a WeakSet entry showed in the profile; nothing outside this module
 * can forge it.
 */
const validatedMark = Symbol('switchyard.validated');

/**
 * Marks `request` as validated. Only for objects the library created (never a caller's object: the
 * mark is a property) from a request this module validated.
 */
export function markValidated<Request extends object>(request: Request): Request {
  (request as Record<symbol, unknown>)[validatedMark] = true;
  return request;
}

/** Whether `request` carries the mark of {@link markValidated}. */
export function isValidated(request: unknown): boolean {
  return (
    typeof request === 'object' &&
    request !== null &&
    (request as Record<symbol, unknown>)[validatedMark] === true
  );
}

function validateWith<Value extends { transcript: CanonicalRequest['transcript'] }>(
  schema: z.ZodType<Value>,
  input: unknown,
): ParseResult<Value> {
  return withPairedTools(parseWithSchema(schema, input));
}

/** A parsed request, checked for the transcript's tool pairing. */
function withPairedTools<Value extends { transcript: CanonicalRequest['transcript'] }>(
  parsed: ParseResult<Value>,
): ParseResult<Value> {
  if (!parsed.ok) return parsed;
  const violations = checkTranscript(parsed.value.transcript);
  if (violations.length > 0) {
    return {
      ok: false,
      issues: violations.map((violation) => ({
        path: formatPath(['transcript', violation.itemIndex, 'parts', violation.partIndex]),
        message: violation.message,
      })),
    };
  }
  return parsed;
}

const isAbortSignal = (value: unknown): value is AbortSignal =>
  typeof AbortSignal !== 'undefined' && value instanceof AbortSignal;

const isSession = (value: unknown): value is NonNullable<CallOptions['session']> =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { id?: unknown }).id === 'string' &&
  (value as { state?: unknown }).state instanceof Map;
const isRetryGate = (value: unknown): value is NonNullable<CallOptions['retryGate']> =>
  typeof value === 'object' && value !== null && typeof (value as { allow?: unknown }).allow === 'function';
const isFunction = (value: unknown): value is NonNullable<CallOptions['onRetry']> =>
  typeof value === 'function';

/** The zod schema of call options (loose: other members pass). */
export const callOptionsSchema = z
  .object({
    signal: z.custom<AbortSignal>(isAbortSignal, 'signal must be an AbortSignal').optional(),
    session: z.custom(isSession, 'session must come from startSession() or createSession()').optional(),
    onRetry: z.custom(isFunction).optional(),
    allowFallback: z.custom(isFunction, 'allowFallback must be a function').optional(),
    retryGate: z.custom(isRetryGate, 'retryGate must have an allow function').optional(),
    headers: z.record(z.string(), z.string()).optional(),
  })
  .loose();

/**
 * The schema's checks by hand, for options without `headers` (the router's: signal, session,
 * retry hooks): true when zod would accept `input`; false leaves it to zod, which names the issues.
 * The schema is loose and its value is `input` itself, so accepting is all there is to match.
 */
function plainCallOptions(input: unknown): boolean {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return false;
  const options = input as Record<string, unknown>;
  try {
    return (
      options.headers === undefined &&
      (options.signal === undefined || isAbortSignal(options.signal)) &&
      (options.session === undefined || isSession(options.session)) &&
      (options.onRetry === undefined || isFunction(options.onRetry)) &&
      (options.retryGate === undefined || isRetryGate(options.retryGate))
    );
  } catch {
    return false;
  }
}

/** Validates per-call options (`undefined` means none). Never throws. */
export function validateCallOptions(input: unknown): ParseResult<CallOptions> {
  if (input === undefined) return { ok: true, value: {} };
  if (plainCallOptions(input)) return { ok: true, value: input as CallOptions };
  const result = callOptionsSchema.safeParse(input);
  if (result.success) return { ok: true, value: input as CallOptions };
  return {
    ok: false,
    issues: result.error.issues.map((issue) => ({
      path: `options.${formatPath(issue.path)}`.replace('.(root)', ''),
      message: issue.message,
    })),
  };
}

const tokenEstimateSchema = z.strictObject({
  transcript: transcriptSchema,
  tools: requestShape.tools,
  model: z.string().optional(),
  stopAbove: z.number().optional(),
  exactCharacters: z.number().optional(),
});

/** Validates the input of `estimateInputTokens` (`{ transcript, tools?, model?, stopAbove?, exactCharacters? }`). Never throws. */
export function validateTokenEstimateInput(input: unknown): ParseResult<z.infer<typeof tokenEstimateSchema>> {
  return parseWithSchema(tokenEstimateSchema, input);
}
