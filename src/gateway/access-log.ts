/**
 * What the operator sees of every request: its access log line (JSON, no content) and its metrics
 * (`requests_total`, `errors_total`, latency, tokens, cost). One place for both, whatever ended the
 * request — a reply, a refusal before it was served, or a WebSocket closed on a message still arriving.
 */
import type { ServerResponse } from 'node:http';
import { shown } from '../codecs/fields.ts';
import type { InboundProtocol, WireError } from '../codecs/types.ts';
import type { CanonicalResponse } from '../core/request.ts';
import { billedTokens } from '../core/usage.ts';
import type { GatewayKey } from './keys.ts';
import { maxWarningDetails } from './left-out.ts';
import { recordUsage, seriesOf } from './metrics.ts';
import type { GatewayState } from './state.ts';
import { delivered } from './delivery.ts';

/**
 * What a request's route does, the `route` label of `requests_total` (a fixed set, never the path):
 * `generate` for the generation routes (the WebSocket's too), else the route that generates nothing.
 */
export type RouteLabel =
  'generate' | 'count_tokens' | 'stored_response' | 'models' | 'key_usage' | 'metrics' | 'other';

/** What is logged of one request: the bookkeeping a served request carries (`Served`, `generation-call.ts`). */
export interface LoggedRequest {
  call: { protocol: InboundProtocol; path: string; requestId: string; key: GatewayKey | undefined };
  /** Its route's label (default `generate`); only a generation takes a latency sample. */
  route?: RouteLabel;
  startedAt: number;
  /** Milliseconds spent in gateway code (decode, encode, state), not waiting on the upstream. */
  ownMs: number;
  /** The model name as the client wrote it (access log). */
  model: string;
  /** The metrics label: its canonical id when the registry or the bundled catalog knows it, else `{provider}:other`. */
  modelId?: string;
  stream: boolean;
  status: number;
  errorClass?: string;
  /**
   * The WebSocket close code that ended it (a message still arriving refused: 1013, 1008); its
   * `status` is then the one an HTTP body refused so gets (503, 408).
   */
  closeCode?: number;
  firstByteMs?: number;
  provider?: string;
  usage?: CanonicalResponse['usage'];
  /** Refused before it was served (`logRefusal`): no latency sample. */
  refused?: boolean;
  /** Reply parts the client's protocol could not carry (`EncodeContext.leftOut`): one WARN at the end. */
  leftOut?: Set<string>;
  /** The client went away before the reply ended (a stream cancelled, a request aborted). */
  clientLeft?: boolean;
}

/**
 * A request refused before it was served (no or an unknown key, a model or `Host`/`Origin` it may
 * not use: `refusalOf`; a WebSocket message refused as it arrived, with its `closeCode`): counted
 * and logged as a served request is, with what is known of it — the operator sees refused traffic
 * (a key being guessed) in the metrics and the access log.
 */
export function logRefusal(
  state: GatewayState,
  call: Omit<LoggedRequest['call'], 'key'> & { key?: GatewayKey | undefined; route?: RouteLabel },
  wire: WireError,
  closeCode?: number,
): void {
  const { route, ...logged } = call;
  const refused: LoggedRequest = {
    call: { ...logged, key: call.key },
    startedAt: performance.now(),
    ownMs: 0,
    model: 'unknown',
    stream: false,
    status: wire.status,
    errorClass: wire.errorClass,
    refused: true,
  };
  if (closeCode !== undefined) refused.closeCode = closeCode;
  if (route !== undefined) refused.route = route;
  finishLog(state, refused);
}

/**
 * The access log line and metrics of a request, once its reply is out. A reply Node still holds —
 * pipelined behind another on the connection, or not yet flushed — is logged when it is delivered,
 * or as 499 `cancelled` when the client leaves first (it was logged 200, never sent).
 */
export function logWhenDelivered(
  state: GatewayState,
  served: LoggedRequest,
  outgoing: ServerResponse | undefined,
): void {
  if (outgoing === undefined || outgoing.writableFinished) return finishLog(state, served);
  const settle = () => {
    if (!delivered(outgoing) && served.status < 400) {
      served.status = 499;
      served.errorClass = 'cancelled';
      served.clientLeft = true;
    }
    finishLog(state, served);
  };
  if (outgoing.destroyed) settle();
  else outgoing.once('close', settle);
}

/** Counts the request in the metrics and writes its access log line (never throws). */
export function finishLog(state: GatewayState, served: LoggedRequest): void {
  const durationMs = performance.now() - served.startedAt;
  const { protocol } = served.call;
  // Never a silent loss: a reply part the client's protocol has no place for is named.
  if (served.leftOut !== undefined)
    state.logger.warn('gateway: part of the reply was left out', {
      requestId: served.call.requestId,
      protocol,
      provider: served.provider ?? null,
      parts: [...served.leftOut].slice(0, maxWarningDetails).map(shown),
    });
  // Labelled by the canonical id: a client's made-up model names never become new series.
  const model = served.modelId ?? 'unknown';
  const route = served.route ?? 'generate';
  seriesOf(state.metrics.requests, protocol, model, String(served.status), route).inc();
  // A refusal took no time worth a latency sample (a flood of them would drag the percentiles), and
  // the latency is the generations': a stored reply's read or a count is not one.
  if (served.refused !== true && route === 'generate')
    state.metrics.latency.series(protocol, String(served.stream)).observe(durationMs / 1000);
  if (served.errorClass !== undefined) seriesOf(state.metrics.errors, protocol, served.errorClass).inc();
  if (served.usage !== undefined) recordUsage(state.metrics, protocol, model, served.usage);
  if (state.accessLog === undefined) return;
  const log = state.accessLog;
  // Every token billed: a model failure failed over from included (`usage.byModel`).
  const billed = served.usage === undefined ? undefined : billedTokens(served.usage);
  const line: Record<string, unknown> = {
    time: new Date().toISOString(),
    requestId: served.call.requestId,
    protocol,
    path: served.call.path,
    key: served.call.key?.name ?? null,
    model: shown(served.model),
    provider: served.provider ?? null,
    stream: served.stream,
    status: served.status,
    errorClass: served.errorClass ?? null,
    durationMs: round(durationMs),
    firstByteMs: served.firstByteMs === undefined ? null : round(served.firstByteMs),
    overheadMs: round(served.ownMs),
    inputTokens: billed === undefined ? null : billed.input + billed.cacheRead + billed.cacheWrite,
    outputTokens: billed?.output ?? null,
  };
  // Only a WebSocket's close has a close code: HTTP lines keep their fields as they were.
  if (served.closeCode !== undefined) line.closeCode = served.closeCode;
  // The tier the upstream says served the call, as it named it (`usage.serviceTier`); none named, no field.
  if (served.usage?.serviceTier !== undefined) line.serviceTier = served.usage.serviceTier;
  // The log is the operator's callback: its failure is reported, never the request's.
  try {
    log(line);
  } catch (error) {
    state.logger.warn('gateway: the access log failed', {
      error: error instanceof Error ? error.name : 'unknown',
    });
  }
}

const round = (value: number) => Math.round(value * 1000) / 1000;
