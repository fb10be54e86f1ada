/** What every gateway handler shares: the front door, the state store, keys, metrics and logs. */
import type { Logger } from '../core/logger.ts';
import type { StateStore } from '../state/types.ts';
import type { Switchyard } from '../switchyard.ts';
import type { GatewayKey } from './keys.ts';
import type { GatewayMetrics } from './metrics.ts';
import type { GatewayStore } from './store.ts';

/** The gateway's shared state. */
export interface GatewayState {
  switchyard: Switchyard;
  /** Settles once the front door's configured adapters are loaded (the model listings wait for it). */
  adaptersLoaded: Promise<void>;
  store: GatewayStore;
  /** Whether the gateway made `store` (and so closes it at shutdown); a store passed in is the caller's. */
  ownsStore: boolean;
  /** Whether the gateway made `shared` (and so closes it at shutdown). */
  ownsShared: boolean;
  /** Limits, budgets and availability (memory, or Redis shared by every instance). */
  shared: StateStore;
  /** Lifetime of stored Responses and call artifacts. */
  ttlMs: number;
  keys: readonly GatewayKey[];
  metrics: GatewayMetrics;
  logger: Logger;
  /** Request bodies above this many bytes are refused with 413. */
  bodyLimit: number;
  /** A request body that sends no byte for this many ms is refused with 408. */
  bodyTimeoutMs: number;
  /**
   * Node's `requestTimeout` on the gateway's own server: the most a request may take to arrive,
   * counted for a pipelined request from its turn on the connection (`pipelining.ts`).
   */
  requestTimeoutMs: number;
  /** A request body still arriving this many ms after its read began is refused with 408. */
  bodyDeadlineMs: number;
  /** A stream's client that takes nothing for this many ms is cut off (`stream-body.ts`). */
  sendTimeoutMs: number;
  /** Request body bytes held by requests in flight, and their bound (`body-hold.ts`). */
  heldBodyBytes: number;
  maxHeldBodyBytes: number;
  /** The same bytes by key name (keys holding none are absent), and each key's share of the bound. */
  heldBodyBytesByKey: Map<string, number>;
  maxHeldBodyBytesPerKey: number;
  /** Requests in flight per key name, for the keys with `max_in_flight`. */
  inFlightByKey: Map<string, number>;
  /** Open WebSockets per key name (`max_websockets`, `key-limits.ts`). */
  socketsByKey: Map<string, number>;
  /** The URI schemes a client's media and files may use (`media-uris.ts`). */
  mediaSchemes: ReadonlySet<string>;
  /** The Responses built-in tool types a client may take to a Responses upstream (`builtin-tools.ts`). */
  builtinTools: ReadonlySet<string>;
  /** The `anthropic-beta` flag prefixes a client may pass to an Anthropic upstream (`betas.ts`). */
  clientBetas: readonly string[];
  /** Undefined when the access log is off (`gateway.access_log: false`): no line is built. */
  accessLog: ((line: Record<string, unknown>) => void) | undefined;
  /** The generations and token counts in flight (the drain waits for them, then cancels them). */
  calls: Set<AbortController>;
  /** The open WebSockets (closed at the end of a graceful shutdown). */
  sockets: Set<{ goAway(): void; terminate(): void }>;
  /** True when the gateway's own server listens without keys: only local clients are served (`localRefusal`). */
  localOnly: boolean;
  /** False once shutdown began: `/readyz` fails and new requests get 503. */
  accepting: boolean;
}
