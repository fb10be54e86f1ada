/**
 * Rows of the hostile-server matrix about error answers: retry hints (negative, huge, dates,
 * garbage, repeated), bodies that echo the API key (whole, or cut by a length limit inside it),
 * other providers' error formats, and odd error bodies.
 */
import { respond } from '../support/hostile-server.ts';
import {
  type Fault,
  errorJson,
  inBandError,
  invalidRequest,
  json,
  nestedObjects,
  serverError,
  status,
} from './hostile-server.faults.ts';

/**
 * Padding, then the key the request carried, placed so that position `cut` falls 14 characters
 * into it (the key read from the request head's credential header).
 */
function straddle(head: string, cut: number): string {
  const key =
    /\r\n(?:x-api-key|x-goog-api-key|authorization):\s*(?:Bearer\s+)?([^\r\n]+)/i.exec(head)?.[1] ?? '';
  return `${'x'.repeat(Math.max(0, cut - 14))}${key} tail`;
}

/** An error code of 10 KB holding ESC sequences, line breaks and a forged log line. */
const hostileCode = `throttling\u001b[31mRED\u001b[0m\r\nlevel=info msg=admin logged in\u2028${'A'.repeat(10_000)}`;

/** Error statuses, retry hints and bodies that echo the key or come from another provider. */
export const errorRows: readonly Fault[] = [
  {
    name: 'retry-after negative',
    serve: status(503, errorJson('busy'), [['retry-after', '-5']]),
    expect: serverError,
    attempts: 2,
  },
  {
    name: 'retry-after 1e12 seconds',
    serve: status(503, errorJson('busy'), [['retry-after', '1000000000000']]),
    expect: serverError,
    // The hint (capped at 60 s) reaches past the whole-call deadline: the error comes at once.
    attempts: 1,
  },
  {
    name: 'retry-after an HTTP-date in 2099',
    serve: status(503, errorJson('busy'), [['retry-after', 'Fri, 01 Jan 2099 00:00:00 GMT']]),
    expect: serverError,
    attempts: 1,
  },
  {
    name: 'retry-after garbage',
    serve: status(503, errorJson('busy'), [['retry-after', 'soon™']]),
    expect: serverError,
    attempts: 2,
  },
  {
    name: 'retry-after "5, 7" (V8 reads it as a date)',
    serve: status(503, errorJson('busy'), [['retry-after', '5, 7']]),
    expect: serverError,
    attempts: 2,
  },
  {
    name: 'two retry-after headers',
    serve: status(503, errorJson('busy'), [
      ['retry-after', '0'],
      ['retry-after', '1000000000000'],
    ]),
    expect: serverError,
  },
  {
    name: 'two content-type headers',
    serve: (s, c) =>
      respond(
        s,
        200,
        [
          ['content-type', c.ok.contentType],
          ['content-type', 'text/plain'],
        ],
        c.ok.body,
      ),
    expect: 'ok',
  },
  {
    name: '401 echoing the request head',
    serve: (s, c) => respond(s, 401, [json], errorJson(c.head, 'authentication_error')),
    expect: { errorClass: 'auth', retryable: false },
  },
  {
    name: '403 echoing the request head as text',
    serve: (s, c) => respond(s, 403, [['content-type', 'text/plain']], c.head),
    expect: { errorClass: 'auth', retryable: false },
  },
  {
    name: '400 echoing the request head',
    serve: (s, c) => respond(s, 400, [json], errorJson(c.head, 'invalid_request_error')),
    expect: invalidRequest,
  },
  {
    name: 'in-band error echoing the request head',
    serve: (s, c) => inBandError(c.head)(s, c),
    expect: serverError,
    keepsPrefix: true,
  },
  {
    // The head echoed where each parser cuts a message (500 and 2,000 characters) and where the
    // runtime cuts an error body (64 KiB): the key straddles each cut.
    name: '401 whose message cuts the echoed key at 500 characters',
    serve: (s, c) => respond(s, 401, [json], errorJson(straddle(c.head, 500), 'authentication_error')),
    expect: { errorClass: 'auth', retryable: false },
  },
  {
    name: '401 whose message cuts the echoed key at 2,000 characters',
    serve: (s, c) => respond(s, 401, [json], errorJson(straddle(c.head, 2000), 'authentication_error')),
    expect: { errorClass: 'auth', retryable: false },
  },
  {
    name: 'in-band error whose message cuts the echoed key at 2,000 characters',
    serve: (s, c) => inBandError(straddle(c.head, 2000))(s, c),
    expect: serverError,
    keepsPrefix: true,
  },
  {
    name: '403 text body cutting the echoed key at 64 KiB',
    serve: (s, c) => respond(s, 403, [['content-type', 'text/plain']], straddle(c.head, 64 * 1024)),
    expect: { errorClass: 'auth', retryable: false },
  },
  {
    name: 'a Gemini 429 RESOURCE_EXHAUSTED body',
    serve: status(
      429,
      JSON.stringify({
        error: { code: 429, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' },
      }),
    ),
    expect: { errorClass: 'rate_limit', retryable: true },
  },
  {
    name: 'an Anthropic 529 overloaded body',
    serve: status(
      529,
      JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    ),
    expect: serverError,
  },
  {
    name: 'an OpenAI 400 context_length_exceeded body',
    serve: status(
      400,
      JSON.stringify({
        error: {
          message: "This model's maximum context length is 128000 tokens.",
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
        },
      }),
    ),
    expect: [{ errorClass: 'context_overflow', retryable: false }, invalidRequest],
  },
  {
    // Every protocol's code field (Anthropic's type, OpenAI's code, Gemini's status) holds it.
    name: '400 whose error code is 10 KB with ESC and line breaks',
    serve: status(
      400,
      JSON.stringify({
        type: 'error',
        error: { type: hostileCode, code: hostileCode, status: hostileCode, message: 'm' },
      }),
    ),
    expect: invalidRequest,
  },
  {
    name: 'in-band error whose code is 10 KB with ESC and line breaks',
    serve: (s, c) => inBandError('m', hostileCode)(s, c),
    expect: serverError,
    keepsPrefix: true,
  },
  { name: '500 whose body is a JSON array', serve: status(500, '[{"error":1}]'), expect: serverError },
  {
    name: '502 with a 100k-deep error body',
    serve: status(502, nestedObjects(100_000)),
    expect: serverError,
  },
];
