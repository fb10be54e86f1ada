/**
 * OpenTelemetry GenAI spans for every routed call (`switchyard-ai/otel`; `@opentelemetry/api` is an
 * optional peer dependency): span `chat {model}` with `gen_ai.*` request, response and usage
 * attributes (cache read and creation included), time to first chunk, cost and error class.
 */
import type { Span, SpanKind, SpanStatusCode, Tracer } from '@opentelemetry/api';
import type { CanonicalResponse } from '../core/request.ts';
import type { Observer } from './types.ts';

/** Options of {@link createOpenTelemetryObserver}. */
export interface OpenTelemetryObserverOptions {
  /** Where spans go, e.g. `trace.getTracer('my-app')`. (Only types are imported from `@opentelemetry/api`, so this entry loads without it.) */
  tracer: Tracer;
}

/** `SpanKind.CLIENT` and `SpanStatusCode.ERROR`, as the API defines them (no runtime import of the optional peer). */
const clientKind = 2 as SpanKind.CLIENT;
const errorStatus = 2 as SpanStatusCode.ERROR;

/** Creates an observer that records one span per candidate call. */
export function createOpenTelemetryObserver(options: OpenTelemetryObserverOptions): Observer {
  const tracer = options.tracer;
  const spans = new Map<string, { span: Span; startedAt: number }>();
  const key = (event: { requestId: string; model: string }) => `${event.requestId} ${event.model}`;
  return {
    onEvent(event) {
      switch (event.type) {
        case 'call-started': {
          const span = tracer.startSpan(`chat ${event.model}`, {
            kind: clientKind,
            attributes: {
              'gen_ai.operation.name': 'chat',
              'gen_ai.provider.name': event.provider,
              'gen_ai.request.model': event.model,
              'switchyard.requested_model': event.requested,
              'switchyard.request_id': event.requestId,
              'switchyard.stream': event.stream,
            },
          });
          spans.set(key(event), { span, startedAt: performance.now() });
          return;
        }
        case 'call-retried':
          spans.get(key(event))?.span.addEvent('retry', {
            'switchyard.retry_count': event.retryCount,
            'error.type': event.errorClass,
            'switchyard.delay_ms': event.delayMs,
          });
          return;
        case 'call-first-chunk':
          spans.get(key(event))?.span.setAttribute('switchyard.time_to_first_chunk_ms', event.latencyMs);
          return;
        case 'call-completed': {
          const entry = spans.get(key(event));
          if (entry === undefined) return;
          spans.delete(key(event));
          recordResponse(entry.span, event.response);
          entry.span.setAttribute('switchyard.retry_count', event.retryCount);
          entry.span.end();
          return;
        }
        case 'call-failed': {
          const entry = spans.get(key(event));
          if (entry === undefined) return;
          spans.delete(key(event));
          entry.span.setAttributes({
            'error.type': event.errorClass,
            'switchyard.retry_count': event.retryCount,
            'switchyard.fallback': event.fallback,
          });
          // A stream its reader stopped: what arrived before the stop.
          if (event.response !== undefined) recordResponse(entry.span, event.response);
          entry.span.recordException(event.error);
          entry.span.setStatus({ code: errorStatus, message: event.error.message });
          entry.span.end();
          return;
        }
      }
    },
  };
}

/** The response's model, finish reason, usage and cost as span attributes. */
function recordResponse(span: Span, response: CanonicalResponse): void {
  const usage = response.usage;
  span.setAttributes({
    'gen_ai.response.model': response.model,
    'gen_ai.response.finish_reasons': [response.finishReason],
    'gen_ai.usage.input_tokens': usage.input + usage.cacheRead + usage.cacheWrite,
    'gen_ai.usage.output_tokens': usage.output,
    'gen_ai.usage.cache_read.input_tokens': usage.cacheRead,
    'gen_ai.usage.cache_creation.input_tokens': usage.cacheWrite,
    'gen_ai.usage.reasoning.output_tokens': usage.reasoning,
  });
  if (response.responseId !== undefined) span.setAttribute('gen_ai.response.id', response.responseId);
  if (usage.cost !== undefined) {
    span.setAttributes({
      'switchyard.cost.amount': usage.cost.amount,
      'switchyard.cost.currency': usage.cost.currency,
    });
  }
}
