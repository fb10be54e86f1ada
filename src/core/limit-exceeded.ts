/**
 * What an upstream sent grew past one of the runtime's size limits: an SSE event
 * (`transport/sse.ts`), a decoded body waiting unread (`transport/dispatch.ts`), a streamed reply's
 * deltas (`core/stream-builder.ts`). Raised where the limit is held; classified in one way
 * (`responseTooLarge`: `server_error` `response_too_large`, never retried), wherever it surfaces.
 */
export class LimitExceededError extends Error {
  override name = 'LimitExceededError';
  /** What grew too large, as the classified error names it (`an SSE event`). */
  readonly what: string;
  readonly limit: number;
  readonly unit: 'bytes' | 'characters';

  constructor(what: string, limit: number, unit: 'bytes' | 'characters' = 'bytes') {
    super(`${what} exceeded the limit of ${limit} ${unit}`);
    this.what = what;
    this.limit = limit;
    this.unit = unit;
  }
}
