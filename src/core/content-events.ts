/**
 * Where a stream's content begins — one rule for the router (which fails over only before it) and
 * the gateway (which sends its first byte only at it).
 */
import type { StreamEvent } from './events.ts';

/**
 * Most events held back before the first content. Past it the stream counts as begun (the router
 * no longer fails over, the gateway sends its headers): an upstream that opens part after empty part
 * (300,000 empty text blocks: 60 MB held, ~580 MB of memory, nothing sent for 5 s) is passed on as
 * it comes instead of held without bound. A real preamble is a few events.
 */
export const maxHeldEvents = 1024;

/**
 * Whether an event is content a consumer may act on. Not content: the preamble, an early usage, a
 * text part or tool call opened with nothing in it (Anthropic opens a block in the packet of
 * `message_start`, and may report an overload right after), such a part the runtime closed because
 * the call failed, and a failed finish. A text part's end is never content: a consumer asks only
 * until the first content, and a delta is content, so the end it sees closes an empty part. A tool
 * call's normal end is content (a call with no arguments has no delta). A reasoning part's start is
 * content: a model may think for minutes before anything else, and a client must have its headers
 * meanwhile.
 */
export function isContentEvent(event: StreamEvent): boolean {
  switch (event.type) {
    case 'message-start':
    case 'usage':
    case 'text-start':
    case 'text-end':
    case 'tool-call-start':
      return false;
    case 'tool-call-end':
      return event.incomplete !== true;
    case 'finish':
      return event.response.finishReason !== 'error';
    default:
      return true;
  }
}
