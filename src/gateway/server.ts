/**
 * `createGateway()`: the Hono app over a front door, and `listen()` on @hono/node-server. With no
 * keys configured the gateway serves loopback only. Shutdown stops accepting, lets in-flight
 * requests finish up to a grace period, then cancels the upstream calls still running.
 */
import { createServer, type IncomingMessage, type Server, type ServerOptions } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Hono } from 'hono';
import { consoleLogger, guardLogger, type Logger } from '../core/logger.ts';
import { createOpenTelemetryObserver } from '../observers/otel.ts';
import type { Observer } from '../observers/types.ts';
import { ConfigError } from '../registry/config.ts';
import { createStateStore } from '../state/create.ts';
import type { StateStore } from '../state/types.ts';
import { createSwitchyard, type Switchyard } from '../switchyard.ts';
import { createApp, directWrites } from './app.ts';
import { scopeOfStoreKey } from './artifacts.ts';
import {
  defaultBodyLimit,
  type GatewayConfig,
  type GatewayFileConfig,
  readConfigFile,
  splitConfig,
} from './config.ts';
import { defaultBodyDeadlineMs, defaultBodyTimeoutMs } from './inbound.ts';
import { loadKeys, withBareModels } from './keys.ts';
import {
  answerClientError,
  answerConnect,
  answerExpectation,
  continueOnRead,
  createNodeListener,
} from './node-listener.ts';
import { createMetrics, type GatewayMetrics } from './metrics.ts';
import { mediaSchemes } from './media-uris.ts';
import { clientBetaPrefixes } from './betas.ts';
import { builtinTools } from './builtin-tools.ts';
import type { GatewayState } from './state.ts';
import { createMemoryStore, createSharedStore, type GatewayStore } from './store.ts';
import { switchyardSocket } from './websocket.ts';
import { responsesSocket } from './responses-websocket.ts';
import { createUpgradeHandler, upgradeRoute } from './websocket-common.ts';

/** The WebSocket protocols the gateway's own server serves, each at its path. */
const socketProtocols = [switchyardSocket, responsesSocket];

/** Options of {@link createGateway}. */
export interface GatewayOptions {
  /** The front door to route through (default: one created from `config` without its `gateway:` section). */
  switchyard?: Switchyard;
  /** A config file path, or the same structure as an object: the front door's sections plus `gateway:`. */
  config?: string | GatewayFileConfig;
  /** Where warnings go (default: JSON lines on stderr). */
  logger?: Logger;
  /** Where stored Responses and call artifacts live (default: the shared state when it is Redis, else in memory, bounded). */
  store?: GatewayStore;
  /**
   * Limits, budgets and availability (default: from `gateway.state`: in memory, or Redis shared by
   * every instance). A front door passed as `switchyard` should use its `availability` store. One
   * passed in stays the caller's: `close()` does not close it (nor a `store` passed in).
   */
  state?: StateStore;
  /** Observers of every upstream call, for the front door created from `config` (with `gateway.otel`, an OpenTelemetry one is added). */
  observers?: Observer[];
  /**
   * The environment (default `process.env`): the gateway keys' `key_env` variables, and, for the
   * front door created from `config`, its API keys, base URLs and proxy variables.
   */
  env?: Record<string, string | undefined>;
  /** Receives one access-log line per request (default: JSON lines on stdout; none with `access_log: false`). */
  accessLog?: (line: Record<string, unknown>) => void;
}

/** A listening gateway. */
export interface GatewayServer {
  /** `http://host:port`. */
  url: string;
  /**
   * Graceful: refuse new requests (503) and answer `/readyz` with 503 while in-flight requests
   * finish, up to `graceMs` (default: the config's); then stop listening and cancel those still
   * running. Called again while draining, a shorter `graceMs` ends the drain sooner (`0`: now).
   */
  close(graceMs?: number): Promise<void>;
}

/** Request bodies above this many bytes are refused with 413 (`gateway.body_limit_bytes`). */

/** The gateway: its Hono app, metrics and `listen`. */
export interface Gateway {
  app: Hono;
  metrics: GatewayMetrics;
  switchyard: Switchyard;
  listen(options?: { host?: string; port?: number }): Promise<GatewayServer>;
}

