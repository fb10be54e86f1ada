/**
 * One Bedrock exception is classified the same whichever way it arrives: as an HTTP error (the name
 * in the `x-amzn-errortype` header, `{"message"}` in the body) or as an exception message inside a
 * 200 ConverseStream (the name in `:exception-type`, camelCase there). Before the runtime handed
 * the headers to the body parser, the HTTP path fell back to the status: a 424 ModelErrorException
 * was invalid_request, a 408 ModelTimeoutException network, a 400 ServiceQuotaExceededException
 * invalid_request and a 429 ModelNotReadyException rate_limit (which it now is by its name: a
 * model being loaded, retried as a rate limit).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.ts';
import { createBedrock } from '../../src/providers/bedrock/index.ts';
import { collectStream } from '../../src/testing/collect.ts';
import { encodeEventStreamMessage } from '../../src/transport/event-stream.ts';
import { readRecorded, recordedDir } from '../support/fixtures.ts';

/** [exception, HTTP status, class, retryable, message] — statuses and messages as Bedrock sends them. */
const exceptions: Array<[string, number, string, boolean, string]> = [
  ['ThrottlingException', 429, 'rate_limit', true, 'Too many requests, please wait before trying again.'],
  [
    'ServiceQuotaExceededException',
    400,
    'rate_limit',
    false,
    'Your request exceeds the service quota for your account.',
  ],
  [
    'ModelErrorException',
    424,
    'server_error',
    true,
    'The model produced an invalid sequence as part of ToolUse.',
  ],
  ['ModelTimeoutException', 408, 'server_error', true, 'Model has timed out in processing the request.'],
  [
    'ModelNotReadyException',
    429,
    'rate_limit',
    true,
    'Model is not ready for inference. Wait and try your request again.',
  ],
  ['ModelStreamErrorException', 424, 'server_error', true, 'Model Stream Error'],
  ['InternalServerException', 500, 'server_error', true, 'Internal server error'],
  ['ServiceUnavailableException', 503, 'server_error', true, 'Bedrock is unable to process your request.'],
  ['ValidationException', 400, 'invalid_request', false, 'The provided request is not valid.'],
  ['ValidationException', 400, 'context_overflow', false, 'Input is too long for requested model.'],
  [
    'ValidationException',
    400,
    'context_overflow',
    false,
    'The model returned the following errors: input length and `max_tokens` exceed context limit: 198000 + 64000 > 200000, decrease input length or `max_tokens` and try again',
  ],
  [
    'ValidationException',
    400,
    'context_overflow',
    false,
    'The model returned the following errors: prompt is too long: 215000 tokens > 200000 maximum',
  ],
  [
    'ResourceNotFoundException',
    404,
    'invalid_request',
    false,
    'Could not resolve the foundation model from the provided model identifier.',
  ],
  [
    'AccessDeniedException',
    403,
    'auth',
    false,
    "You don't have access to the model with the specified model ID.",
  ],
];

