/**
 * The gateway's configuration: the `gateway:` section of the Switchyard config file (keys, limits,
 * state lifetime, shutdown grace). The rest of the file configures the front door as usual.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { connectionCount, type SwitchyardConfig } from '../registry/config.ts';

const keySchema = z
  .object({
    /** Shown in logs and metrics, never the key. */
    name: z.string().min(1),
    /** The environment variable holding the key. */
    key_env: z.string().min(1).optional(),
    /** The key's SHA-256 digest, `sha256:<64 hex>` (keeps the key itself out of the config). */
    key: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/, 'a digest `sha256:<64 lower-case hex>`')
      .optional(),
    /** Model names or globs this key may use (default: every model). */
    models: z.array(z.string().min(1)).optional(),
    /** Requests and tokens per minute, shared by every instance (see docs/gateway.md "Scaling out"). */
    limits: z
      .object({
        requests_per_minute: z.number().positive().optional(),
        tokens_per_minute: z.number().positive().optional(),
      })
      .strict()
      .optional(),
    /** Spend per UTC day and month, USD. */
    budget: z
      .object({
        usd_per_day: z.number().nonnegative().optional(),
        usd_per_month: z.number().nonnegative().optional(),
      })
      .strict()
      .optional(),
    /** May read other keys' usage (`GET /switchyard/v1/keys/{name}/usage`). Default false. */
    admin: z.boolean().optional(),
    /**
     * The most requests of this key in flight at once on one gateway instance (streams included);
     * more get a 429 with `retry-after`. Default: no bound.
     */
    max_in_flight: z.number().int().positive().optional(),
    /**
     * The most WebSockets (`/switchyard/v1/ws`) this key may hold open at once on one gateway
     * instance; an upgrade past it is refused with a 429 with `retry-after`, before it opens.
     * Default 256 (`defaultMaxWebsockets`).
     */
    max_websockets: z.number().int().positive().optional(),
  })
  .strict()
  .refine((key) => (key.key_env === undefined) !== (key.key === undefined), 'exactly one of key_env or key');

/**
 * Two entries with one name would be one tenant (its usage, limits and stored replies are kept by
 * name), and one secret under two names lets whoever holds it act as either: both are config errors
 * naming the entries. (Two variables holding the same value are caught when they are read: `loadKeys`.)
 */
function distinctKeys(keys: ReadonlyArray<z.infer<typeof keySchema>>, context: z.RefinementCtx): void {
  const seen = {
    name: new Map<string, number>(),
    key_env: new Map<string, number>(),
    key: new Map<string, number>(),
  };
  keys.forEach((key, index) => {
    for (const field of ['name', 'key_env', 'key'] as const) {
      const value = key[field];
      if (value === undefined) continue;
      const first = seen[field].get(value);
      if (first === undefined) {
        seen[field].set(value, index);
        continue;
      }
      const what =
        field === 'name'
          ? `the name '${value}' is taken by gateway.keys.${first}: each key needs a name of its own`
          : `the same ${field === 'key' ? 'digest' : `variable ${value}`} as gateway.keys.${first} ('${keys[first]!.name}'): one secret configured under two names`;
      context.addIssue({ code: 'custom', path: [index, field], message: what });
    }
  });
}

/** `body_limit_bytes` when the config does not say: 32 MiB. */
export const defaultBodyLimit = 32 * 1024 * 1024;

/**
 * A key's share of the held body bytes below the body limit would refuse that key, every time, a
 * body the limit lets in (each refusal a 429 saying to try again): a config error instead.
 */
function shareFitsBodies(
  gateway: { body_limit_bytes?: number; max_request_bytes_in_flight_per_key?: number },
  context: z.RefinementCtx,
): void {
  const bodyLimit = gateway.body_limit_bytes ?? defaultBodyLimit;
  const share = gateway.max_request_bytes_in_flight_per_key;
  if (share !== undefined && share < bodyLimit)
    context.addIssue({
      code: 'custom',
      path: ['max_request_bytes_in_flight_per_key'],
      message: `max_request_bytes_in_flight_per_key (${share}) is below body_limit_bytes (${bodyLimit}): a key's body between the two could never be served`,
    });
}