const loopbackHosts = new Set(['127.0.0.1', '::1', 'localhost']);

/** Connections per upstream origin of the front door the gateway creates (`gateway.upstream_connections`). */
export const defaultUpstreamConnections = 1024;

/** A config's seconds in ms, or the default (in ms) when it does not say. */
const secondsOr = (seconds: number | undefined, defaultMs: number) =>
  seconds === undefined ? defaultMs : seconds * 1000;

/** Creates a gateway over a front door; see {@link GatewayOptions}. */
export function createGateway(options: GatewayOptions = {}): Gateway {
  const file = typeof options.config === 'string' ? readConfigFile(options.config) : (options.config ?? {});
  const { gateway, switchyard: switchyardConfig } = splitConfig(file);
  const logger = guardLogger(options.logger ?? consoleLogger);
  const metrics = createMetrics();
  // One bound on a key's stored values, in memory or Redis (`state_max_bytes_per_key`): by default
  // room for the largest entry the gateway stores (about three body limits) and more.
  const maxStoredBytesPerKey =
    gateway.state_max_bytes_per_key ?? 4 * (gateway.body_limit_bytes ?? defaultBodyLimit);
  const shared =
    options.state ??
    createStateStore({
      state: gateway.state,
      valueGroupOf: scopeOfStoreKey,
      maxValueBytesPerGroup: maxStoredBytesPerKey,
      timeoutMs: gateway.state_timeout_ms,
      onFailure: gateway.on_state_failure,
      onFailureEvent: (event) =>
        metrics.stateFailures.inc({ operation: event.operation, outcome: event.outcome }),
      logger,
    });
  const switchyard =
    options.switchyard ??
    createSwitchyard({
      config: switchyardConfig,
      logger,
      ...(options.env === undefined ? {} : { env: options.env }),
      stateStore: shared.availability,
      maxConnections: gateway.upstream_connections ?? defaultUpstreamConnections,
      observers: [...(options.observers ?? []), ...(gateway.otel === true ? [openTelemetryObserver()] : [])],
    });
  const sharedValues = gateway.state !== undefined && gateway.state !== 'memory';
  const maxHeldBodyBytes =
    gateway.max_request_bytes_in_flight ?? 4 * (gateway.body_limit_bytes ?? defaultBodyLimit);
  const bodyTimeoutMs = secondsOr(gateway.body_timeout_seconds, defaultBodyTimeoutMs);
  const bodyDeadlineMs = secondsOr(gateway.body_deadline_seconds, defaultBodyDeadlineMs);
  const state: GatewayState = {
    switchyard,
    // A server loads every configured adapter at once: no first-call delay, and the listings can
    // leave out what an adapter cannot serve as set up. One that fails to load is still described
    // by the catalog, and its calls say why it failed.
    adaptersLoaded: switchyard.loadAdapters().catch(() => undefined),
    shared,
    store:
      options.store ??
      (sharedValues
        ? createSharedStore(shared, logger)
        : createMemoryStore({ groupOf: scopeOfStoreKey, maxGroupBytes: maxStoredBytesPerKey, logger })),
    ttlMs: (gateway.state_ttl_seconds ?? 3600) * 1000,
    keys: withBareModels(loadKeys(gateway.keys ?? [], options.env ?? process.env), (name) => {
      try {
        return switchyard.resolve(name).matchedBy === 'alias';
      } catch {
        return false; // a glob, or a name nothing matches: no alias
      }
    }),
    metrics,
    logger,
    bodyLimit: gateway.body_limit_bytes ?? defaultBodyLimit,
    bodyTimeoutMs,
    bodyDeadlineMs,
    // Node's cut of a request still arriving only backs up the gateway's own: `body_deadline_seconds`
    // cuts a body in the route's shape first (by its next byte, or its idle timeout).
    requestTimeoutMs:
      gateway.request_timeout_seconds !== undefined
        ? Math.round(gateway.request_timeout_seconds * 1000)
        : bodyDeadlineMs + bodyTimeoutMs + 60_000,
    sendTimeoutMs: (gateway.send_timeout_seconds ?? 60) * 1000,
    heldBodyBytes: 0,
    inFlightByKey: new Map(),
    socketsByKey: new Map(),
    maxHeldBodyBytes,
    heldBodyBytesByKey: new Map(),
    // Half the bound, but room for one body as large as the limit lets in: a key is never refused,
    // on an idle gateway, a body every other check admits.
    maxHeldBodyBytesPerKey:
      gateway.max_request_bytes_in_flight_per_key ??
      Math.max(
        Math.floor(maxHeldBodyBytes / 2),
        Math.min(gateway.body_limit_bytes ?? defaultBodyLimit, maxHeldBodyBytes),
      ),
    mediaSchemes: mediaSchemes(gateway.media_uri_schemes),
    builtinTools: builtinTools(gateway.builtin_tools),
    clientBetas: clientBetaPrefixes(gateway.client_betas),
    accessLog: accessLogOf(options, gateway),
    calls: new Set(),
    sockets: new Set(),
    localOnly: false,
    ownsStore: options.store === undefined,
    ownsShared: options.state === undefined,
    accepting: true,
  };
  const app = createApp(state);
  return {
    app: app as unknown as Hono,
    metrics,
    switchyard,
    listen: (listenOptions = {}) => listen(state, app, gateway, listenOptions),
  };
}

