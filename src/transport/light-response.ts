import { parseJson } from '../core/json-text.ts';
/**
 * The default transport's response: the part of a WHATWG `Response` the runtime reads (status,
 * headers by name, a body read chunk by chunk), without one. Per call, `new Response(stream)` with
 * a `Headers` and a `ReadableStream` cost ~25–35 µs of webidl conversion and stream set-up
 * (`npm run bench:fixed-cost`: the largest item of an adapter call's fixed cost after the ids);
 * this reads undici's parsed headers in place and hands chunks straight to the one reader.
 */

/** What the runtime reads of a response: a standard `Response` (a custom fetch) has it too. */
export interface HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };
  readonly body: HttpBody | null;
}

/** A response body read once, chunk by chunk (a `ReadableStream<Uint8Array>` has the same shape). */
export interface HttpBody {
  getReader(): HttpBodyReader;
  cancel(reason?: unknown): Promise<void>;
}

/** The reader of an {@link HttpBody}. */
export interface HttpBodyReader {
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  cancel(reason?: unknown): Promise<void>;
  /**
   * True once a read can only answer done (the body ended, nothing left to read); a reader that
   * cannot tell (a web stream's) leaves it undefined. Read by a caller deciding whether to wait for
   * the end, without a read and its timer.
   */
  readonly ended?: boolean;
}

/** undici's parsed headers: lower-case names, repeated ones as arrays. */
export type RawHeaders = Record<string, string | string[] | undefined>;

/** Header lookup over undici's parsed headers (names are lower case there; lookups are not case-sensitive). */
export class LightHeaders {
  private readonly raw: RawHeaders;

  constructor(raw: RawHeaders) {
    this.raw = raw;
  }

  get(name: string): string | null {
    const value = this.raw[name] ?? this.raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  getSetCookie(): string[] {
    const value = this.raw['set-cookie'];
    return value === undefined ? [] : Array.isArray(value) ? [...value] : [value];
  }
}

const doneResult: ReadableStreamReadResult<Uint8Array> = { done: true, value: undefined };

/**
 * A pulled body: the transport calls {@link enqueue} / {@link close} / {@link error}; `pull` runs
 * when a read finds nothing queued (the transport then enqueues what it joined, or resumes the
 * socket), `onCancel` when the reader gives up. As a `ReadableStream` with a high-water mark of 0:
 * chunks enqueued with no read waiting are read first, an error drops them.
 */
export class LightBody implements HttpBody, HttpBodyReader {
  private waiting: ((result: ReadableStreamReadResult<Uint8Array>) => void) | undefined;
  private failWaiting: ((error: unknown) => void) | undefined;
  private queued: Uint8Array[] = [];
  private closed = false;
  private failure: { error: unknown } | undefined;
  private locked = false;
  private readonly pull: () => void;
  private readonly onCancel: (reason: unknown) => void;

  constructor(pull: () => void, onCancel: (reason: unknown) => void) {
    this.pull = pull;
    this.onCancel = onCancel;
  }

  /** Whether a read is waiting for a chunk. */
  get reading(): boolean {
    return this.waiting !== undefined;
  }

  get ended(): boolean {
    return this.closed && this.queued.length === 0;
  }

  getReader(): HttpBodyReader {
    if (this.locked) throw new TypeError('the body is already being read');
    this.locked = true;
    return this;
  }

  read(): Promise<ReadableStreamReadResult<Uint8Array>> {
    if (this.failure !== undefined) return Promise.reject(this.failure.error);
    if (this.queued.length > 0) return Promise.resolve({ done: false, value: this.queued.shift()! });
    if (this.closed) return Promise.resolve(doneResult);
    // One read at a time (its one waiting slot): a second would leave the first unsettled forever.
    if (this.waiting !== undefined) return Promise.reject(new TypeError('a read is already pending'));
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failWaiting = reject;
      this.pull();
    });
  }

  /** Hands `chunk` to the waiting read, or queues it for the next. */
  enqueue(chunk: Uint8Array): void {
    if (this.closed || this.failure !== undefined) return;
    const resolve = this.waiting;
    if (resolve === undefined) {
      this.queued.push(chunk);
      return;
    }
    this.waiting = undefined;
    this.failWaiting = undefined;
    resolve({ done: false, value: chunk });
  }

  close(): void {
    if (this.closed || this.failure !== undefined) return;
    this.closed = true;
    this.settleWaiting();
  }

  error(error: unknown): void {
    if (this.closed || this.failure !== undefined) return;
    this.failure = { error };
    this.queued = [];
    const reject = this.failWaiting;
    this.waiting = undefined;
    this.failWaiting = undefined;
    reject?.(error);
  }

  cancel(reason?: unknown): Promise<void> {
    this.queued = [];
    if (!this.closed && this.failure === undefined) {
      this.closed = true;
      this.onCancel(reason);
    }
    this.settleWaiting();
    return Promise.resolve();
  }

  private settleWaiting(): void {
    const resolve = this.waiting;
    this.waiting = undefined;
    this.failWaiting = undefined;
    resolve?.(doneResult);
  }
}

/** The response of the default transport. */
export class LightResponse implements HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: LightHeaders;
  readonly body: LightBody | null;

  constructor(status: number, statusText: string, headers: RawHeaders, body: LightBody | null) {
    this.status = status;
    this.statusText = statusText;
    this.headers = new LightHeaders(headers);
    this.body = body;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  /** The whole body as text (UTF-8). */
  async text(): Promise<string> {
    if (this.body === null) return '';
    const reader = this.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return decodeUtf8(chunks, size);
      chunks.push(value);
      size += value.byteLength;
    }
  }

  async json(): Promise<unknown> {
    return parseJson(await this.text());
  }
}

/** Decodes whole bodies in one call (Node's streaming decode goes through ICU: ~3× slower, see sse.ts). */
const bodyDecoder = new TextDecoder();

/**
 * The bytes of `chunks` (`size` in all) as UTF-8 text, a leading BOM dropped (as `Response.text()`).
 * At the end the chunks, their joined copy and the text are held at once (~4× the body at most,
 * against ~3× when each chunk was decoded as it came): bodies read whole are bounded by the
 * adapter's `maxBodyBytes`.
 */
export function decodeUtf8(chunks: readonly Uint8Array[], size: number): string {
  if (chunks.length === 0) return '';
  return bodyDecoder.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
}
