/** Drains a canonical event stream for tests and tools, keeping the error instead of throwing. */
import type { StreamEvent } from '../core/events.ts';
import type { CanonicalResponse } from '../core/request.ts';

/** What a stream produced: every event, the error it raised (if any), and the `finish` response. */
export interface CollectedStream {
  events: StreamEvent[];
  error: unknown;
  /** The response carried by the last event when it is `finish` (it always is under the contract). */
  response: CanonicalResponse | undefined;
}

/** Iterates `stream` to its end and returns what it produced; never throws the stream's error. */
export async function collectStream(stream: AsyncIterable<StreamEvent>): Promise<CollectedStream> {
  const events: StreamEvent[] = [];
  let error: unknown;
  try {
    for await (const event of stream) events.push(event);
  } catch (caught) {
    error = caught;
  }
  const finish = events.at(-1);
  return { events, error, response: finish?.type === 'finish' ? finish.response : undefined };
}
