/**
 * The rows of the hostile-server matrix: one way a server can misbehave on the wire, and what every
 * adapter must end with, on `stream()` and `complete()` (see hostile-server.test.ts for the oracle).
 */
import type { Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { ErrorClass } from '../../src/core/errors/error-class.ts';
import { drip, respond, responseHead } from '../support/hostile-server.ts';

/** The two ways to call an adapter. */
export type Mode = 'stream' | 'complete';

/** A classified error the call must end with. */
export interface ExpectedError {
  errorClass: ErrorClass;
  retryable: boolean;
  providerCode?: string;
}

/**
 * `ok`: a correct response holding the scripted text; `any`: an answer or any classified error
 * (the row tests only the universal oracle: bounded, classified, invariants, no leak); else one of
 * the accepted errors.
 */
export type Expected = 'ok' | 'any' | ExpectedError | readonly ExpectedError[];

/** What a row's server knows about the call it answers. */
export interface FaultContext {
  mode: Mode;
  /** The request head (it carries the API key: rows echo it back). */
  head: string;
  /** A correct answer for this protocol and mode, recorded from the emulator. */
  ok: { contentType: string; body: Buffer };
  /** The start of that answer: for a stream, the events up to the first text delta ("Hello "). */
  prefix: Buffer;
  /** The protocol's correct answers in both forms (whatever the mode). */
  recorded: { json: Buffer; sse: Buffer };
}

/** One row of the matrix. */
export interface Fault {
  name: string;
  serve(socket: Socket, context: FaultContext): void;
  expect: Expected | ((mode: Mode) => Expected);
  /** On stream(), the text delivered before the fault is on the `finish` response. */
  keepsPrefix?: boolean;
  /** How many requests the server must see (retries included); unchecked when absent. */
  attempts?: number;
  /** With `ok`: a text the answer must hold (beyond the scripted start). */
  text?: string;
  /**
   * Run this row's cases one at a time, each within the same bound, on one adapter per wire
   * protocol: rows whose every case is heavy (20 MB, 100k levels, thousands of writes), where ten at
   * once outran the bound on a loaded machine.
   */
  oneAtATime?: boolean;
  /** Adapter options for this row (small limits). */
  options?: {
    maxEventBytes?: number;
    maxBodyBytes?: number;
    timeout?: number;
    firstByteTimeout?: number;
    idleTimeout?: number;
  };
}

export const json = ['content-type', 'application/json'] as const;
export const sse = ['content-type', 'text/event-stream'] as const;

export const network: ExpectedError = { errorClass: 'network', retryable: true };
export const truncated: ExpectedError = {
  errorClass: 'network',
  retryable: true,
  providerCode: 'stream_truncated',
};
export const invalid: ExpectedError = { errorClass: 'server_error', retryable: true };
export const invalidRequest: ExpectedError = { errorClass: 'invalid_request', retryable: false };
export const serverError: ExpectedError = { errorClass: 'server_error', retryable: true };
const unexpectedStatus: ExpectedError = { errorClass: 'other', retryable: false };
/** Rows moving 20 MB or parsing 100k levels per case (run one case at a time): room for a loaded machine. */
const bulk = { timeout: 20_000, firstByteTimeout: 15_000, idleTimeout: 15_000 };
/**
 * The limit a row that waits on one timer sets for it: the row's own cases all end on that timer,
 * so only a timer firing too late (a hang) could fail, never one firing early.
 */
export const timerBoundMs = 250;

/** The correct answer, with its own content type. */
export function answer(
  socket: Socket,
  context: FaultContext,
  extra: Array<readonly [string, string]> = [],
): void {
  respond(socket, 200, [['content-type', context.ok.contentType], ...extra], context.ok.body);
}

/** 200, the correct content type, the prefix, then `then(socket)` instead of the rest. */
export function prefixThen(
  socket: Socket,
  context: FaultContext,
  then: (socket: Socket) => void,
  headers: Array<readonly [string, string]> = [],
): void {
  const head = responseHead(200, [['content-type', context.ok.contentType], ...headers]);
  socket.write(head, 'latin1');
  socket.write(context.prefix, () => then(socket));
}

/** A status with an (optionally empty) JSON body. */
export function status(
  code: number,
  body = '',
  headers: Array<readonly [string, string]> = [],
): Fault['serve'] {
  return (socket) => respond(socket, code, [json, ...headers], body);
}

/** The SSE answer rewritten by `edit` (text in, text out); complete() gets the correct answer. */
function sseEdit(edit: (text: string) => string): Fault['serve'] {
  return (socket, context) => {
    if (context.mode === 'complete') return answer(socket, context);
    respond(socket, 200, [sse], Buffer.from(edit(context.ok.body.toString('utf8'))));
  };
}

/** After the prefix, an in-band error event carrying `message`, then the body ends. */
export function inBandError(message: string, code?: string): Fault['serve'] {
  return (socket, context) => {
    if (context.mode === 'complete') return respond(socket, 500, [json], errorJson(message, code));
    const data = JSON.stringify({
      type: 'error',
      error: { type: code ?? 'api_error', code: code ?? 'server_error', status: code ?? 'INTERNAL', message },
    });
    prefixThen(socket, context, (s) => s.end(`event: error\ndata: ${data}\n\n`));
  };
}

export function errorJson(message: string, code = 'server_error'): string {
  return JSON.stringify({ error: { type: code, code, message } });
}

/** `levels` nested arrays, built without recursion. */
function nestedArrays(levels: number): string {
  return '['.repeat(levels) + ']'.repeat(levels);
}

export function nestedObjects(levels: number): string {
  return '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
}

/** The correct JSON answer with a 20 MB string field added in front (one line). */
function padded(body: Buffer): Buffer {
  return Buffer.concat([Buffer.from('{"padding":"'), filler(), Buffer.from('",'), body.subarray(1)]);
}

let twentyMegabytes: Buffer | undefined;
/** 20 MiB of `x`, made once (the rows share it). */
function filler(): Buffer {
  twentyMegabytes ??= Buffer.alloc(20 * 1024 * 1024, 'x');
  return twentyMegabytes;
}

/** Status codes and empty bodies. */
const statuses: Fault[] = [
  { name: '204 No Content', serve: (s) => respond(s, 204, []), expect: invalid },
  { name: '205 Reset Content', serve: (s) => respond(s, 205, []), expect: invalid },
  {
    // A final status outside 2xx/4xx/5xx is `other`, not retried: the contract's status table
    // (docs/contract.md §6.2, the conformance case "classifies an unexpected status as other").
    name: '304 Not Modified (no location)',
    serve: (s) => respond(s, 304, []),
    expect: unexpectedStatus,
    attempts: 1,
  },
  { name: '404 with an empty body', serve: status(404), expect: invalidRequest },
  { name: '418', serve: status(418, '{}'), expect: invalidRequest },
  { name: '451', serve: status(451, errorJson('unavailable for legal reasons')), expect: invalidRequest },
  { name: '499', serve: status(499), expect: invalidRequest },
  { name: '529 without a body', serve: status(529), expect: serverError },
  {
    name: '599 with an HTML body',
    serve: (s) => respond(s, 599, [['content-type', 'text/html']], '<html>'),
    expect: serverError,
  },
  { name: '429 without a body', serve: status(429), expect: { errorClass: 'rate_limit', retryable: true } },
  {
    // undici destroys the socket on an unsolicited 100 (it never sends `expect: 100-continue`):
    // a classified, retryable network error; the retry meets the same server.
    name: '100 Continue, then the answer',
    serve: (s, c) => {
      s.write('HTTP/1.1 100 Continue\r\n\r\n');
      answer(s, c);
    },
    expect: network,
  },
  {
    name: '103 Early Hints, then the answer',
    serve: (s, c) => {
      s.write('HTTP/1.1 103 Early Hints\r\nlink: </x>; rel=preload\r\n\r\n');
      answer(s, c);
    },
    expect: 'ok',
  },
  { name: 'a 1xx then close', serve: (s) => s.end('HTTP/1.1 102 Processing\r\n\r\n'), expect: network },
  { name: 'an empty 200 body', serve: status(200), expect: invalid },
  // Outside 2xx/4xx/5xx, like the 304 above: `other`, not retried.
  { name: 'status 999', serve: status(999, errorJson('what')), expect: unexpectedStatus, attempts: 1 },
  { name: 'status 600', serve: status(600, errorJson('what')), expect: unexpectedStatus, attempts: 1 },
  { name: 'a final 1xx (150) then close', serve: (s) => s.end('HTTP/1.1 150 Odd\r\n\r\n'), expect: network },
];

/** Content types that do not match the call, and bodies of the wrong JSON shape. */
const shapes: Fault[] = [
  {
    name: 'application/json on every call (the JSON answer)',
    serve: (s, c) => respond(s, 200, [json], c.recorded.json),
    expect: 'ok',
  },
  {
    name: 'text/event-stream on every call (the SSE answer)',
    serve: (s, c) => respond(s, 200, [sse], c.recorded.sse),
    expect: (mode) => (mode === 'stream' ? 'ok' : invalid),
  },
  { name: 'no content-type', serve: (s, c) => respond(s, 200, [], c.ok.body), expect: 'ok' },
  { name: 'body null', serve: status(200, 'null'), expect: invalid },
  { name: 'body {}', serve: status(200, '{}'), expect: invalid },
  { name: "another API's JSON answer", serve: status(200, '{"object":"list","data":[]}'), expect: invalid },
  { name: 'body a JSON array', serve: status(200, '[1,2,3]'), expect: invalid },
  { name: 'body a number', serve: status(200, '42'), expect: invalid },
  { name: 'body a JSON string', serve: status(200, '"hello"'), expect: invalid },
  {
    name: '100k nested arrays',
    serve: status(200, nestedArrays(100_000)),
    expect: invalid,
    options: bulk,
    oneAtATime: true,
  },
  {
    name: '100k nested objects',
    serve: status(200, nestedObjects(100_000)),
    expect: invalid,
    options: bulk,
    oneAtATime: true,
  },
  {
    name: 'SSE data null, array and number events',
    serve: (s) => respond(s, 200, [sse], 'data: null\n\ndata: [1]\n\ndata: 7\n\n'),
    // OpenAI Chat and Gemini skip a non-object event with a WARN (a host's keep-alive), so their
    // stream then ends without its finish: stream_truncated. Both classes are retryable.
    expect: [invalid, truncated],
  },
  {
    name: 'a 20 MB single-line JSON answer',
    serve: (s, c) => respond(s, 200, [json], padded(c.recorded.json)),
    options: bulk,
    oneAtATime: true,
    expect: 'ok',
  },
  {
    name: 'a 20 MB SSE line of garbage',
    serve: (s) =>
      respond(s, 200, [sse], Buffer.concat([Buffer.from('data: '), filler(), Buffer.from('\n\n')])),
    options: bulk,
    oneAtATime: true,
    expect: invalid,
  },
  {
    name: 'an SSE event over maxEventBytes / a body over maxBodyBytes',
    serve: (s, c) => {
      const oversized = Buffer.from(`data: {"pad":"${'x'.repeat(8192)}"}\n\n`);
      // 8 KiB of the padded body, not 20 MiB made per case and cut: under load that concat took
      // these rows past their 1 s first-byte timeout.
      if (c.mode === 'complete')
        return respond(s, 200, [json], Buffer.from(`{"padding":"${'x'.repeat(8192)}`).subarray(0, 8192));
      prefixThen(s, c, (socket) => socket.end(oversized));
    },
    options: { maxEventBytes: 1024, maxBodyBytes: 1024 },
    keepsPrefix: true,
    expect: { errorClass: 'server_error', retryable: false, providerCode: 'response_too_large' },
  },
];

/** Framing, connection and timing faults. */
const framing: Fault[] = [
  {
    name: 'content-length larger than the body, then close',
    serve: (s, c) =>
      prefixThen(s, c, (socket) => socket.end(), [['content-length', String(c.ok.body.length + 100)]]),
    expect: (mode) => (mode === 'stream' ? truncated : network),
    keepsPrefix: true,
  },
  {
    name: 'malformed chunked encoding after the first chunk',
    serve: (s, c) => {
      s.write(
        responseHead(200, [
          ['content-type', c.ok.contentType],
          ['transfer-encoding', 'chunked'],
        ]),
      );
      s.write(`${c.prefix.length.toString(16)}\r\n`);
      s.write(c.prefix);
      s.end('\r\nzz\r\nnot a chunk\r\n');
    },
    expect: (mode) => (mode === 'stream' ? truncated : network),
    keepsPrefix: true,
  },
  {
    name: 'chunked body closed without its last chunk',
    serve: (s, c) => {
      s.write(
        responseHead(200, [
          ['content-type', c.ok.contentType],
          ['transfer-encoding', 'chunked'],
        ]),
      );
      s.end(
        Buffer.concat([Buffer.from(`${c.prefix.length.toString(16)}\r\n`), c.prefix, Buffer.from('\r\n')]),
      );
    },
    expect: (mode) => (mode === 'stream' ? truncated : network),
    keepsPrefix: true,
  },
  { name: 'reset before the headers', serve: (s) => s.resetAndDestroy(), expect: network },
  {
    name: 'reset mid-headers',
    serve: (s) => s.write('HTTP/1.1 200 OK\r\ncontent-ty', () => s.resetAndDestroy()),
    expect: network,
  },
  {
    // Framed by content-length: undici takes a reset of a close-delimited body as its end.
    name: 'reset mid-body',
    serve: (s, c) =>
      prefixThen(s, c, (socket) => socket.resetAndDestroy(), [['content-length', String(c.ok.body.length)]]),
    expect: (mode) => (mode === 'stream' ? truncated : network),
    keepsPrefix: true,
  },
  {
    name: 'close-delimited body cut after the prefix',
    serve: (s, c) => prefixThen(s, c, (socket) => socket.end()),
    expect: (mode) => (mode === 'stream' ? truncated : invalid),
    keepsPrefix: true,
  },
  {
    name: 'HTTP/1.0 close-delimited answer',
    serve: (s, c) =>
      s.end(
        Buffer.concat([
          Buffer.from(`HTTP/1.0 200 OK\r\ncontent-type: ${c.ok.contentType}\r\n\r\n`),
          c.ok.body,
        ]),
      ),
    expect: 'ok',
  },
  {
    name: 'accepts and never answers',
    serve: () => {},
    options: { firstByteTimeout: timerBoundMs },
    expect: { ...network, providerCode: 'timeout_first-byte' },
  },
  {
    name: 'the prefix, then silence',
    serve: (s, c) => prefixThen(s, c, () => {}),
    options: { idleTimeout: timerBoundMs },
    expect: { ...network, providerCode: 'timeout_idle' },
    keepsPrefix: true,
  },
  {
    name: 'slowloris: one byte every 50 ms past the whole-call timeout',
    serve: (s, c) => {
      s.write(responseHead(200, [['content-type', c.ok.contentType]]));
      drip(s, c.ok.body, 50);
    },
    options: { timeout: 4 * timerBoundMs },
    expect: { ...network, providerCode: 'timeout_total' },
  },
  {
    name: 'a status line that is not HTTP',
    serve: (s) => s.end('HTTP/1.1 abc Nope\r\n\r\n'),
    expect: network,
  },
  { name: 'an SSH banner', serve: (s) => s.end('SSH-2.0-OpenSSH_9.6\r\n'), expect: network },
  {
    name: 'a 64 KiB header',
    serve: (s, c) => answer(s, c, [['x-huge', 'a'.repeat(64 * 1024)]]),
    expect: network,
  },
  {
    name: 'two different content-length headers',
    serve: (s, c) =>
      answer(s, c, [
        ['content-length', '5'],
        ['content-length', '7'],
      ]),
    expect: network,
  },
];

/** Bytes and SSE syntax. */
const encoding: Fault[] = [
  {
    name: 'invalid UTF-8 bytes inside the text',
    serve: (s, c) => {
      const at = c.ok.body.indexOf('Hello');
      const body = Buffer.concat([
        c.ok.body.subarray(0, at + 3),
        Buffer.from([0xff, 0xfe]),
        c.ok.body.subarray(at + 3),
      ]);
      respond(s, 200, [['content-type', c.ok.contentType]], body);
    },
    expect: 'ok',
  },
  {
    name: 'a UTF-8 BOM at the body start',
    serve: (s, c) =>
      respond(
        s,
        200,
        [['content-type', c.ok.contentType]],
        Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), c.ok.body]),
      ),
    expect: 'ok',
  },
  {
    name: 'gzip: the correct answer compressed',
    serve: (s, c) =>
      respond(
        s,
        200,
        [
          ['content-type', c.ok.contentType],
          ['content-encoding', 'gzip'],
        ],
        gzipSync(c.ok.body),
      ),
    expect: 'ok',
  },
  {
    name: 'gzip header with a corrupt gzip body',
    serve: (s, c) =>
      respond(
        s,
        200,
        [
          ['content-type', c.ok.contentType],
          ['content-encoding', 'gzip'],
        ],
        Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), c.ok.body]),
      ),
    expect: invalid,
  },
  {
    name: 'SSE with CR-only line endings',
    serve: sseEdit((t) => t.replaceAll('\r\n', '\n').replaceAll('\n', '\r')),
    expect: 'ok',
  },
  { name: 'SSE with CRLF line endings', serve: sseEdit((t) => t.replaceAll('\n', '\r\n')), expect: 'ok' },
  { name: 'SSE data: without a space', serve: sseEdit((t) => t.replaceAll('data: ', 'data:')), expect: 'ok' },
  {
    name: 'SSE comment lines between events',
    serve: sseEdit((t) => t.replaceAll('\n\n', '\n\n: keep-alive\n\n')),
    expect: 'ok',
  },
  {
    name: 'SSE huge retry: field and an id: with NUL',
    serve: sseEdit((t) => `retry: ${'9'.repeat(400)}\nid: a\u0000b\n\n${t}`),
    expect: 'ok',
  },
  {
    name: 'SSE event: error after the prefix',
    serve: inBandError('the model failed'),
    expect: serverError,
    keepsPrefix: true,
  },
  {
    name: 'SSE only data: [DONE]',
    serve: (s, c) => (c.mode === 'complete' ? answer(s, c) : respond(s, 200, [sse], 'data: [DONE]\n\n')),
    expect: (mode) => (mode === 'complete' ? 'ok' : [truncated, invalid]),
  },
];

/** Every row. */
export const faults: readonly Fault[] = [...statuses, ...shapes, ...framing, ...encoding];
