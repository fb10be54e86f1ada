/** A JSON-lines reporter: one line per call lifecycle event, with usage and cost but no content. */
import type { CallEvent, Observer } from './types.ts';

/** Options of {@link createJsonLinesReporter}. */
export interface JsonLinesReporterOptions {
  /** Where each line goes (default: stderr). */
  write?: (line: string) => void;
}

/** The JSON view of one event: ids, timing, usage, cost, error class — never prompt or reply content. */
export function summarizeEvent(event: CallEvent): Record<string, unknown> {
  const { type, requestId, model, provider, requested, retryCount, timestamp } = event;
  const line: Record<string, unknown> = {
    type,
    timestamp,
    requestId,
    requested,
    model,
    provider,
    retryCount,
  };
  switch (event.type) {
    case 'call-started':
      line.stream = event.stream;
      break;
    case 'call-retried':
      line.errorClass = event.errorClass;
      line.delayMs = event.delayMs;
      break;
    case 'call-first-chunk':
      line.latencyMs = Math.round(event.latencyMs);
      break;
    case 'call-completed':
      line.durationMs = Math.round(event.durationMs);
      line.finishReason = event.response.finishReason;
      line.servedModel = event.response.model;
      line.usage = event.response.usage;
      break;
    case 'call-failed':
      line.durationMs = Math.round(event.durationMs);
      line.errorClass = event.errorClass;
      line.message = event.error.message;
      line.fallback = event.fallback;
      if (event.response !== undefined) line.usage = event.response.usage;
      break;
  }
  return line;
}

/** Creates an observer writing one JSON line per event. */
export function createJsonLinesReporter(options: JsonLinesReporterOptions = {}): Observer {
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  return { onEvent: (event) => write(`${JSON.stringify(summarizeEvent(event))}\n`) };
}