/**
 * A key's bound on stored values below the body limit would never store the conversation of a
 * request the limit lets in: a config error instead.
 */
function storedFitsBodies(
  gateway: { body_limit_bytes?: number; state_max_bytes_per_key?: number },
  context: z.RefinementCtx,
): void {
  const bodyLimit = gateway.body_limit_bytes ?? defaultBodyLimit;
  const bound = gateway.state_max_bytes_per_key;
  if (bound !== undefined && bound < bodyLimit)
    context.addIssue({
      code: 'custom',
      path: ['state_max_bytes_per_key'],
      message: `state_max_bytes_per_key (${bound}) is below body_limit_bytes (${bodyLimit}): a conversation the body limit lets in could never be stored`,
    });
}

/** The `gateway:` section. */
export const gatewayConfigSchema = z
  .object({
    keys: z.array(keySchema).superRefine(distinctKeys).optional(),
    /** Where shared state lives: `memory` (default, one process) or a `redis://` URL (any number of instances). */
    state: z
      .string()
      .regex(/^(memory|(redis|rediss|valkey|valkeys)(\+cluster)?:\/\/.+)$/, "'memory' or a redis:// URL")
      .optional(),
    /** A state call slower than this counts as a failure. Default 50. */
    state_timeout_ms: z.number().int().positive().max(60_000).optional(),
    /** When the shared state fails: `open` serves from local state (default), `closed` refuses with 503. */
    on_state_failure: z.enum(['open', 'closed']).optional(),
    /** Request bodies above this are refused with 413. Default 32 MiB. */
    body_limit_bytes: z.number().int().positive().optional(),
    /**
     * The longest a request body may go without a byte (as nginx's `client_body_timeout`): past it,
     * a 408 in the route's shape and the connection closes. Default 60.
     */
    body_timeout_seconds: z.number().positive().max(3600).optional(),
    /**
     * The longest a request body may take from its first read to its last byte, however steadily
     * it comes: past it, a 408 in the route's shape and the connection closes. Default 300.
     */
    body_deadline_seconds: z.number().positive().max(86_400).optional(),
    /**
     * The longest a request may take to arrive, headers and body (Node's `requestTimeout`; its
     * headers have the lesser of 60 s and this): past it, a 408 and the connection closes. A
     * request pipelined behind another is counted from its turn, not from its first byte. Default
     * `body_deadline_seconds` + `body_timeout_seconds` + 60 (420 s): a backstop behind those two.
     */
    request_timeout_seconds: z.number().positive().max(3600).optional(),
    /**
     * The longest a client may take nothing of its reply, streamed or whole (as nginx's
     * `send_timeout`): past it the client is cut off (logged 499) and a stream's upstream call
     * cancelled. Default 60.
     */
    send_timeout_seconds: z.number().positive().max(3600).optional(),
    /**
     * The most request body bytes the requests in flight may hold (bodies over 64 KiB count; past
     * it such a request is a 503 with `retry-after`). Default 4 × `body_limit_bytes` (128 MiB).
     */
    max_request_bytes_in_flight: z.number().int().positive().optional(),
    /**
     * With more than one key: the most of `max_request_bytes_in_flight` one key's requests may hold
     * (past it such a request is that key's 429 with `retry-after`). Default half the bound, and
     * never less than `body_limit_bytes` (when the bound allows it).
     */
    max_request_bytes_in_flight_per_key: z.number().int().positive().optional(),
    /**
     * Connections per origin of each adapter's own pool (each call in flight holds one; more wait
     * for one), unless the adapter's `options.maxConnections` says; for the front door the gateway
     * creates (not one passed as `switchyard`). Default 1,024: a gateway's concurrent calls are its
     * clients', not a library's 64.
     */
    upstream_connections: connectionCount.optional(),
    /**
     * URI schemes a client's media and files may use beyond http, https and data (e.g. `s3`, `gs`:
     * Bedrock and Vertex read those with the operator's own cloud identity). Default none.
     */
    media_uri_schemes: z.array(z.string().regex(/^[a-zA-Z][a-zA-Z0-9+.-]{0,31}$/, 'a URI scheme')).optional(),
    /**
     * The provider built-in tools a client's request may take to its protocol's own upstream: an
     * OpenAI Responses client's built-in tools by type (`web_search`, `mcp`, `file_search`, …) and
     * an Anthropic client's server tools by type without the version date (`web_search`,
     * `web_fetch`, `code_execution`, …); others are left out with a WARN. Default
     * `defaultBuiltinTools` (`builtin-tools.ts`): those that reach nothing of the operator's account
     * but the model — not `file_search`, `code_interpreter` or `code_execution` (which name the
     * account's vector stores and containers, so one client could read another's) nor `mcp` (a
     * server of the client's choosing called with the operator's key), nor `hosted_shell` (a
     * `shell` in a container of the account: `container_reference`, `container_auto`). Anthropic's
     * client-run tools (`bash_…`, `text_editor_…`, `computer_…`, `memory_…`) always pass.
     */
    builtin_tools: z.array(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'a built-in tool type')).optional(),
    /**
     * Prefixes of the `anthropic-beta` flags a client may pass to an Anthropic upstream beyond
     * `defaultClientBetas` (`betas.ts`: those that change only how the model answers), e.g.
     * `files-api-`; others are left out with a WARN. Default none: `files-api-*`,
     * `code-execution-*`, `skills-*`, `mcp-client-*` open the account's files, containers, skills
     * and servers called with the operator's key, so one client could reach another's. An `oauth-*`
     * flag is never passed on.
     */
    client_betas: z
      .array(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a beta flag prefix'))
      .optional(),
    /** How long stored Responses and call artifacts live. Default 3,600 s. */
    state_ttl_seconds: z.number().positive().optional(),
    /**
     * The most bytes one key's stored Responses and call artifacts may hold in the state store
     * (memory or Redis; UTF-8, as Redis counts them): past it, the key gives up its own oldest
     * first, never another key's. Default 4 × `body_limit_bytes` (128 MiB: a stored entry is at most
     * about three body limits); at least `body_limit_bytes`.
     */
    state_max_bytes_per_key: z.number().int().positive().optional(),
    /** On SIGTERM, how long in-flight requests may finish before they are cancelled. Default 10 s. */
    shutdown_grace_seconds: z.number().nonnegative().optional(),
    /** Write a JSON-lines access log line per request (default true). */
    access_log: z.boolean().optional(),
    /**
     * One OpenTelemetry GenAI span per upstream call, on the global tracer provider (needs
     * `@opentelemetry/api` installed and an SDK registered by the operator, e.g. `node --import`).
     */
    otel: z.boolean().optional(),
  })
  .strict()
  .superRefine(shareFitsBodies)
  .superRefine(storedFitsBodies);

