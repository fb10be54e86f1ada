/** The recording side of a cassette: forwards each request to the real fetch and keeps a redacted copy. */

import {
  convertRequest,
  convertResponse,
  createExchangeRedaction,
  snapshotRequest,
  snapshotResponse,
} from './capture.ts';
import type { CassetteExchange, FetchFunction } from './types.ts';

/** One request in flight or done; its exchange is set once the whole response body was read. */
interface RecordingSlot {
  exchange?: CassetteExchange;
  settled: Promise<void>;
}

/** A recording `fetch` and the exchanges it captured. */
export interface Recorder {
  /** Sends through the real fetch; the caller reads the live response while a copy is recorded. */
  fetch: FetchFunction;
  /** The exchanges whose responses were fully read so far, in request order. */
  exchanges(): CassetteExchange[];
  /** Waits for every response in flight to be read, then returns all exchanges in request order. */
  settled(): Promise<CassetteExchange[]>;
}

/**
 * Creates a recorder. Each response is cloned (a tee of its body), so the caller still streams it
 * live while the copy is read chunk by chunk; redaction happens before an exchange is kept. A request
 * that fails before any response is not recorded.
 */
export function createRecorder(realFetch: FetchFunction, headerNames: ReadonlySet<string>): Recorder {
  const slots: RecordingSlot[] = [];

  async function recordFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const forwardRequest = bodyWasMoved(input, init);
    const request = new Request(input, init);
    const requestSnapshot = await snapshotRequest(request);
    let settle: () => void = () => {};
    const slot: RecordingSlot = { settled: new Promise<void>((resolve) => (settle = resolve)) };
    slots.push(slot);
    let response: Response;
    try {
      response = await (forwardRequest ? realFetch(request) : realFetch(input, init));
    } catch (error) {
      settle();
      throw error;
    }
    snapshotResponse(response.clone())
      .then((responseSnapshot) => {
        const redaction = createExchangeRedaction(headerNames, requestSnapshot, responseSnapshot);
        slot.exchange = {
          request: convertRequest(requestSnapshot, redaction),
          response: convertResponse(responseSnapshot, redaction),
        };
      })
      .catch(() => {
        // A body that could not be read at all is left out; the caller sees the error itself.
      })
      .finally(settle);
    return response;
  }

  const recorded = (): CassetteExchange[] =>
    slots.flatMap((slot) => (slot.exchange === undefined ? [] : [slot.exchange]));

  return {
    fetch: recordFetch,
    exchanges: recorded,
    async settled() {
      await Promise.all(slots.map((slot) => slot.settled));
      return recorded();
    },
  };
}

/**
 * True when building the snapshot `Request` takes the body away from the caller's arguments (a
 * `Request` input with a body, or a one-shot body such as a stream); otherwise the real fetch gets
 * the caller's own arguments, so extensions such as undici's `dispatcher` option still reach it.
 */
function bodyWasMoved(input: string | URL | Request, init?: RequestInit): boolean {
  const body = init?.body;
  if (body !== undefined && body !== null) return !isReusableBody(body);
  return input instanceof Request && input.body !== null;
}

function isReusableBody(body: BodyInit): boolean {
  return (
    typeof body === 'string' ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body) ||
    body instanceof Blob ||
    body instanceof URLSearchParams ||
    body instanceof FormData
  );
}
