/**
 * Rows of the hostile-server matrix about how a body ends and how its bytes arrive: the answer
 * complete but the connection held open, bytes after the terminal event, one-byte writes through
 * multi-byte characters, chunked extras, compressed bodies cut short, in-band error envelopes.
 */
import type { Socket } from 'node:net';
import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { drip, respond, responseHead } from '../support/hostile-server.ts';
import {
  answer,
  errorJson,
  type Fault,
  type FaultContext,
  invalid,
  json,
  network,
  serverError,
  sse,
  timerBoundMs,
  truncated,
} from './hostile-server.faults.ts';

/** The answer's bytes with "world" replaced by text holding 2-, 3- and 4-byte UTF-8 characters. */
const multibyte = 'wörld ✓ 🌍';

function withMultibyte(body: Buffer): Buffer {
  return Buffer.from(body.toString('utf8').replace('world', multibyte));
}

/** Writes `bytes` one byte per write, a macrotask apart (bounded by their length). */
function oneBytePerWrite(socket: Socket, bytes: Buffer): void {
  socket.setNoDelay(true);
  let index = 0;
  const next = () => {
    if (socket.destroyed) return;
    if (index >= bytes.length) return void socket.end();
    socket.write(bytes.subarray(index, index + 1));
    index++;
    setImmediate(next);
  };
  next();
}

/** An in-band error envelope every protocol's parser knows (Anthropic, OpenAI and Google fields). */
const rateLimitEnvelope = JSON.stringify({
  type: 'error',
  error: {
    type: 'rate_limit_error',
    code: 'rate_limit_exceeded',
    status: 'RESOURCE_EXHAUSTED',
    message: 'slow down',
  },
});

/** Writes the whole SSE answer and keeps the connection open (no end of the chunked body). */
function holdOpenAfter(socket: Socket, context: FaultContext): void {
  const body = context.ok.body;
  socket.write(responseHead(200, [sse, ['transfer-encoding', 'chunked']]));
  socket.write(`${body.length.toString(16)}\r\n`);
  socket.write(body);
  socket.write('\r\n');
}

