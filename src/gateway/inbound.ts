/**
 * Reading the client's request: its headers and its body as JSON, within the size limit. Served by
 * Node's HTTP server, both are read from Node's request itself (a web `Request` over it would build a `Headers` of every
 * request header and run @hono/node-server's general reader: ~10 µs a request, measured with
 * /proc CPU time per call); otherwise from the web `Request`.
 */
import { RequestFieldError } from '../codecs/fields.ts';
import { findShapeProblem, maxVisitedValues } from '../core/value-shape.ts';
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { clientClosed, GatewayError } from './errors.ts';
import { opensMoreThan, parseJson, TooManyEscapedKeysError } from '../core/json-text.ts';
import { yieldFullTurn } from '../transport/cooperative.ts';

/** A header of Node's request (lower-case `name`), repeated values joined as `Headers.get` joins them. */
export function nodeHeader(incoming: IncomingMessage, name: string): string | undefined {
  const value = incoming.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** A request header (lower-case `name`): from Node's parsed headers when served by Node's server, else from the web `Request`. */
export function headerOf(
  request: Request | undefined,
  incoming: IncomingMessage | undefined,
  name: string,
): string | undefined {
  return incoming === undefined ? (request?.headers.get(name) ?? undefined) : nodeHeader(incoming, name);
}

const tooLarge = (limit: number) =>
  new GatewayError({
    status: 413,
    errorClass: 'invalid_request',
    message: `request body exceeds ${limit} bytes`,
  });

/**
 * A body this large gives the event loop a turn between the steps that each walk all of it
 * (decoding its text, parsing it, converting it, routing it): one step of a 32 MiB body takes up
 * to ~200 ms, all of them together held every other client's streams for over half a second. A
 * body of 1 MiB takes ~5 ms a step, and a turn costs it nothing measurable.
 */
export const largeBodyBytes = 1024 * 1024;

/** The longest a request body may go without a byte by default (`gateway.body_timeout_seconds`). */
export const defaultBodyTimeoutMs = 60_000;

/** The longest a request body may take in all by default (`gateway.body_deadline_seconds`). */
export const defaultBodyDeadlineMs = 300_000;

/**
 * How long a body may take: without a byte (`idleMs`), and in all from its first read
 * (`deadlineMs`); `cancel`, aborted, ends a read of Node's request still arriving as cancelled (a
 * shutdown's grace period ended: its reply is the 503, not a cut connection).
 */
export interface BodyTiming {
  idleMs: number;
  deadlineMs: number;
  cancel?: AbortSignal | undefined;
}

/**
 * 408: the client stopped sending its body (its reply closes the connection: `errorReply`); its
 * message is also the reason a WebSocket message that stopped gives its close (`websocket-hold.ts`).
 */
export const bodyTimedOut = (idleMs: number) =>
  new GatewayError({
    status: 408,
    errorClass: 'network',
    message: `the request body sent nothing for ${idleMs / 1000} s`,
  });

/**
 * 408: the client's body still arrives past the deadline, however steadily (a body sent a byte at
 * a time holds what it sent for as long as it trickles); a WebSocket message's close reason too.
 */
export const bodyTooSlow = (deadlineMs: number) =>
  new GatewayError({
    status: 408,
    errorClass: 'network',
    message: `the request body did not arrive whole within ${deadlineMs / 1000} s`,
  });

/** The body's codings checked, each with the one value that needs no decoding beyond Node's. */
const codings = [
  ['content-encoding', 'identity'],
  ['transfer-encoding', 'chunked'],
] as const;

/**
 * Where a body's size so far is told as its bytes arrive (`body-hold.ts`): `take` throws a
 * `GatewayError` to refuse the body, and the read fails with it.
 */
export interface BodyCounter {
  take(size: number): void;
}

/**
 * Reads the body as JSON within the size limit: 413 above it, 400 for malformed JSON, 408 when
 * Node's request sends no byte for `timing.idleMs` or is still arriving `timing.deadlineMs` after
 * its read began. A declared length above the limit is refused before reading; every body is also
 * counted as it arrives (a web `Request` from an in-process caller is not held to its declared
 * length by an HTTP parser), and told to `counter` chunk by chunk.
 */
export async function readJson(
  request: Request | undefined,
  limit: number,
  incoming?: IncomingMessage,
  timing: BodyTiming = { idleMs: defaultBodyTimeoutMs, deadlineMs: defaultBodyDeadlineMs },
  counter?: BodyCounter,
): Promise<unknown> {
  const length = headerOf(request, incoming, 'content-length');
  if (Number(length ?? '0') > limit) throw tooLarge(limit);
  // A compressed body is not inflated (a small gzip body can decode to gigabytes): said plainly.
  // Nor is a transfer coding other than chunked (`Transfer-Encoding: gzip, chunked`: Node removes
  // the chunking only).
  for (const [name, plain] of codings) {
    const coding = headerOf(request, incoming, name)?.trim().toLowerCase() ?? '';
    if (coding === '' || coding === plain) continue;
    if (
      coding
        .split(',')
        .some((part) => part.trim() !== '' && part.trim() !== plain && part.trim() !== 'identity')
    )
      throw new GatewayError({
        status: 415,
        errorClass: 'invalid_request',
        message: `${name} '${coding.slice(0, 40)}' is not accepted: send the body uncompressed`,
      });
  }
  let bytes: Buffer;
  if (incoming !== undefined && !incoming.readableDidRead)
    bytes = await readIncoming(incoming, limit, timing, counter);
  else if (request !== undefined)
    bytes = await readRequest(request, limit, length !== undefined, incoming, counter);
  else throw new Error('the request body was read before the gateway read it');
  // Invalid UTF-8 is refused, as the providers refuse it: decoded leniently, its bytes would reach
  // the upstream silently altered (U+FFFD in place of each bad sequence).
  if (!isUtf8(bytes))
    throw new GatewayError({
      status: 400,
      errorClass: 'invalid_request',
      message: 'the request body is not valid UTF-8',
    });
  let text = bytes.toString('utf8');
  // A byte-order mark is not JSON; TextDecoder drops it, so clients send it.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (bytes.byteLength > largeBodyBytes) await yieldFullTurn();
  let body: unknown;
  const tooMany = tooManyValues(text);
  if (tooMany !== undefined) throw new RequestFieldError('body', `body: ${tooMany}`);
  try {
    body = parseJson(text) as unknown;
  } catch (error) {
    throw new GatewayError({
      status: 400,
      errorClass: 'invalid_request',
      message:
        error instanceof TooManyEscapedKeysError ? error.message : 'the request body is not valid JSON',
    });
  }
  // Before any decoder walks it (some recursively): absurd nesting or a `__proto__` key is a 400
  // naming the client's own path, never a stack overflow (a 500) in whichever walk meets it first.
  const problem = findShapeProblem(body);
  if (problem !== undefined) {
    // The client's own keys, each cut, and at most the first and last few of a deep path.
    const keys = problem.path.map((key) => String(key).slice(0, 40));
    const shortened = keys.length <= 12 ? keys : [...keys.slice(0, 6), '…', ...keys.slice(-5)];
    const field = keys.length === 0 ? 'body' : shortened.join('.');
    throw new RequestFieldError(field, `${field}: ${problem.message}`);
  }
  return body;
}

/**
 * Why JSON `text` is refused before its parse, or undefined: a large text of millions of `{}` would
 * cost the parse a GB of objects before the shape check refuses it (a short one cannot hold enough
 * to matter). For request bodies and WebSocket messages alike.
 */
export function tooManyValues(text: string): string | undefined {
  if (text.length <= 1024 * 1024 || !opensMoreThan(text, maxVisitedValues)) return undefined;
  return `more than ${maxVisitedValues} nested values`;
}

/** A body read its `cancel` ended: the call's own cancellation (`generate.ts` answers a shutdown's 503). */
const cancelledRead = () =>
  new GatewayError({
    status: 499,
    errorClass: 'cancelled',
    message: 'the request was cancelled while its body was arriving',
  });

/**
 * Node's request body, counted chunk by chunk (and told to `counter`, whose refusal fails the read);
 * a client that leaves first rejects, and so does one that sends nothing for `idleMs` (one timer,
 * refreshed per chunk) or whose chunk comes past `deadlineMs` (the clock read per chunk, no second
 * timer: a body that goes quiet past it is the idle timer's, so a trickler is cut by
 * `deadlineMs + idleMs` at the latest), or one still arriving when `cancel` aborts.
 */
function readIncoming(
  incoming: IncomingMessage,
  limit: number,
  { idleMs, deadlineMs, cancel }: BodyTiming,
  counter: BodyCounter | undefined,
): Promise<Buffer> {
  // Gone already: no event would settle the read.
  if (incoming.destroyed || incoming.errored !== null) return Promise.reject(clientClosed());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const deadline = performance.now() + deadlineMs;
    // Made only for a body still arriving when `cancel` is given (none for one that came whole).
    let onCancel: (() => void) | undefined;
    const stop = (error: unknown) => {
      // The rest flows to no listener (discarded); the server answers and closes or drains.
      incoming.off('data', onData);
      clearTimeout(idle);
      if (onCancel !== undefined) cancel!.removeEventListener('abort', onCancel);
      chunks.length = 0;
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) return stop(tooLarge(limit));
      if (performance.now() > deadline) return stop(bodyTooSlow(deadlineMs));
      if (counter !== undefined) {
        try {
          counter.take(size);
        } catch (error) {
          return stop(error);
        }
      }
      chunks.push(chunk);
      idle.refresh();
    };
    const idle = setTimeout(() => stop(bodyTimedOut(idleMs)), idleMs);
    // Only a body not yet whole listens (one that came with its headers costs nothing more).
    if (cancel !== undefined && !incoming.complete) {
      onCancel = () => stop(cancelledRead());
      cancel.addEventListener('abort', onCancel);
    }
    incoming.on('data', onData);
    // `on`, not `once`, for `end` and `close`: each is emitted once per request, and `once` wraps
    // its listener in a bound closure (~0.6k instructions a call each under callgrind).
    incoming.on('end', () => {
      clearTimeout(idle);
      if (onCancel !== undefined) cancel!.removeEventListener('abort', onCancel);
      // The listener (and its chunks) would otherwise live as long as the request: a 32 MiB body
      // held twice for the whole upstream call.
      incoming.off('data', onData);
      const whole = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      chunks.length = 0;
      resolve(whole);
    });
    // An aborted request is its client leaving (Node emits `aborted`/`error` with ECONNRESET).
    incoming.once('error', () => {
      clearTimeout(idle);
      if (onCancel !== undefined) cancel!.removeEventListener('abort', onCancel);
      reject(clientClosed());
    });
    // `close` follows `end` on every request: the error (and its stack, ~30 µs) only when the body did not end.
    incoming.on('close', () => {
      clearTimeout(idle);
      if (onCancel !== undefined) cancel!.removeEventListener('abort', onCancel);
      if (!incoming.readableEnded) reject(clientClosed());
    });
  });
}

/**
 * A web `Request`'s body: whole when its length is declared, else counted chunk by chunk. A read
 * that fails because the client left (its Node request destroyed, or the `Request`'s signal
 * aborted) is the client's 499, not a gateway error.
 */
async function readRequest(
  request: Request,
  limit: number,
  declared: boolean,
  incoming: IncomingMessage | undefined,
  counter: BodyCounter | undefined,
): Promise<Buffer> {
  try {
    return await readRequestBody(request, limit, declared, counter);
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    if (request.signal.aborted || incoming?.destroyed === true) throw clientClosed();
    throw error;
  }
}

async function readRequestBody(
  request: Request,
  limit: number,
  declared: boolean,
  counter: BodyCounter | undefined,
): Promise<Buffer> {
  if (declared) {
    const bytes = Buffer.from(await request.arrayBuffer());
    if (bytes.byteLength > limit) throw tooLarge(limit);
    counter?.take(bytes.byteLength);
    return bytes;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body !== null) {
    for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > limit) throw tooLarge(limit);
      counter?.take(size);
      chunks.push(chunk);
    }
  }
  return Buffer.concat(chunks, size);
}