/** The gateway section as written. */
export type GatewayConfig = z.input<typeof gatewayConfigSchema>;
/** One `gateway.keys` entry. */
export type GatewayKeyConfig = z.infer<typeof keySchema>;

/** A whole config file: the front door's sections plus `gateway:`. */
export type GatewayFileConfig = SwitchyardConfig & { gateway?: GatewayConfig };

/** Splits a config object into the gateway section (validated) and the front door's config. */
export function splitConfig(config: GatewayFileConfig): {
  gateway: z.infer<typeof gatewayConfigSchema>;
  switchyard: SwitchyardConfig;
} {
  const { gateway, ...switchyard } = config;
  const result = gatewayConfigSchema.safeParse(gateway ?? {});
  if (!result.success) {
    const problems = result.error.issues.map(
      (issue) => `${['gateway', ...issue.path].join('.')}: ${issue.message}`,
    );
    throw new Error(`invalid gateway config: ${problems.join('; ')}`);
  }
  return { gateway: result.data, switchyard };
}

/** Reads a YAML (or JSON) config file. */
export function readConfigFile(path: string): GatewayFileConfig {
  const value = parse(readFileSync(path, 'utf8')) as unknown;
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new Error(`${path}: the config must be a mapping`);
  return value as GatewayFileConfig;
}