/** The rows. */
export const endings: readonly Fault[] = [
  {
    // Text of another JSON type is not a shape to skip: the reply would read as whole without it.
    name: 'the answer with its first text as an object, not a string',
    serve: (s, c) =>
      respond(
        s,
        200,
        [['content-type', c.ok.contentType]],
        Buffer.from(c.ok.body.toString('utf8').replace(/"(Hello[^"]*)"/, '{"value":"$1"}')),
      ),
    // Read as a shape the adapter could not read (`invalid_stream` / `invalid_response`), not
    // merely any retryable failure.
    expect: (mode) => ({
      ...invalid,
      providerCode: mode === 'stream' ? 'invalid_stream' : 'invalid_response',
    }),
  },
  {
    name: 'the whole stream, then the connection held open',
    serve: (s, c) => (c.mode === 'complete' ? answer(s, c) : holdOpenAfter(s, c)),
    options: { idleTimeout: timerBoundMs },
    expect: 'ok',
  },
  {
    name: 'garbage after the terminal event',
    serve: (s, c) => {
      if (c.mode === 'complete') return answer(s, c);
      respond(
        s,
        200,
        [sse],
        Buffer.concat([c.ok.body, Buffer.from('data: {not json\n\nevent: x\ndata: 1\n\n')]),
      );
    },
    expect: 'ok',
  },
  {
    name: 'one byte per write through multi-byte characters',
    serve: (s, c) => {
      s.write(
        responseHead(200, [
          ['content-type', c.ok.contentType],
          ['connection', 'close'],
        ]),
      );
      oneBytePerWrite(s, withMultibyte(c.ok.body));
    },
    expect: 'ok',
    text: multibyte,
    // Thousands of writes per case: more than the default 1.5 s on a busy machine; one case at a time.
    options: { timeout: 10_000 },
    oneAtATime: true,
  },
  {
    name: 'chunked with chunk extensions and a trailer',
    serve: (s, c) => {
      s.write(
        responseHead(200, [
          ['content-type', c.ok.contentType],
          ['transfer-encoding', 'chunked'],
          ['trailer', 'x-t'],
        ]),
      );
      const half = c.ok.body.length >> 1;
      for (const piece of [c.ok.body.subarray(0, half), c.ok.body.subarray(half)]) {
        s.write(`${piece.length.toString(16)};ext=1\r\n`);
        s.write(piece);
        s.write('\r\n');
      }
      s.end('0\r\nx-t: done\r\n\r\n');
    },
    expect: 'ok',
  },
  {
    name: 'a gzip body cut after the prefix',
    serve: (s, c) => {
      const whole = gzipSync(c.prefix);
      // The compressed prefix without its 8-byte trailer: decodable, but the body ends early.
      respond(
        s,
        200,
        [
          ['content-type', c.ok.contentType],
          ['content-encoding', 'gzip'],
        ],
        whole.subarray(0, -8),
      );
    },
    expect: (mode) => (mode === 'stream' ? [truncated, invalid] : invalid),
    keepsPrefix: true,
  },
  {
    name: 'a 200 JSON error envelope',
    serve: (s) => respond(s, 200, [json], rateLimitEnvelope),
    expect: [{ errorClass: 'rate_limit', retryable: true }, serverError],
  },
  {
    name: 'a 200 text/event-stream body that is a bare JSON error',
    serve: (s, c) =>
      c.mode === 'complete'
        ? respond(s, 200, [json], rateLimitEnvelope)
        : respond(s, 200, [sse], rateLimitEnvelope),
    expect: [{ errorClass: 'rate_limit', retryable: true }, serverError, truncated],
  },
  {
    name: 'an in-band rate-limit error event after the prefix',
    serve: (s, c) => {
      if (c.mode === 'complete') return respond(s, 429, [json], rateLimitEnvelope);
      const head = responseHead(200, [sse, ['connection', 'close']]);
      s.write(head);
      s.write(c.prefix, () => s.end(`event: error\ndata: ${rateLimitEnvelope}\n\n`));
    },
    expect: [{ errorClass: 'rate_limit', retryable: true }, serverError],
    keepsPrefix: true,
  },
  {
    name: '200 000 comment lines before the answer',
    serve: (s, c) => {
      if (c.mode === 'complete') return answer(s, c);
      respond(s, 200, [sse], Buffer.concat([Buffer.from(':\n'.repeat(200_000)), c.ok.body]));
    },
    expect: 'ok',
  },
  {
    name: 'deflate with its zlib wrapper',
    serve: (s, c) =>
      respond(
        s,
        200,
        [
          ['content-type', c.ok.contentType],
          ['content-encoding', 'deflate'],
        ],
        deflateSync(c.ok.body),
      ),
    expect: 'ok',
  },
  {
    // Servers have long sent raw deflate for `deflate`; browsers and undici's fetch accept both.
    name: 'deflate without its zlib wrapper (raw)',
    serve: (s, c) =>
      respond(
        s,
        200,
        [
          ['content-type', c.ok.contentType],
          ['content-encoding', 'deflate'],
        ],
        deflateRawSync(c.ok.body),
      ),
    expect: 'ok',
  },
  {
    name: 'slowloris headers: one byte every 50 ms',
    serve: (s, c) =>
      drip(
        s,
        Buffer.from(
          responseHead(200, [
            ['content-type', c.ok.contentType],
            ['x-pad', 'p'.repeat(64)],
          ]),
        ),
        50,
      ),
    options: { firstByteTimeout: timerBoundMs },
    expect: { errorClass: 'network', retryable: true, providerCode: 'timeout_first-byte' },
    attempts: 2,
  },
  {
    name: 'both content-length and transfer-encoding: chunked',
    serve: (s, c) => {
      s.write(
        responseHead(200, [
          ['content-type', c.ok.contentType],
          ['content-length', '10'],
          ['transfer-encoding', 'chunked'],
        ]),
      );
      s.end(`${c.ok.body.length.toString(16)}\r\n${c.ok.body}\r\n0\r\n\r\n`);
    },
    expect: network,
  },
  {
    name: 'a NUL byte in a header value',
    serve: (s, c) => answer(s, c, [['x-bad', 'a\u0000b']]),
    expect: network,
  },
  { name: 'the first SSE event missing', serve: sseEvents((events) => events.slice(1)), expect: 'any' },
  {
    name: 'every SSE event twice',
    serve: sseEvents((events) => events.flatMap((one) => [one, one])),
    expect: 'any',
  },
  {
    name: 'the SSE events in reverse order',
    serve: sseEvents((events) => events.toReversed()),
    expect: 'any',
  },
  {
    name: 'the SSE events with every text delta repeated 2000 times',
    serve: sseEvents((events) =>
      events.flatMap((one) => (one.includes('Hello') ? Array(2000).fill(one) : [one])),
    ),
    expect: 'any',
  },
  {
    name: '500 with a slowloris error body',
    serve: (s) => {
      s.write(responseHead(500, [json]));
      drip(s, Buffer.from(errorJson('x'.repeat(200))), 50);
    },
    options: { timeout: 4 * timerBoundMs },
    expect: { errorClass: 'network', retryable: true, providerCode: 'timeout_total' },
  },
  {
    name: '429 with a 20 MB body',
    serve: (s) =>
      respond(
        s,
        429,
        [json],
        Buffer.concat([
          Buffer.from('{"error":{"message":"'),
          Buffer.alloc(20 * 1024 * 1024, 'x'),
          Buffer.from('"}}'),
        ]),
      ),
    expect: { errorClass: 'rate_limit', retryable: true },
    options: { timeout: 20_000, firstByteTimeout: 15_000, idleTimeout: 15_000 },
  },
  { name: 'usage counts negative', serve: usageEdit(() => '-7'), expect: 'ok' },
  {
    name: 'usage counts as strings and null',
    serve: usageEdit((n) => (n % 2 === 0 ? '"12"' : 'null')),
    expect: 'ok',
  },
  { name: 'usage counts 1e308', serve: usageEdit(() => '1e308'), expect: 'ok' },
  {
    name: 'reasoning tokens far above the output',
    serve: usageEdit((_n, name) => (/reasoning|thoughts/i.test(name) ? '1000000' : undefined)),
    expect: 'ok',
  },
  {
    name: 'cached tokens far above the prompt',
    serve: usageEdit((_n, name) => (/cache|cached/i.test(name) ? '1000000' : undefined)),
    expect: 'ok',
  },
];

