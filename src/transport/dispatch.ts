/** The default transport's request: undici `dispatch` with a pull-based body that holds at most one chunk. */
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import {
  createBrotliDecompress,
  createGunzip,
  createInflate,
  createInflateRaw,
  constants as zlib,
} from 'node:zlib';
import type { buildConnector, Dispatcher } from 'undici';
import { LimitExceededError } from '../core/limit-exceeded.ts';
import { BodyDecodingError } from './body-errors.ts';
import { LightBody, LightResponse, type RawHeaders } from './light-response.ts';

export { BodyDecodingError } from './body-errors.ts';

/** What one request needs: the fetch-like subset the HTTP client uses. */
export interface DispatchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  /** Runs once, when undici writes the request to a socket (not while it waits for a connection). */
  onSent: () => void;
  /** Most decoded bytes that may wait unread before the body fails (default {@link maxUnreadDecodedBytes}). */
  maxUnreadBytes?: number;
}

/**
 * Most decoded bytes of a compressed body that may wait for a busy consumer. Pausing the parser
 * stops the network, but zlib still decodes the chunk it holds, and one 64 KiB chunk of a hostile
 * gzip body inflates to ~64 MB (brotli far more): past this the body fails instead of growing.
 */
export const maxUnreadDecodedBytes = 64 * 1024 * 1024;

/**
 * Socket options of the default pool. `highWaterMark: 0`: a socket reads from the kernel only when
 * the HTTP parser asks, so a paused body leaves the rest of the response in the kernel (TCP flow
 * control) instead of up to 64 KiB more per connection in this process (undici's default).
 * The price, measured: Node stops and restarts reading the socket around every read (two epoll
 * changes, which libuv batches into `io_uring_enter` calls: `strace -f -c`). A 16 KiB read-ahead
 * took 8–18% less CPU per event of a stream whose events arrive one at a time (`node
 * bench/socket-reads.ts`) but raised the peak RSS of 1,000 concurrent streams (`npm run bench --
 * --concurrency`) from 331–333 MB to 369–421 MB: kept at 0.
 * And 0 is what keeps undici 7.30 whole: with any read-ahead, a connection-close body whose parser
 * is paused for a busy consumer can read its end of file, and undici's `onHttpSocketEnd` then fails
 * its own `assert(!this.paused)` in an event handler: an uncaught exception that would end the
 * process (test/conformance/hostile-server.test.ts: 8 to 17 rows fail with 16 KiB, by run). So 0 stays, though a
 * 16 KiB read-ahead took 25–130 µs off a gateway's sequential call (`bench/README.md`, "Socket
 * read-ahead").
 */
// undici passes these to `net.connect` / `tls.connect`, which take `highWaterMark` (its types omit it).
export const socketOptions = { highWaterMark: 0 } as Partial<buildConnector.BuildOptions>;

/** The codings we decode, as fetch does (and the `accept-encoding` we send, as fetch did). */
const acceptEncoding = 'gzip, deflate, br';

/**
 * Most bytes joined for a busy consumer before the parser pauses. Measured (bench/concurrency.ts,
 * 1,000 streams): 64 KiB (what undici's fetch stream held) peaked at ~400 MB RSS, 16 KiB at ~345 MB,
 * 8 KiB at ~320 MB; drip-delivery CPU per token is at fetch's level down to 16 KiB.
 */
const maxPendingBytes = 16 * 1024;

/** Most URLs whose split {@link splitUrl} keeps (an adapter calls one or a few endpoints). */
const maxSplitUrls = 256;
const splitUrls = new Map<string, { origin: string; path: string }>();

/**
 * `url`'s origin and path (with its query), parsed once per distinct URL: an adapter sends every
 * call to the same endpoint, and `new URL` costs ~1 µs a call. Bounded: cleared when full.
 */
function splitUrl(url: string): { origin: string; path: string } {
  let split = splitUrls.get(url);
  if (split === undefined) {
    const parsed = new URL(url);
    split = { origin: parsed.origin, path: parsed.pathname + parsed.search };
    if (splitUrls.size >= maxSplitUrls) splitUrls.clear();
    splitUrls.set(url, split);
  }
  return split;
}

/** Response statuses whose response has no body (the `Response` constructor refuses one). */
const nullBodyStatuses = new Set([204, 205, 304]);

type UndiciController = Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestStart']>>[0];

