/**
 * The configuration: `adapters:` and `models:` in the shape of the contract (§8.1), plus `pricing:`
 * and `routing:`. Accepted as an object or YAML text; errors name the key and, for YAML, the line.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { z } from 'zod';
import { capabilityOverridesSchema } from '../core/capabilities-schema.ts';
import { API_KEY_PATTERNS } from '../core/redaction.ts';
import { findShapeProblem } from '../core/value-shape.ts';
import { priceFields, type PriceField } from '../pricing/types.ts';
import { maxTimerMs } from '../core/timer-limit.ts';

const rate = z.union([
  z.number().nonnegative(),
  z
    .object({
      base: z.number().nonnegative(),
      tiers: z.array(z.object({ start: z.number().nonnegative(), price: z.number().nonnegative() }).strict()),
    })
    .strict(),
]);

/** A model's prices: every field of `priceFields` optional, nothing else. */
const modelPrices = z
  .object(Object.fromEntries(priceFields.map((field) => [field, rate])) as Record<PriceField, typeof rate>)
  .partial()
  .strict();

/**
 * Whether a value given where an environment variable's name belongs looks like a secret instead
 * (a key pasted into `api_key_env`): a provider key shape, or a long mix of lower case, upper case
 * and digits that no one names a variable with.
 */
function looksLikeSecret(value: string): boolean {
  if (API_KEY_PATTERNS.some((pattern) => pattern.test(value))) return true;
  return value.length >= 24 && /[a-z]/.test(value) && /[A-Z]/.test(value) && /[0-9]/.test(value);
}

/** `api_key_env`: a variable name. The value is never echoed (it may be a key pasted by mistake). */
const variableName = z.string().superRefine((value, context) => {
  if (looksLikeSecret(value)) {
    context.addIssue({
      code: 'custom',
      message:
        'expected the NAME of an environment variable, but the value looks like an API key (not shown): put the key in the environment and name the variable here',
    });
  } else if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) {
    context.addIssue({
      code: 'custom',
      message:
        'expected an environment variable name (letters, digits and _, not starting with a digit; value not shown)',
    });
  }
});

/** `base_url`: an http(s) URL without credentials (they would be printed with every URL). */
const baseUrl = z.string().superRefine((value, context) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    context.addIssue({ code: 'custom', message: 'expected a URL (http:// or https://)' });
    return;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    context.addIssue({
      code: 'custom',
      message: `expected an http:// or https:// URL, got ${url.protocol}//`,
    });
  } else if (url.username !== '' || url.password !== '') {
    context.addIssue({
      code: 'custom',
      message: 'must not hold credentials (user:password@, not shown): send them with `headers` instead',
    });
  }
});

/** The longest `timeout_seconds` a timer can wait. */
export const maxTimeoutSeconds = Math.floor(maxTimerMs / 1000);

const timeoutSeconds = z
  .number()
  .positive()
  .max(maxTimeoutSeconds, `at most ${maxTimeoutSeconds} (about 24.8 days: what a timer can wait)`);

/**
 * Extra HTTP headers: names of the HTTP token grammar, values of Latin-1 without CR, LF or NUL — fetch refuses
 * anything else on every call (a retryable network error, counted against the circuit), so it is
 * refused here, at creation.
 */
const headersSchema = z.record(
  z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "a header name is letters, digits and !#$%&'*+.^_`|~-"),
  z
    .string()
    .regex(/^[^\r\n\0\u0100-\uffff]*$/, 'a header value has no CR, LF, NUL or character above U+00FF'),
);

/**
 * Connections per origin of an adapter's pool: an adapter's `options.maxConnections`,
 * `createSwitchyard({ maxConnections })`, `gateway.upstream_connections`. Checked at creation: a
 * value undici refuses would otherwise fail every call as a network error.
 */
export const connectionCount = z.number().int().min(1).max(65_536);

