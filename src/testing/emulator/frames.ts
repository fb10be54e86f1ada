/** Response plans and SSE frame serialization shared by every response builder. */

import { createFrame, serializeFrame } from '../../codecs/frames.ts';
import type { WireFrame } from '../../codecs/types.ts';

export { createFrame, serializeFrame, type WireFrame };

/** Everything needed to write one response, before faults are applied. */
export interface ResponsePlan {
  status: number;
  headers: Record<string, string>;
  /**
   * A whole body, a stream of SSE frames, or a streamed JSON array of JSON texts (Gemini's
   * `streamGenerateContent` without `alt=sse`).
   */
  body:
    | { kind: 'whole'; text: string }
    | { kind: 'bytes'; bytes: Uint8Array }
    | { kind: 'frames'; frames: WireFrame[] }
    | { kind: 'event-stream'; frames: WireFrame[] }
    | { kind: 'json-array'; items: string[] };
}

/** Headers of an AWS event-stream response (Bedrock ConverseStream, InvokeModelWithResponseStream). */
export const eventStreamHeaders: Record<string, string> = {
  'content-type': 'application/vnd.amazon.eventstream',
  'x-amzn-requestid': '00000000-0000-4000-8000-000000000000',
};

/**
 * A streamed plan of AWS event-stream messages: each structured frame becomes one message whose
 * `:event-type` is the frame's `event` and whose payload is its `data`; an `event` of the form
 * `exception:<type>` becomes an exception message (`:message-type: exception`).
 */
export function createEventStreamPlan(
  frames: WireFrame[],
  status = 200,
  headers: Record<string, string> = {},
): ResponsePlan {
  return { status, headers: { ...eventStreamHeaders, ...headers }, body: { kind: 'event-stream', frames } };
}

/** A whole binary body (e.g. recorded event-stream bytes). */
export function createBytesPlan(
  bytes: Uint8Array,
  headers: Record<string, string>,
  status = 200,
): ResponsePlan {
  return { status, headers, body: { kind: 'bytes', bytes } };
}

/** The invalid JSON that `malformedAtEvent` puts in place of an event's data. */
export const malformedData = '{"type": garbage';

/** Headers of every SSE response. */
export const sseHeaders: Record<string, string> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
};

/** Headers of every JSON response. */
export const jsonHeaders: Record<string, string> = { 'content-type': 'application/json' };

/**
 * Serializes the items of a streamed JSON array, one string per event: `[` before the first item,
 * `,\r\n` before each later one, and a closing `]` as the last event. `malformedIndex` (0-based)
 * names an item to replace with invalid JSON.
 */
export function serializeJsonArray(items: string[], malformedIndex = -1): string[] {
  const events = items.map(
    (item, index) => `${index === 0 ? '[' : ',\r\n'}${index === malformedIndex ? malformedData : item}`,
  );
  events.push(items.length === 0 ? '[]' : ']');
  return events;
}

/** Returns the frame with its data replaced by invalid JSON (a raw frame keeps its other lines). */
export function corruptFrame(frame: WireFrame): WireFrame {
  if (!('raw' in frame)) return { ...frame, data: malformedData };
  let replaced = false;
  const lines = frame.raw.split('\n').flatMap((line) => {
    if (!line.startsWith('data:')) return [line];
    if (replaced) return [];
    replaced = true;
    return [`data: ${malformedData}${line.endsWith('\r') ? '\r' : ''}`];
  });
  return { raw: lines.join('\n') };
}

/** Splits raw SSE text into verbatim frames, each ending with its blank line; concatenated they give back `text`. */
export function splitRawSse(text: string): WireFrame[] {
  const frames: WireFrame[] = [];
  const boundary = /\r?\n\r?\n/g;
  let start = 0;
  for (let match = boundary.exec(text); match !== null; match = boundary.exec(text)) {
    const end = match.index + match[0].length;
    frames.push({ raw: text.slice(start, end) });
    start = end;
  }
  if (start < text.length) frames.push({ raw: text.slice(start) });
  return frames;
}

/** A whole-body plan: `body` as JSON (strings are sent as they are). */
export function createJsonPlan(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): ResponsePlan {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return { status, headers: { ...jsonHeaders, ...headers }, body: { kind: 'whole', text } };
}

/** A streamed plan of JSON texts sent as one JSON array, item by item, as `application/json`. */
export function createJsonArrayPlan(
  items: string[],
  status = 200,
  headers: Record<string, string> = {},
): ResponsePlan {
  return { status, headers: { ...jsonHeaders, ...headers }, body: { kind: 'json-array', items } };
}

/** A streamed plan of SSE frames. */
export function createStreamPlan(
  frames: WireFrame[],
  status = 200,
  headers: Record<string, string> = {},
): ResponsePlan {
  return { status, headers: { ...sseHeaders, ...headers }, body: { kind: 'frames', frames } };
}