/**
 * Sends one request through `dispatcher` and resolves a {@link LightResponse} at the headers (what
 * the runtime reads of a `Response`, without one: `light-response.ts`).
 *
 * Why not `fetch`: undici's fetch copies every body chunk into a Node `Readable` (64 KiB
 * high-water mark), then copies it again into a byte stream, so each open response keeps up to
 * 64 KiB (and, with small network writes, hundreds of small buffers) read ahead of its consumer.
 * With 1,000 concurrent streams that was ~110 MB. Here the body is a pulled {@link LightBody} fed straight
 * from the HTTP parser: chunks that arrive while the consumer is busy are joined for its next
 * `read()` (as fetch's stream did: fewer, larger chunks are cheaper to parse) up to 16 KiB, then
 * the parser pauses until the consumer reads; the socket (see {@link socketOptions}) reads only
 * for the parser, so a connection holds at most 16 KiB plus one socket read (≤ 64 KiB).
 *
 * Like fetch: `accept-encoding: gzip, deflate, br` unless the caller set one, and a response in
 * those codings is decoded; redirects are returned, not followed; an abort rejects the pending
 * promise, or errors the body, with the signal's reason.
 */
export function dispatchRequest(
  dispatcher: Dispatcher,
  url: string,
  init: DispatchInit,
): Promise<LightResponse> {
  return new Promise<LightResponse>((resolve, reject) => {
    const target = splitUrl(url);
    const { signal } = init;
    const maxUnreadBytes = init.maxUnreadBytes ?? maxUnreadDecodedBytes;
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    let undici: UndiciController | undefined;
    let body: LightBody | undefined;
    let decoder: BodyDecoder | undefined;
    let settled = false;
    let ended = false;
    const fail = (error: unknown) => {
      signal.removeEventListener('abort', onAbort);
      if (!settled) {
        settled = true;
        reject(error);
      } else if (!ended) {
        ended = true;
        body?.error(error);
      }
    };
    const onAbort = () => {
      undici?.abort(signal.reason);
      fail(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });

    // Chunks that arrived while no read was waiting, delivered joined on the next read (fewer,
    // larger chunks: cheaper per token), at most `maxPendingBytes` of them before the parser pauses.
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    const takePending = (): Uint8Array => {
      const joined = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      return joined;
    };
    const deliver = (chunk: Uint8Array) => {
      if (ended || body === undefined) return;
      if (body.reading) {
        body.enqueue(chunk);
        return;
      }
      pending.push(chunk);
      pendingBytes += chunk.byteLength;
      if (pendingBytes > maxUnreadBytes) {
        // Only a decoder outruns the pause below: a decompression bomb, or a consumer that stopped.
        const error = new LimitExceededError('a compressed body that decodes to unread data', maxUnreadBytes);
        pending = [];
        pendingBytes = 0;
        undici?.abort(error);
        decoder?.destroy();
        fail(error);
        return;
      }
      // Enough waits unread: stop the parser (and so the socket) until the consumer pulls.
      if (pendingBytes >= maxPendingBytes) undici?.pause();
    };
    const pull = () => {
      if (pendingBytes > 0) body?.enqueue(takePending());
      if (undici?.paused === true) undici.resume();
    };
    const finish = () => {
      signal.removeEventListener('abort', onAbort);
      if (ended) return;
      ended = true;
      if (pendingBytes > 0) body?.enqueue(takePending());
      body?.close();
    };

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(controller) {
        undici = controller;
        if (signal.aborted) controller.abort(signal.reason);
        else init.onSent();
      },
      onResponseStart(controller, statusCode, rawHeaders, statusMessage) {
        // An interim response (103 Early Hints): the final one follows.
        if (statusCode < 200) return;
        undici = controller;
        if (statusCode > 599) {
          // As `new Response` would (classified `other`: the contract's status table has any status
          // outside 2xx/4xx/5xx).
          const refused = new RangeError(`the server answered status ${statusCode}, outside 200–599`);
          controller.abort(refused);
          fail(refused);
          return;
        }
        const hasBody = !nullBodyStatuses.has(statusCode) && init.method !== 'HEAD';
        if (hasBody)
          body = new LightBody(pull, (reason) => {
            ended = true;
            signal.removeEventListener('abort', onAbort);
            undici?.abort((reason as Error | undefined) ?? new Error('response body cancelled'));
          });
        const failDecoding = (error: unknown) => {
          // Stop the body (and its socket) at the first corrupt byte; later writes are dropped.
          decoder?.destroy();
          undici?.abort(error as Error);
          fail(error);
        };
        const response = new LightResponse(
          statusCode,
          statusMessage ?? '',
          rawHeaders as RawHeaders,
          body ?? null,
        );
        if (hasBody)
          decoder = createDecoder(response.headers.get('content-encoding'), deliver, finish, failDecoding);
        settled = true;
        resolve(response);
      },
      onResponseData(_controller, chunk) {
        // undici hands over an empty chunk when it resumes a parser paused at a chunk's end.
        if (chunk.byteLength === 0) return;
        if (decoder !== undefined) decoder.write(chunk);
        else deliver(chunk);
      },
      onResponseEnd() {
        if (decoder !== undefined) decoder.end();
        else finish();
      },
      onResponseError(_controller, error) {
        fail(error);
      },
    };
    const headers: Record<string, string> = { ...init.headers };
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'accept-encoding'))
      headers['accept-encoding'] = acceptEncoding;
    try {
      dispatcher.dispatch(
        {
          origin: target.origin,
          path: target.path,
          method: init.method as Dispatcher.HttpMethod,
          headers,
          body: init.body ?? null,
        },
        handler,
      );
    } catch (error) {
      fail(error);
    }
  });
}