const adapterSchema = z
  .object({
    type: z.string().min(1),
    preset: z.string().min(1).optional(),
    api_key_env: variableName.optional(),
    api_key: z.string().min(1).optional(),
    base_url: baseUrl.optional(),
    // A Node timer waits at most 2^31-1 ms: a longer timeout is a config mistake, said here rather
    // than clamped silently by the transport.
    timeout_seconds: timeoutSeconds.optional(),
    first_byte_timeout_seconds: timeoutSeconds.optional(),
    max_retries: z.number().int().min(0).max(10).optional(),
    headers: headersSchema.optional(),
    quirks: z.record(z.string(), z.unknown()).optional(),
    // Passed to the adapter as given; the pool's size is checked here, once for every adapter type.
    options: z.looseObject({ maxConnections: connectionCount.optional() }).optional(),
  })
  .strict();

const modelId = z.string().regex(/^[^:\s]+:\S+$/, 'a canonical model id `provider:name`');

const modelSchema = z
  .object({
    adapter: z.string().min(1).optional(),
    wire_name: z.string().min(1).optional(),
    tier: z.string().min(1).optional(),
    can_delegate: z.boolean().optional(),
    aliases: z.array(z.string().min(1)).optional(),
    fallbacks: z.array(z.string().min(1)).optional(),
    capabilities: capabilityOverridesSchema.optional(),
    pricing: modelPrices.optional(),
  })
  .strict();

const routingSchema = z
  .object({
    failure_threshold: z.number().int().positive(),
    cooldown_seconds: z.number().positive(),
    long_retry_after_seconds: z.number().positive(),
    max_open_seconds: z.number().positive(),
  })
  .partial()
  .strict();

/** An MCP server whose tools the chat offers (`switchyard chat`): a stdio command or a streamable HTTP URL. */
const mcpServerSchema = z.union([
  z
    .object({
      command: z.string().min(1),
      args: z.array(z.string()).optional(),
      env: z.record(z.string(), z.string()).optional(),
      cwd: z.string().min(1).optional(),
    })
    .strict(),
  z.object({ url: z.url(), headers: headersSchema.optional() }).strict(),
]);

/** The schema of a Switchyard configuration. */
export const configSchema = z
  .object({
    /** Adapter instances by name (the `provider` half of model ids). */
    adapters: z.record(z.string().regex(/^[^:\s]+$/, 'no spaces or colons'), adapterSchema).optional(),
    /** Models by canonical id or glob (`openai:gpt-*`). */
    models: z.record(modelId, modelSchema.nullable()).optional(),
    /** Price overrides by canonical id or glob, USD per million tokens (`web_searches_kcount`: per 1,000 searches). */
    pricing: z.record(z.string(), modelPrices).optional(),
    routing: routingSchema.optional(),
    /** `false`: do not add the bundled providers and models (default true). */
    builtins: z.boolean().optional(),
    /** MCP servers by name, whose tools `switchyard chat` offers (ignored by the front door itself). */
    mcp_servers: z
      .record(z.string().regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and -'), mcpServerSchema)
      .optional(),
  })
  .strict();

/** A configuration (the object form of the YAML file). */
export type SwitchyardConfig = z.input<typeof configSchema>;
/** One `adapters:` entry. */
export type AdapterConfig = z.infer<typeof adapterSchema>;
/** One `mcp_servers:` entry. */
export type McpServerEntry = z.infer<typeof mcpServerSchema>;
/** One `models:` entry. */
export type ModelConfig = z.infer<typeof modelSchema>;

/** One problem in a configuration. */
export interface ConfigIssue {
  /** The key path, e.g. `models.anthropic:claude-x.tier`. */
  path: string;
  message: string;
  /** 1-based line in the YAML source, when parsed from text. */
  line?: number;
}

/** A configuration that cannot be used; `issues` names every problem with its key (and line). */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly issues: ConfigIssue[];
  constructor(source: string, issues: ConfigIssue[]) {
    const lines = issues.map(
      (issue) => `  ${issue.line === undefined ? '' : `line ${issue.line}: `}${issue.path}: ${issue.message}`,
    );
    super(`invalid Switchyard config${source === '' ? '' : ` (${source})`}:\n${lines.join('\n')}`);
    this.issues = issues;
  }
}

type ParsedConfig = z.infer<typeof configSchema>;

