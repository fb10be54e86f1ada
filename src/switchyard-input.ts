/**
 * The front door's input checks: `createSwitchyard` options at creation, and each request and its
 * call options before routing. Bad input becomes one `InvalidRequestError` listing every bad path.
 */
import { usageSchema } from './core/usage-schema.ts';
import { z } from 'zod';
import type { CallOptions } from './core/adapter.ts';
import type { InvalidRequestError } from './core/errors/invalid-request-error.ts';
import { checkOptions, invalidInput } from './core/input-check.ts';
import type { OutputSchema } from './core/request.ts';
import {
  isModelName,
  markValidated,
  modelNameSchema,
  routeRequestSchema,
  validateCallOptions,
  validateRouteRequest,
} from './core/request-schema.ts';
import { plainToolSpec, type ToolSpec } from './core/tools.ts';
import {
  formatPath,
  parseWithSchema,
  transcriptSchema,
  type ValidationIssue,
} from './core/transcript-schema.ts';
import type {
  ConversationRestoreOptions,
  ConversationSettings,
  ConversationSnapshot,
} from './conversation/conversation.ts';
import type { RouteRequest } from './routing/router.ts';
import type { SchemaLike } from './schemas/schema.ts';
import { toOutputSchema } from './schemas/structured.ts';
import { isJsonObject } from './core/json.ts';
import { connectionCount } from './registry/config.ts';
import { pushAll } from './core/arrays.ts';

const method = (value: unknown, name: string) => isJsonObject(value) && typeof value[name] === 'function';
const fn = (message: string) =>
  z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', message);

/** A request to the front door: a model name, and optionally an output schema (zod, Standard Schema or JSON Schema). */
export interface SwitchyardRequest extends RouteRequest {
  /** The reply must be JSON matching this schema; it arrives validated as `reply.structured`. */
  output?: SchemaLike;
}

/** `createSwitchyard` options: unknown keys and mistyped values fail at creation, naming the option. */
const optionsSchema = z.strictObject({
  config: z
    .custom<object>(
      (value) => (typeof value === 'string' && value.trim() !== '') || isJsonObject(value),
      'config must be a path to a YAML/JSON file or a config object',
    )
    .optional(),
  // `process.env` is not a plain object (zod's `record` refuses it): its entries are checked on a
  // copy (the caller's own object is what the client keeps).
  env: z
    .preprocess(
      (value) => (isJsonObject(value) ? { ...value } : value),
      z.record(z.string(), z.string().optional(), { error: 'env must map variable names to strings' }),
    )
    .optional(),
  fetch: fn('fetch must be a function (a fetch implementation)').optional(),
  maxConnections: z
    .custom<number>(
      (value) => connectionCount.safeParse(value).success,
      'maxConnections must be a whole number from 1 to 65536',
    )
    .optional(),
  logger: z
    .custom<object>(
      (value) =>
        method(value, 'warn') &&
        ((value as { debug?: unknown }).debug === undefined || method(value, 'debug')),
      'logger must have a warn(message, fields) method (and optionally debug)',
    )
    .optional(),
  observers: z
    .array(
      z.custom<object>((value) => method(value, 'onEvent'), 'an observer must have an onEvent(event) method'),
      {
        error: 'observers must be an array',
      },
    )
    .optional(),
  stateStore: z
    .custom<object>(
      (value) => method(value, 'get') && method(value, 'transition'),
      'stateStore must have get(key) and transition(key, operation) methods (an AvailabilityStore)',
    )
    .optional(),
  now: fn('now must be a function returning milliseconds since the epoch').optional(),
  providerTypes: z
    .instanceof(Map, {
      error: 'providerTypes must be a provider-type table (a Map, see createProviderTypeTable)',
    })
    .optional(),
  prices: z
    .custom<object>(
      (value) => method(value, 'lookup') && typeof (value as { version?: unknown }).version === 'string',
      'prices must be a price table (see createPriceTable)',
    )
    .optional(),
});

/** Validates `createSwitchyard` options; throws an `InvalidRequestError` (`invalid_options`) naming each bad one. */
export function checkSwitchyardOptions<Options extends object>(options: unknown): Options {
  return checkOptions(optionsSchema, options ?? undefined, 'createSwitchyard', 'options') as Options;
}

/** A front-door request made ready for the router, or the error that rejects it. */
export type PreparedRequest =
  | {
      ok: true;
      request: RouteRequest;
      options: CallOptions;
      output?: SchemaLike;
      outputSchema?: OutputSchema;
    }
  | { ok: false; error: InvalidRequestError; model?: string };

/**
 * Checks a front-door request and its call options and splits `output` off (converted to the
 * canonical output schema) and `tool()` objects down to their specs. Never throws: a request that
 * cannot even be read (a Proxy or getter that throws) is reported at the root. The caller's objects
 * are never mutated. The usual request (no `output`, valid) costs one copy and the result.
 */