/** What the test server answers next: an HTTP error, or a 200 stream holding one exception message. */
let reply: { status: number; headers: Record<string, string>; body: Buffer | string };
let server: Server;
let baseURL: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    response.writeHead(reply.status, reply.headers);
    response.end(reply.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function httpError(exception: string, status: number, message: string): typeof reply {
  return {
    status,
    headers: {
      'content-type': 'application/json',
      'x-amzn-errortype': `${exception}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    },
    body: JSON.stringify({ message }),
  };
}

function streamedException(exception: string, message: string): typeof reply {
  const headers = {
    ':exception-type': exception.charAt(0).toLowerCase() + exception.slice(1),
    ':content-type': 'application/json',
    ':message-type': 'exception',
  };
  return {
    status: 200,
    headers: { 'content-type': 'application/vnd.amazon.eventstream' },
    body: Buffer.from(encodeEventStreamMessage(headers, JSON.stringify({ message }))),
  };
}

const adapter = () =>
  createBedrock({ apiKey: 'ABSKexceptionstest0001', baseURL, maxRetries: 0, logger: silentLogger });
const request = {
  model: 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  transcript: [{ kind: 'user' as const, parts: [{ type: 'text' as const, text: 'Hi' }] }],
  maxOutputTokens: 64,
};

async function failureOf(served: typeof reply): Promise<unknown> {
  reply = served;
  const bedrock = adapter();
  try {
    return (await collectStream(bedrock.stream(request))).error;
  } finally {
    await bedrock.close();
  }
}

describe('Bedrock exceptions: the same class as an HTTP error and inside a stream', () => {
  it.each(exceptions)('%s (HTTP %i) → %s', async (exception, status, errorClass, retryable, message) => {
    const providerCode = exception.charAt(0).toLowerCase() + exception.slice(1);
    const expected = { errorClass, retryable, providerCode, providerMessage: message };
    expect(await failureOf(httpError(exception, status, message))).toMatchObject({ ...expected, status });
    expect(await failureOf(streamedException(exception, message))).toMatchObject(expected);
  });
});

describe('Bedrock: a recorded HTTP error served with its status and headers', () => {
  it('the empty-message 400 (Nova, x-amzn-errortype ValidationException) is invalid_request validationException', async () => {
    const recorded = JSON.parse(
      readRecorded(`${recordedDir}/bedrock/branches/amazon-bedrock-empty-message-validation-error.json`),
    ) as { status: number; headers: Record<string, string>; body: { message: string } };
    const served = { ...recorded, body: JSON.stringify(recorded.body) };
    expect(await failureOf(served)).toMatchObject({
      errorClass: 'invalid_request',
      status: 400,
      providerCode: 'validationException',
      providerMessage: recorded.body.message,
    });
  });
});

describe("Bedrock: AWS's request id (x-amzn-requestid) is kept", () => {
  const awsId = '5b0a2f1e-7c1d-4b8e-9d3f-0a1b2c3d4e5f';

  it("is a reply's responseId, whole and streamed (recorded Converse answers)", async () => {
    const headers = { 'content-type': 'application/json', 'x-amzn-requestid': awsId };
    reply = { status: 200, headers, body: readRecorded(`${recordedDir}/bedrock/amazon-bedrock-text.json`) };
    const bedrock = adapter();
    expect((await bedrock.complete(request)).responseId).toBe(awsId);
    const frames = readRecorded(`${recordedDir}/bedrock/amazon-bedrock-text.chunks.txt`)
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const [type, payload] = Object.entries(JSON.parse(line) as Record<string, unknown>)[0]!;
        const frameHeaders = {
          ':event-type': type,
          ':content-type': 'application/json',
          ':message-type': 'event',
        };
        return Buffer.from(encodeEventStreamMessage(frameHeaders, JSON.stringify(payload)));
      });
    reply = {
      status: 200,
      headers: { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': awsId },
      body: Buffer.concat(frames),
    };
    const { events } = await collectStream(bedrock.stream(request));
    expect(events[0]).toMatchObject({ type: 'message-start', responseId: awsId });
    expect(events.at(-1)).toMatchObject({ type: 'finish', response: { responseId: awsId } });
    await bedrock.close();
  });

  it("is named in an HTTP error's message, as the AWS SDK for Java words it; a header that is no id is not", async () => {
    const served = httpError('ThrottlingException', 429, 'Too many requests');
    const error = await failureOf({ ...served, headers: { ...served.headers, 'x-amzn-requestid': awsId } });
    expect(error).toMatchObject({ providerMessage: `Too many requests (Request ID: ${awsId})` });
    expect((error as Error).message).toContain(`(Request ID: ${awsId})`);
    const hostile = { ...served.headers, 'x-amzn-requestid': 'an id; with=spaces <b>' };
    expect(await failureOf({ ...served, headers: hostile })).toMatchObject({
      providerMessage: 'Too many requests',
    });
  });
});
