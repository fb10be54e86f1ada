/** The Responses SSE parser: `response.*` events and in-band `error` events under the stream contract. */
import type { StreamBuilder } from '../../core/stream-builder.ts';
import type { ProviderContext, StreamParser } from '../common/definition.ts';
import { createTruncatedError } from '../common/errors.ts';
import type { WireEvent, WireItem } from './api.ts';
import { argumentsDelta, DeltaScanner, isPartEcho, textDelta } from './delta-scanner.ts';
import { ResponseReader } from './reader.ts';
import { parseJson } from '../../core/json-text.ts';
import { isJsonObject, jsonTypeName } from '../../core/json.ts';

function indexOf(value: number | undefined): number {
  return typeof value === 'number' && value >= 0 ? value : 0;
}

/** Whether a `summary_index` numbers a summary part after the first: a safe positive integer. */
function isPartNumber(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

/**
 * Whether the event carries a `delta` string (an event without one adds nothing). Text of another
 * type is not a shape to skip — the reply would read as whole without it — and fails the stream.
 */
function isDelta(event: WireEvent): event is WireEvent & { delta: string } {
  if (typeof event.delta === 'string') return true;
  if (event.delta === undefined) return false;
  throw new TypeError(
    `a ${String(event.type).slice(0, 80)}'s delta is ${jsonTypeName(event.delta)}, not a string`,
  );
}

/**
 * Whether an `output_item.added`/`.done` event carries its item (one without adds nothing). An item
 * that is no object is not a shape to skip — the item's content would be lost while the reply read
 * as whole — and fails the stream, as a delta of another type does.
 */
function hasItem(event: WireEvent): event is WireEvent & { item: WireItem } {
  if (isJsonObject(event.item)) return true;
  if (event.item === undefined) return false;
  throw new TypeError(`a ${String(event.type)}'s item is ${jsonTypeName(event.item)}, not an object`);
}

/** Feeds one parsed event to the reader; returns false for an event type it does not know. */
function dispatch(reader: ResponseReader, event: WireEvent): boolean {
  const index = indexOf(event.output_index);
  switch (event.type) {
    case 'response.output_text.delta':
      if (isDelta(event)) reader.text(index, indexOf(event.content_index), event.delta);
      return true;
    case 'response.function_call_arguments.delta':
      if (isDelta(event)) reader.toolDelta(index, event.delta);
      return true;
    case 'response.reasoning_summary_text.delta':
      if (isDelta(event)) reader.reasoning(index, event.delta);
      return true;
    case 'response.reasoning_text.delta':
      if (isDelta(event)) reader.reasoning(index, event.delta);
      return true;
    case 'response.reasoning_summary_part.added':
      // A later part begins: only a safe positive integer numbers it (1.5 or 1e999 is no part).
      if (isPartNumber(event.summary_index)) reader.reasoning(index, '', event.summary_index);
      return true;
    case 'response.refusal.delta':
      if (isDelta(event)) reader.text(index, indexOf(event.content_index), event.delta, true);
      return true;
    case 'response.output_text.annotation.added':
      reader.annotation(index, indexOf(event.content_index), event.annotation);
      return true;
    case 'response.output_item.added':
      if (hasItem(event)) reader.added(index, event.item);
      return true;
    case 'response.output_item.done':
      if (hasItem(event)) reader.item(index, event.item);
      return true;
    case 'response.created':
    case 'response.in_progress':
      reader.start(event.response);
      return true;
    case 'response.completed':
    case 'response.incomplete':
    case 'response.failed':
      reader.terminal(event.response);
      return true;
    case 'error':
      reader.fail(event.error ?? { message: event.message, code: event.code });
      return true;
    default:
      return isKnownNoOp(event.type);
  }
}

/** Events whose content arrives again in `output_item.done` (or that carry nothing canonical). */
function isKnownNoOp(type: string | undefined): boolean {
  return (
    type !== undefined &&
    /^response\.(queued|content_part\.(added|done)|output_text\.done|refusal\.done|function_call_arguments\.done|custom_tool_call_input\.(delta|done)|apply_patch_call_operation_diff\.(delta|done)|shell_call_command\.(added|delta|done)|reasoning_(summary_)?text\.done|reasoning_summary_part\.done)$/.test(
      type,
    )
  );
}

/**
 * Creates the parser for one streamed response: deltas of OpenAI's usual shape are read by a strict
 * hand-written scanner ({@link DeltaScanner}), every other event with exactly one `JSON.parse` (malformed JSON
 * throws a `SyntaxError` the runtime classifies as `ServerError` `invalid_stream`). An `error`
 * event or `response.failed` fails the stream with the classified error; events after the terminal
 * one are ignored; unknown event types (built-in tool progress, …) are skipped with a debug log.
 * A stream that ends without `response.completed` / `incomplete` / `failed` throws a retryable
 * `NetworkError` `stream_truncated` (the runtime ends it with `error`, keeping the content).
 */
export function createStreamParser(context: ProviderContext, builder: StreamBuilder): StreamParser {
  const reader = new ResponseReader(context, builder);
  const skipped = new Set<string>();
  const scanner = new DeltaScanner();
  return {
    onEvent(_event, data) {
      if (reader.finished || data === '' || data === '[DONE]') return;
      // Hot path: text, argument and reasoning deltas are read in place (see DeltaScanner for the
      // measured reason); every other event, and any delta the scanner does not take, goes to JSON.parse.
      if (scanner.scan(data)) {
        if (scanner.kind === textDelta) reader.text(scanner.outputIndex, scanner.contentIndex, scanner.delta);
        else if (scanner.kind === argumentsDelta) reader.toolDelta(scanner.outputIndex, scanner.delta);
        else reader.reasoning(scanner.outputIndex, scanner.delta);
        return;
      }
      // A text part's echo events carry nothing the reader takes (see isPartEcho): not parsed.
      if (isPartEcho(data)) return;
      const payload = parseJson(data) as WireEvent;
      if (typeof payload !== 'object' || payload === null) return;
      if (dispatch(reader, payload)) return;
      const type = String(payload.type);
      if (!skipped.has(type)) {
        skipped.add(type);
        context.logger.debug?.('skipped a stream event of an unknown type', {
          adapter: context.provider,
          type,
        });
      }
    },
    isComplete: () => reader.finished,
    isTerminated: () => reader.finished,
    onEnd() {
      if (reader.finished) return;
      reader.flush();
      throw createTruncatedError(
        context,
        'the body ended before response.completed, response.incomplete or response.failed',
      );
    },
  };
}