/** The SSE answer's events rewritten by `edit`; complete() gets the correct answer. */
function sseEvents(edit: (events: string[]) => string[]): Fault['serve'] {
  return (socket, context) => {
    if (context.mode === 'complete') return answer(socket, context);
    const events = context.ok.body
      .toString('utf8')
      .split('\n\n')
      .filter((one) => one.trim() !== '');
    respond(
      socket,
      200,
      [sse],
      edit(events)
        .map((one) => `${one}\n\n`)
        .join(''),
    );
  };
}

const tokenFields =
  /"(input_tokens|output_tokens|cache_creation_input_tokens|cache_read_input_tokens|prompt_tokens|completion_tokens|total_tokens|cached_tokens|reasoning_tokens|promptTokenCount|candidatesTokenCount|totalTokenCount|cachedContentTokenCount|thoughtsTokenCount|tokenCount)":\s*\d+/g;

/** The correct answer with each token count replaced by `value(index, field)` (kept when undefined). */
function usageEdit(value: (index: number, field: string) => string | undefined): Fault['serve'] {
  return (socket, context) => {
    let index = 0;
    const body = context.ok.body.toString('utf8').replace(tokenFields, (match, field: string) => {
      const replacement = value(index++, field);
      return replacement === undefined ? match : `"${field}":${replacement}`;
    });
    respond(socket, 200, [['content-type', context.ok.contentType]], body);
  };
}
