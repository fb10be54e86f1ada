/** Prometheus metrics of one gateway (its own registry, so several gateways never share counters). */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Usage } from '../core/usage.ts';

/** The gateway's metrics. */
export interface GatewayMetrics {
  registry: Registry;
  requests: Counter<'protocol' | 'model' | 'status'>;
  errors: Counter<'protocol' | 'class'>;
  latency: Histogram<'protocol' | 'stream'>;
  timeToFirstToken: Histogram<'protocol'>;
  tokens: Counter<'protocol' | 'model' | 'kind'>;
  cost: Counter<'protocol' | 'model'>;
  inFlight: Gauge<'protocol'>;
  circuits: Gauge<'key' | 'state'>;
  /** Failed shared-state operations (Redis down or slower than `state_timeout_ms`). */
  stateFailures: Counter<'operation' | 'outcome'>;
}

const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** Creates the metrics in a fresh registry. */
export function createMetrics(): GatewayMetrics {
  const registry = new Registry();
  const registers = [registry];
  return {
    registry,
    requests: new Counter({
      name: 'switchyard_gateway_requests_total',
      help: 'Requests by protocol, model and status',
      labelNames: ['protocol', 'model', 'status'],
      registers,
    }),
    errors: new Counter({
      name: 'switchyard_gateway_errors_total',
      help: 'Failed requests by error class',
      labelNames: ['protocol', 'class'],
      registers,
    }),
    latency: new Histogram({
      name: 'switchyard_gateway_request_duration_seconds',
      help: 'Request duration',
      labelNames: ['protocol', 'stream'],
      buckets,
      registers,
    }),
    timeToFirstToken: new Histogram({
      name: 'switchyard_gateway_time_to_first_token_seconds',
      help: 'Time to the first content byte of streams',
      labelNames: ['protocol'],
      buckets,
      registers,
    }),
    tokens: new Counter({
      name: 'switchyard_gateway_tokens_total',
      help: 'Tokens by kind (input, cache_read, cache_write, output)',
      labelNames: ['protocol', 'model', 'kind'],
      registers,
    }),
    cost: new Counter({
      name: 'switchyard_gateway_cost_usd_total',
      help: 'Cost of served calls',
      labelNames: ['protocol', 'model'],
      registers,
    }),
    inFlight: new Gauge({
      name: 'switchyard_gateway_in_flight_requests',
      help: 'Requests being served',
      labelNames: ['protocol'],
      registers,
    }),
    circuits: new Gauge({
      name: 'switchyard_gateway_circuit_state',
      help: 'Availability state per provider/model (1 for the current state)',
      labelNames: ['key', 'state'],
      registers,
    }),
    stateFailures: new Counter({
      name: 'switchyard_state_failures_total',
      help: 'Shared-state operations that failed, by operation and outcome (local: served from local state; refused)',
      labelNames: ['operation', 'outcome'],
      registers,
    }),
  };
}

const children = new WeakMap<object, Map<string, unknown>>();

/**
 * A metric's series for these label values (in `labelNames` order), made once: prom-client hashes
 * a labels object on every call otherwise, which was the larger part of the per-request metrics cost.
 * Only for label values from a bounded set (protocol, canonical model id, status, class).
 */
export function seriesOf<Child>(metric: { labels(...values: string[]): Child }, ...values: string[]): Child {
  let cache = children.get(metric) as Map<string, Child> | undefined;
  if (cache === undefined) children.set(metric, (cache = new Map()));
  const key = values.join('\u0000');
  let child = cache.get(key);
  if (child === undefined) cache.set(key, (child = metric.labels(...values)));
  return child;
}

/** Counts a call's usage and cost; `model` is the canonical id (or `unknown`), never the client's text. */
export function recordUsage(metrics: GatewayMetrics, protocol: string, model: string, usage: Usage): void {
  seriesOf(metrics.tokens, protocol, model, 'input').inc(usage.input);
  seriesOf(metrics.tokens, protocol, model, 'cache_read').inc(usage.cacheRead);
  seriesOf(metrics.tokens, protocol, model, 'cache_write').inc(usage.cacheWrite);
  seriesOf(metrics.tokens, protocol, model, 'output').inc(usage.output);
  if (usage.cost !== undefined && usage.cost.currency === 'USD')
    seriesOf(metrics.cost, protocol, model).inc(usage.cost.amount);
}