export function prepareRequest(input: unknown, callOptions: unknown): PreparedRequest {
  let issues: ValidationIssue[] | undefined;
  let request: RouteRequest | undefined;
  let output: SchemaLike | undefined;
  let outputSchema: OutputSchema | undefined;
  try {
    if (!isJsonObject(input)) {
      issues = [{ path: '(root)', message: 'the request must be an object { model, transcript, … }' }];
    } else {
      // A plain spread when it has no own `output` (the usual case): an object rest with an
      // excluded key takes V8's slow runtime path on every call.
      let rest: RouteRequest;
      if (Object.hasOwn(input, 'output')) {
        ({ output, ...rest } = input as unknown as SwitchyardRequest);
      } else {
        output = (input as unknown as SwitchyardRequest).output;
        rest = { ...(input as unknown as RouteRequest) };
      }
      if (Array.isArray(rest.tools))
        rest.tools = rest.tools.map((tool) => (isJsonObject(tool) ? toToolSpec(tool) : tool));
      request = rest;
      if (output !== undefined && !isJsonObject(output) && typeof output !== 'function') {
        issues = [
          {
            path: 'output',
            message: 'output must be a zod schema, a Standard Schema or a JSON Schema object',
          },
        ];
      } else if (output !== undefined) {
        try {
          outputSchema = toOutputSchema(output);
          request = { ...rest, outputSchema };
        } catch (error) {
          issues = [
            { path: 'output', message: `not a usable schema: ${(error as Error)?.message ?? String(error)}` },
          ];
        }
      }
      const checked = validateRouteRequest(request);
      // The output schema is the caller's `output`: its problems are reported there.
      if (!checked.ok)
        (issues ??= []).push(
          ...checked.issues.map((issue) => ({
            ...issue,
            path: issue.path.replace(/^outputSchema(\.schema)?/, 'output'),
          })),
        );
    }
  } catch (error) {
    (issues ??= []).push({
      path: '(root)',
      message: `unreadable value: ${(error as Error)?.name ?? typeof error}`,
    });
  }
  const options = validateCallOptions(callOptions);
  if (!options.ok) pushAll((issues ??= []), options.issues);
  if (issues !== undefined || request === undefined || !options.ok) {
    const model = typeof request?.model === 'string' ? request.model.slice(0, 512) : undefined;
    return { ok: false, error: invalidInput('switchyard: invalid request', issues ?? []), model };
  }
  // `request` is this function's own copy: marked, the adapter does not validate it again.
  return { ok: true, request: markValidated(request), options: options.value, output, outputSchema };
}

const specs = new WeakMap<object, ToolSpec>();

/** The plain spec of a tool (a schema-backed `tool()` carries its schema and parser too); built once per tool. */
function toToolSpec(tool: Record<string, unknown>): ToolSpec {
  let spec = specs.get(tool);
  if (spec === undefined) {
    spec = plainToolSpec(tool as unknown as ToolSpec);
    specs.set(tool, spec);
  }
  return spec;
}

/** Conversation settings: the model is checked at creation; the other request fields on each send. */
const settingsSchema = z.looseObject({
  model: modelNameSchema,
  system: z.string({ error: 'system must be a string' }).optional(),
});

/**
 * Validates `sy.conversation(settings)`; throws an `InvalidRequestError` (`invalid_options`) naming
 * every bad setting: a key a conversation does not keep (`sytem`), and a request field each send
 * would refuse (`tools: 'x'`), checked here as a send checks it, so a typo fails at creation rather
 * than at the first turn, and what `toJSON()` writes `fromJSON` takes back.
 */
export function checkConversationSettings(settings: unknown): ConversationSettings {
  const checked = checkOptions(snapshotSettingsSchema(true, true), settings, 'sy.conversation', 'settings');
  const issues = requestFieldIssues(checked as ConversationSettings, 'settings');
  if (issues !== undefined) throw invalidInput('sy.conversation', issues, 'invalid_options');
  return checked as ConversationSettings;
}

/** What each send would refuse in a conversation's settings (`prefix.field`), or undefined. */
function requestFieldIssues(settings: ConversationSettings, prefix: string): ValidationIssue[] | undefined {
  const { system: _system, ...fields } = settings;
  const prepared = prepareRequest({ ...fields, transcript: [] }, undefined);
  if (prepared.ok) return undefined;
  const { issues } = prepared.error.cause as { issues: ValidationIssue[] };
  return issues.map((issue) => ({
    path: `${prefix}.${issue.path}`.replace('.[', '['),
    message: issue.message,
  }));
}

/** The settings a snapshot may hold: a conversation's request fields (checked on each send) and `system`. */
const snapshotSettingKeys = new Set(
  Object.keys(routeRequestSchema.shape)
    .filter((key) => !['transcript', 'requestId', 'providerOptions'].includes(key))
    .concat('system'),
);

