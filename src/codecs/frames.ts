/** SSE frame building and serialization shared by every encoder (gateway and emulator alike). */
import type { WireFrame } from './types.ts';

/** Builds a structured frame whose data is `payload` as JSON, with `event` when given. */
export function createFrame(payload: unknown, event?: string): WireFrame {
  const data = JSON.stringify(payload);
  return event === undefined ? { data } : { event, data };
}

/**
 * Serializes a frame: `event: <type>\n` (when present), then one `data: <line>\n` per line of the data
 * (split on CRLF, CR or LF, as SSE readers do), then a blank line; raw frames verbatim.
 */
export function serializeFrame(frame: WireFrame): string {
  if ('raw' in frame) return frame.raw;
  const eventLine = frame.event === undefined ? '' : `event: ${frame.event}\n`;
  if (!/[\r\n]/.test(frame.data)) return `${eventLine}data: ${frame.data}\n\n`;
  const dataLines = frame.data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join('');
  return `${eventLine}${dataLines}\n`;
}
