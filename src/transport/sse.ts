/** Incremental SSE decoding of a byte stream (eventsource-parser under a UTF-8 stream decoder). */
import { createParser, type EventSourceParser } from 'eventsource-parser';

/** Receives each decoded SSE event: its `event:` name (if any) and its `data:` text. */
export type SseHandler = (event: string | undefined, data: string) => void;

/**
 * A push decoder: `feed(bytes)` as chunks arrive, `end()` at the end of the body. Handles LF, CR
 * and CRLF line ends, multi-line `data:`, comments, `event:` names, UTF-8 characters split across
 * chunks, and a last event without the trailing blank line (flushed by `end()`).
 */
export class SseDecoder {
  private readonly decoder = new TextDecoder();
  private readonly parser: EventSourceParser;

  constructor(handler: SseHandler) {
    this.parser = createParser({ onEvent: (message) => handler(message.event, message.data) });
  }

  /** Feeds raw bytes. */
  feed(bytes: Uint8Array): void {
    const text = this.decoder.decode(bytes, { stream: true });
    if (text !== '') this.parser.feed(text);
  }

  /** Feeds already-decoded text. */
  feedText(text: string): void {
    this.parser.feed(text);
  }

  /** Flushes a trailing partial character and dispatches a last event that lacked its blank line. */
  end(): void {
    const rest = this.decoder.decode();
    if (rest !== '') this.parser.feed(rest);
    // eventsource-parser (per the SSE spec) drops an event without its blank line; we keep it.
    this.parser.feed('\n\n');
  }
}

/** Decodes a whole SSE text into `[event, data]` pairs (for tests and tools). */
export function decodeSseText(text: string): Array<{ event: string | undefined; data: string }> {
  const events: Array<{ event: string | undefined; data: string }> = [];
  const decoder = new SseDecoder((event, data) => events.push({ event, data }));
  decoder.feedText(text);
  decoder.end();
  return events;
}