/**
 * A snapshot's settings: no key a conversation does not keep, and no `providerOptions` unless the
 * caller gives its own (`explicit`), which replace them. A snapshot is data from anywhere (a file, a
 * client); provider options reach the provider's request as written.
 */
function snapshotSettingsSchema(explicit: boolean, created = false) {
  return settingsSchema.superRefine((settings, context) => {
    for (const key of Object.keys(settings)) {
      // A new conversation's `output` (a schema: code, never in a snapshot), checked with the rest.
      if (key === 'output' && created) continue;
      if (key === 'providerOptions' && !explicit)
        context.addIssue({
          code: 'custom',
          path: [key],
          message:
            "provider options are not restored from a snapshot (they reach the provider's request as written): pass them as fromJSON(snapshot, { providerOptions })",
        });
      else if (key !== 'providerOptions' && !snapshotSettingKeys.has(key))
        context.addIssue({ code: 'custom', path: [key], message: 'not a conversation setting' });
    }
  });
}

const snapshotSchema = (explicit: boolean) =>
  z.looseObject({
    version: z.literal(1, { error: 'version must be 1' }),
    settings: snapshotSettingsSchema(explicit),
    transcript: transcriptSchema,
    usage: usageSchema,
    turns: z.number().int().nonnegative(),
    session: z.looseObject({
      id: z.string(),
      toolIds: z.array(z.tuple([z.string(), z.string(), z.string()])),
      state: z.array(z.tuple([z.string(), z.unknown()])),
    }),
  });
const snapshotSchemas = { saved: snapshotSchema(false), explicit: snapshotSchema(true) };

const restoreOptionsSchema = z.strictObject({
  providerOptions: z
    .record(z.string(), z.record(z.string(), z.unknown()), {
      error: 'providerOptions must be an object of objects keyed by adapter name',
    })
    .optional(),
  output: z
    .custom<SchemaLike>((value) => isJsonObject(value) || typeof value === 'function', {
      error: 'output must be a zod schema, a Standard Schema or a JSON Schema object',
    })
    .optional(),
});

/** Validates `fromJSON`'s options; throws an `InvalidRequestError` (`invalid_options`). */
export function checkRestoreOptions(options: unknown): ConversationRestoreOptions {
  return checkOptions(
    restoreOptionsSchema,
    options,
    'sy.conversation.fromJSON',
    'options',
  ) as ConversationRestoreOptions;
}

/**
 * Validates a saved conversation for `sy.conversation.fromJSON`; returns a copy, so the restored
 * conversation never appends to the caller's snapshot. Its settings may not hold `providerOptions`
 * unless the caller passes its own (`options.providerOptions`), which then replace them. Throws an
 * `InvalidRequestError` (`invalid_options`).
 */
export function checkSnapshot(
  snapshot: unknown,
  options: ConversationRestoreOptions = {},
): ConversationSnapshot {
  let issues: ValidationIssue[];
  try {
    const explicit = Object.hasOwn(options, 'providerOptions');
    const parsed = snapshotSchemas[explicit ? 'explicit' : 'saved'].safeParse(snapshot);
    if (parsed.success) {
      const restored = parsed.data as unknown as ConversationSnapshot;
      const { providerOptions: _saved, ...saved } = restored.settings as ConversationSettings;
      const { providerOptions, output } = options;
      const settings: ConversationSettings = { ...saved };
      if (providerOptions !== undefined) settings.providerOptions = providerOptions;
      if (output !== undefined) settings.output = output;
      // The settings' request fields as each send checks them (a snapshot is data from anywhere).
      const fieldIssues = requestFieldIssues(settings, 'snapshot.settings');
      if (fieldIssues === undefined) return { ...restored, settings } as ConversationSnapshot;
      issues = fieldIssues;
    } else {
      issues = parsed.error.issues.map((issue) => ({
        path: issue.path.length === 0 ? 'snapshot' : `snapshot.${formatPath(issue.path)}`.replace('.[', '['),
        message: issue.message,
      }));
    }
  } catch (error) {
    issues = [{ path: 'snapshot', message: `unreadable value: ${(error as Error)?.name ?? typeof error}` }];
  }
  throw invalidInput('sy.conversation.fromJSON', issues, 'invalid_options');
}

/** A name for `sy.resolve`: the front door's model-name rules; throws an `InvalidRequestError` naming the problem. */
export function checkModelName(name: unknown): string {
  // The same rules as the schema, without zod on the everyday path (zod names the problem otherwise).
  if (typeof name === 'string' && isModelName(name)) return name;
  const parsed = parseWithSchema(modelNameSchema, name);
  if (parsed.ok) return parsed.value;
  throw invalidInput(
    'sy.resolve: invalid model name',
    parsed.issues.map((issue) => ({ ...issue, path: 'name' })),
  );
}