/** Decodes a compressed body: raw chunks in, decoded bytes out through the callbacks it was made with. */
interface BodyDecoder {
  write(chunk: Buffer): void;
  end(): void;
  /** Stops decoding (the body failed): nothing more is delivered. */
  destroy(): void;
}

/**
 * For a body in gzip, deflate or br (possibly several, applied in order): a decoder that takes
 * each raw chunk and delivers the decoded bytes. Undefined for identity
 * or an unknown coding (passed through as is, as fetch does).
 */
function createDecoder(
  contentEncoding: string | null,
  deliver: (chunk: Uint8Array) => void,
  finish: () => void,
  fail: (error: unknown) => void,
): BodyDecoder | undefined {
  if (contentEncoding === null) return undefined;
  const codings = contentEncoding
    .toLowerCase()
    .split(',')
    .map((coding) => coding.trim())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0 || codings.length > 5) return undefined;
  const decoders: Transform[] = [];
  for (const coding of codings.reverse()) {
    if (coding === 'gzip' || coding === 'x-gzip')
      decoders.push(createGunzip({ flush: zlib.Z_SYNC_FLUSH, finishFlush: zlib.Z_SYNC_FLUSH }));
    else if (coding === 'deflate') decoders.push(new DeflateDecoder());
    else if (coding === 'br')
      decoders.push(
        createBrotliDecompress({
          flush: zlib.BROTLI_OPERATION_FLUSH,
          finishFlush: zlib.BROTLI_OPERATION_FLUSH,
        }),
      );
    else return undefined;
  }
  const first = decoders[0]!;
  let last: Readable = first;
  for (const next of decoders.slice(1)) last = last.pipe(next);
  let failed = false;
  const onError = (error: unknown) => {
    if (failed) return;
    failed = true;
    fail(new BodyDecodingError(contentEncoding, error));
  };
  for (const decoder of decoders) decoder.on('error', onError);
  last.on('data', (chunk: Buffer) => deliver(chunk));
  last.on('end', finish);
  return {
    write: (chunk) => {
      if (!failed) first.write(chunk);
    },
    end: () => {
      if (!failed) first.end();
    },
    destroy: () => {
      for (const decoder of decoders) decoder.destroy();
    },
  };
}

/**
 * `deflate` as servers send it: zlib-wrapped (RFC 9110) or raw (common; browsers and undici's fetch
 * accept both). The first byte tells: a zlib header's low nibble is 8 (the deflate method).
 */
class DeflateDecoder extends Transform {
  private inner: Transform | undefined;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.inner === undefined) {
      const options = { flush: zlib.Z_SYNC_FLUSH, finishFlush: zlib.Z_SYNC_FLUSH };
      this.inner = (chunk[0]! & 0x0f) === 0x08 ? createInflate(options) : createInflateRaw(options);
      this.inner.on('data', (data: Buffer) => this.push(data));
      this.inner.on('error', (error) => this.destroy(error));
    }
    this.inner.write(chunk, () => callback());
  }

  override _flush(callback: TransformCallback): void {
    if (this.inner === undefined) return callback();
    this.inner.once('end', () => callback());
    this.inner.end();
  }

  override _destroy(error: Error | null, callback: (error: Error | null) => void): void {
    this.inner?.destroy();
    callback(error);
  }
}
