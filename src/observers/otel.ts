/**
 * OpenTelemetry GenAI spans for every routed call (`switchyard-ai/otel`; `@opentelemetry/api` is an
 * optional peer dependency): span `chat {model}` with `gen_ai.*` request, response and usage
 * attributes (cache read and creation included), time to first chunk, cost and error class.
 */
import { type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { Observer } from './types.ts';

/** Options of {@link createOpenTelemetryObserver}. */
export interface OpenTelemetryObserverOptions {
  /** Default: `trace.getTracer('switchyard-ai')` from the global provider. */
  tracer?: Tracer;
}

/** Creates an observer that records one span per candidate call. */
export function createOpenTelemetryObserver(options: OpenTelemetryObserverOptions = {}): Observer {
  const tracer = options.tracer ?? trace.getTracer('switchyard-ai');
  const spans = new Map<string, { span: Span; startedAt: number }>();
  const key = (event: { requestId: string; model: string }) => `${event.requestId} ${event.model}`;
  return {
    onEvent(event) {
      switch (event.type) {
        case 'call-started': {
          const span = tracer.startSpan(`chat ${event.model}`, {
            kind: SpanKind.CLIENT,
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
          const { response } = event;
          const usage = response.usage;
          entry.span.setAttributes({
            'gen_ai.response.model': response.model,
            'gen_ai.response.finish_reasons': [response.finishReason],
            'gen_ai.usage.input_tokens': usage.input + usage.cacheRead + usage.cacheWrite,
            'gen_ai.usage.output_tokens': usage.output,
            'gen_ai.usage.cache_read.input_tokens': usage.cacheRead,
            'gen_ai.usage.cache_creation.input_tokens': usage.cacheWrite,
            'gen_ai.usage.reasoning.output_tokens': usage.reasoning,
            'switchyard.retry_count': event.retryCount,
          });
          if (response.responseId !== undefined)
            entry.span.setAttribute('gen_ai.response.id', response.responseId);
          if (usage.cost !== undefined) {
            entry.span.setAttributes({
              'switchyard.cost.amount': usage.cost.amount,
              'switchyard.cost.currency': usage.cost.currency,
            });
          }
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
          entry.span.recordException(event.error);
          entry.span.setStatus({ code: SpanStatusCode.ERROR, message: event.error.message });
          entry.span.end();
          return;
        }
      }
    },
  };
}