/** Validates a configuration object. Throws a {@link ConfigError} naming every invalid key. */
export function parseConfig(config: unknown, source = ''): ParsedConfig {
  const problem = shapeIssue(config);
  if (problem !== undefined) throw new ConfigError(source, [problem.issue]);
  const result = configSchema.safeParse(config ?? {});
  if (result.success) return result.data;
  throw new ConfigError(
    source,
    result.error.issues.map((issue) => ({ path: issuePath(issue), message: issue.message })),
  );
}

/**
 * A cycle, absurd nesting or an own `__proto__` key (zod's records skip that key silently, and
 * YAML and JSON make one): refused with its path before the schema runs.
 */
function shapeIssue(value: unknown): { issue: ConfigIssue; path: PropertyKey[] } | undefined {
  const problem = findShapeProblem(value);
  if (problem === undefined) return undefined;
  return {
    issue: { path: problem.path.map(String).join('.') || '(root)', message: problem.message },
    path: problem.path,
  };
}

function issuePath(issue: z.core.$ZodIssue): string {
  const keys = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys.join(', ')] : issue.path;
  return keys.map(String).join('.') || '(root)';
}

type Yaml = typeof import('yaml');
let yaml: Yaml | undefined;

/** The `yaml` package, loaded on the first YAML text (72 modules: a process given no config file never pays for them). */
function loadYaml(): Yaml {
  return (yaml ??= createRequire(import.meta.url)('yaml') as Yaml);
}

/**
 * Parses YAML text and validates it. Syntax errors and invalid values throw a {@link ConfigError}
 * whose issues carry the 1-based line of the offending key.
 */
export function parseConfigYaml(text: string, source = 'config'): ParsedConfig {
  const { LineCounter, parseDocument } = loadYaml();
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  if (document.errors.length > 0) {
    throw new ConfigError(
      source,
      document.errors.map((error) => ({
        path: '(yaml)',
        message: error.message.split('\n')[0] ?? error.message,
        line: lineCounter.linePos(error.pos[0]).line,
      })),
    );
  }
  let value: unknown;
  try {
    value = document.toJS();
  } catch (error) {
    // The yaml library refuses an alias bomb ("Excessive alias count …") while building the value.
    const message = error instanceof Error ? error.message : String(error);
    throw new ConfigError(source, [{ path: '(yaml)', message: message.split('\n')[0] ?? message }]);
  }
  const problem = shapeIssue(value);
  if (problem !== undefined) {
    const offset = locate(document.contents, problem.path, []);
    throw new ConfigError(source, [
      offset === undefined ? problem.issue : { ...problem.issue, line: lineCounter.linePos(offset).line },
    ]);
  }
  const result = configSchema.safeParse(value ?? {});
  if (result.success) return result.data;
  throw new ConfigError(
    source,
    result.error.issues.map((issue) => {
      const offset = locate(
        document.contents,
        issue.path,
        issue.code === 'unrecognized_keys' ? issue.keys : [],
      );
      const located: ConfigIssue = { path: issuePath(issue), message: issue.message };
      if (offset !== undefined) located.line = lineCounter.linePos(offset).line;
      return located;
    }),
  );
}

/** The source offset of the deepest node along `path` (the key itself for unknown keys). */
function locate(
  root: unknown,
  path: readonly PropertyKey[],
  unknownKeys: readonly string[],
): number | undefined {
  const { isMap, isScalar, isSeq } = loadYaml();
  let node = root;
  let offset: number | undefined;
  const keys = [...path, ...unknownKeys.slice(0, 1)];
  for (const key of keys) {
    if (isSeq(node) && typeof key === 'number') {
      node = node.items[key];
      const range = (node as { range?: [number, number, number] } | undefined)?.range;
      if (range !== undefined) offset = range[0];
      continue;
    }
    if (!isMap(node)) break;
    const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(key));
    if (pair === undefined) break;
    if (isScalar(pair.key)) offset = pair.key.range?.[0] ?? offset;
    node = pair.value;
  }
  if (offset === undefined && isMap(root)) offset = root.range?.[0];
  return offset;
}

/** Reads and validates a YAML (or JSON) config file. */
export function loadConfigFile(path: string): ParsedConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(path, [{ path: '(file)', message: (error as Error).message }]);
  }
  return parseConfigYaml(text, path);
}