/**
 * `gateway.otel: true`: spans on the global tracer. `@opentelemetry/api` is an optional peer, loaded
 * only here and synchronously (`createGateway` is sync; the package ships CommonJS).
 */
function openTelemetryObserver(): Observer {
  let api: typeof import('@opentelemetry/api');
  try {
    api = createRequire(import.meta.url)('@opentelemetry/api') as typeof import('@opentelemetry/api');
  } catch {
    const message =
      'needs the @opentelemetry/api package: npm install @opentelemetry/api (and register an SDK)';
    throw new ConfigError('', [{ path: 'gateway.otel', message }]);
  }
  return createOpenTelemetryObserver({ tracer: api.trace.getTracer('switchyard-gateway') });
}

function accessLogOf(
  options: GatewayOptions,
  gateway: GatewayConfig,
): ((line: Record<string, unknown>) => void) | undefined {
  if (gateway.access_log === false) return undefined;
  if (options.accessLog !== undefined) return options.accessLog;
  return (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
}

async function listen(
  state: GatewayState,
  app: ReturnType<typeof createApp>,
  gateway: GatewayConfig,
  options: { host?: string; port?: number },
): Promise<GatewayServer> {
  const host = options.host ?? '127.0.0.1';
  // A shared store answers from the first request on (bounded: a dead Redis starts the gateway degraded).
  await state.shared.ready;
  await state.adaptersLoaded;
  if (state.keys.length === 0 && !loopbackHosts.has(host))
    throw new Error(
      `refusing to listen on ${host} with no gateway keys configured: add gateway.keys or use 127.0.0.1`,
    );
  state.localOnly = state.keys.length === 0;
  // The env marks the request as served by this server: streams may be written to Node's response.
  const fetch = (request: Request, env: Record<string | symbol, unknown>) =>
    app.fetch(request, { ...env, [directWrites]: true });
  // Only a WebSocket upgrade on its path goes to the upgrade handler (Node ≥ 24.9 asks; older Nodes
  // send it every request with an `Upgrade` header): any other — curl's `--http2` sends `Upgrade:
  // h2c` — is an ordinary request, answered as HTTP/1.1 (an upgrade the server does not speak is
  // ignored, RFC 9110 §7.8).
  const listener = createNodeListener(state, fetch, host);
  // Node's request timeout (`request_timeout_seconds`, by default a backstop behind the body's own
  // deadline and idle timeout), its headers timeout the lesser of 60 s and that, both checked every
  // 30 s or a quarter of the request timeout when shorter.
  const requestTimeout = state.requestTimeoutMs;
  const server = createServer(
    {
      shouldUpgradeCallback: (request: IncomingMessage) =>
        upgradeRoute(request, socketProtocols) !== undefined,
      requireHostHeader: false,
      requestTimeout,
      connectionsCheckingInterval: Math.min(30_000, Math.max(10, Math.round(requestTimeout / 4))),
    } as ServerOptions,
    listener,
  );
  server.on('checkContinue', continueOnRead(listener));
  server.on('checkExpectation', answerExpectation);
  server.on('connect', answerConnect);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4000, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Once listening, a server error is logged, never a crash. An accept over the open-files limit
  // does not come here on Linux: libuv accepts and closes such connections itself (its EMFILE
  // reserve descriptor), unlogged; the gateway serves again once descriptors come back
  // (test/gateway/fd-limit.test.ts). An upstream call with no descriptor left is a 503 and a warning.
  server.on('error', (error: NodeJS.ErrnoException) =>
    state.logger.warn('gateway: server error', { code: error.code ?? error.name }),
  );
  server.on('upgrade', createUpgradeHandler(state, socketProtocols));
  server.on('clientError', answerClientError);
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const defaultGrace = (gateway.shutdown_grace_seconds ?? 10) * 1000;
  // Every request body is read under an idle timer of `body_timeout_seconds` (inbound.ts), cleared
  // when the body ends. Node keeps one timer list per duration and deletes it when its last timer
  // is cleared, so each call created and deleted the list (a priority-queue insertion and removal,
  // a property deleted: ~3.5k instructions a call under callgrind). One idle, unreferenced interval
  // of that length keeps the list while the server listens (as `keepTimerLists` in transport/http.ts).
  const keepBodyTimerList = setInterval(() => {}, state.bodyTimeoutMs).unref();
  let closing: Promise<void> | undefined;
  const drain = { deadline: 0 };
  return {
    url: `http://${shown}:${address.port}`,
    close: (graceMs = defaultGrace) => {
      // Called again while draining: a shorter grace ends the drain sooner (a second signal: now).
      if (closing !== undefined) {
        drain.deadline = Math.min(drain.deadline, Date.now() + graceMs);
        return closing;
      }
      drain.deadline = Date.now() + graceMs;
      closing = shutdown(state, server, drain).finally(() => clearInterval(keepBodyTimerList));
      return closing;
    },
  };
}

/**
 * Drains, as a load balancer expects: during the grace period the listener keeps accepting —
 * `/readyz` answers 503, a new request is refused with 503, `retry-after: 1` and `connection:
 * close` in its protocol's shape, every reply closes its connection — while the requests in flight
 * finish; once none is (or `drain.deadline` passes) the listener closes, the calls still running
 * are cancelled (each ends with its in-band 503) and the connections close.
 */
async function shutdown(state: GatewayState, server: Server, drain: { deadline: number }): Promise<void> {
  state.accepting = false;
  // Idle keep-alive connections go now (their client's next request opens a new one, refused 503).
  server.closeIdleConnections();
  while (state.calls.size > 0 && Date.now() < drain.deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    // A reply that began before the drain said keep-alive: its connection, idle once it ended,
    // closes now rather than take its client's next request only to refuse it.
    server.closeIdleConnections();
  }
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  for (const call of state.calls) call.abort(new Error('gateway shutting down'));
  // Upgraded sockets are no longer the server's: each request still running on one gets a final
  // error, the socket is closed here (1001, going away), and ended outright when its client has
  // not answered the close within a second.
  for (const socket of state.sockets) socket.goAway();
  // A cancelled stream ends with its protocol's in-band error: a second for those last bytes to go
  // out (the server closes each connection once its reply ended) and for socket clients to answer.
  const lastDeadline = Date.now() + 1000;
  let serverClosed = false;
  void closed.then(() => (serverClosed = true));
  while ((!serverClosed || state.sockets.size > 0) && Date.now() < lastDeadline) {
    // A keep-alive connection whose reply ended since is idle now: closed, not left to its timeout.
    server.closeIdleConnections();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  for (const socket of state.sockets) socket.terminate();
  server.closeAllConnections();
  await closed;
  try {
    if (state.ownsStore) await state.store.close?.();
  } finally {
    if (state.ownsShared) await state.shared.close();
  }
}
