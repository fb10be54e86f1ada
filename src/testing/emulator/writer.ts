/** Writes a response plan to the socket, applying byte- and event-level faults. */
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeEventStreamMessage } from '../../transport/event-stream.ts';
import {
  corruptFrame,
  malformedData,
  type ResponsePlan,
  serializeFrame,
  serializeJsonArray,
  type WireFrame,
} from './frames.ts';
import type { EmulatorFault } from './types.ts';

/** One write: the byte range `[start, end)` of the body, and whether it ends an event. */
export interface WritePiece {
  start: number;
  end: number;
  endsEvent: boolean;
}

/** The writes to make and how the response finishes. */
export interface WriteSchedule {
  pieces: WritePiece[];
  ending: 'end' | 'disconnect' | 'stall';
}

/** Encodes the plan's body as one buffer per event, corrupting the event named by `malformedAtEvent`. */
export function encodeEvents(plan: ResponsePlan, fault: EmulatorFault | undefined): Buffer[] {
  if (plan.body.kind === 'whole') return [Buffer.from(plan.body.text, 'utf8')];
  if (plan.body.kind === 'bytes') return [Buffer.from(plan.body.bytes)];
  const malformedIndex = (fault?.malformedAtEvent ?? 0) - 1;
  if (plan.body.kind === 'event-stream') {
    return plan.body.frames.map((frame, index) => encodeEventMessage(frame, index === malformedIndex));
  }
  if (plan.body.kind === 'json-array') {
    return serializeJsonArray(plan.body.items, malformedIndex).map((event) => Buffer.from(event, 'utf8'));
  }
  return plan.body.frames.map((frame, index) =>
    Buffer.from(serializeFrame(index === malformedIndex ? corruptFrame(frame) : frame), 'utf8'),
  );
}

/** One event-stream message of a frame (`exception:<type>` events become exception messages). */
function encodeEventMessage(frame: WireFrame, malformed: boolean): Buffer {
  const event = 'raw' in frame ? 'chunk' : (frame.event ?? 'chunk');
  const data = malformed ? malformedData : 'raw' in frame ? frame.raw : frame.data;
  const headers: Record<string, string> = event.startsWith('exception:')
    ? {
        ':exception-type': event.slice('exception:'.length),
        ':content-type': 'application/json',
        ':message-type': 'exception',
      }
    : { ':event-type': event, ':content-type': 'application/json', ':message-type': 'event' };
  return Buffer.from(encodeEventStreamMessage(headers, data));
}

function splitOffsets(split: EmulatorFault['splitBytes'], total: number): number[] {
  if (split === undefined) return [];
  if (split === 'every-byte') return Array.from({ length: Math.max(0, total - 1) }, (_, index) => index + 1);
  if (Array.isArray(split)) return split.filter((offset) => offset > 0 && offset < total);
  const size = Math.max(1, Math.floor(split.size));
  const offsets: number[] = [];
  for (let offset = size; offset < total; offset += size) offsets.push(offset);
  return offsets;
}

/**
 * Plans the writes for events of the given byte sizes: truncation by `disconnectAfterEvents`,
 * `stallAfterEvents` and `disconnectAfterBytes`, cut points from `splitBytes` and event boundaries.
 */
export function planPieces(eventSizes: number[], fault: EmulatorFault = {}): WriteSchedule {
  let eventCount = eventSizes.length;
  let ending: WriteSchedule['ending'] = 'end';
  const { stallAfterEvents, disconnectAfterEvents, disconnectAfterBytes } = fault;
  if (stallAfterEvents !== undefined) {
    eventCount = Math.min(eventCount, Math.max(0, stallAfterEvents));
    ending = 'stall';
  }
  if (disconnectAfterEvents !== undefined && disconnectAfterEvents <= eventCount) {
    eventCount = Math.max(0, disconnectAfterEvents);
    ending = 'disconnect';
  }
  const eventEnds: number[] = [];
  let total = 0;
  for (const size of eventSizes.slice(0, eventCount)) {
    total += size;
    eventEnds.push(total);
  }
  if (disconnectAfterBytes !== undefined && disconnectAfterBytes < total) {
    total = Math.max(0, disconnectAfterBytes);
    ending = 'disconnect';
  }
  const eventEndSet = new Set(eventEnds);
  const cuts = new Set([
    ...eventEnds.filter((offset) => offset < total),
    ...splitOffsets(fault.splitBytes, total),
  ]);
  const sorted = [...cuts].sort((left, right) => left - right);
  const pieces: WritePiece[] = [];
  let start = 0;
  for (const end of [...sorted, total]) {
    if (end > start) pieces.push({ start, end, endsEvent: eventEndSet.has(end) });
    start = end;
  }
  return { pieces, ending };
}

function write(response: ServerResponse, chunk: Buffer): Promise<void> {
  return new Promise((resolve) => {
    response.write(chunk, () => resolve());
  });
}

/**
 * Writes `plan` to `response` with `fault` applied. Resolves when the response ended, the socket was
 * destroyed, or the writer stalled; rejects with an AbortError when `signal` aborts during a delay.
 */
export async function writeResponse(
  response: ServerResponse,
  plan: ResponsePlan,
  fault: EmulatorFault | undefined,
  signal: AbortSignal,
): Promise<void> {
  if (fault?.delayHeadersMs) await sleep(fault.delayHeadersMs, undefined, { signal });
  const events = encodeEvents(plan, fault);
  const body = Buffer.concat(events);
  const schedule = planPieces(
    events.map((event) => event.length),
    fault,
  );
  const headers = { ...plan.headers };
  if ((plan.body.kind === 'whole' || plan.body.kind === 'bytes') && schedule.ending === 'end')
    headers['content-length'] = String(body.length);
  response.writeHead(plan.status, headers);
  response.flushHeaders();
  const lastPiece = schedule.pieces.at(-1);
  for (const piece of schedule.pieces) {
    if (signal.aborted) return;
    await write(response, body.subarray(piece.start, piece.end));
    if (fault?.dripMs && piece.endsEvent && piece !== lastPiece)
      await sleep(fault.dripMs, undefined, { signal });
  }
  if (schedule.ending === 'end') response.end();
  else if (schedule.ending === 'disconnect') response.socket?.destroy();
}
