/**
 * Hostile input on the cloud transports: a corrupt event-stream frame, a bad CRC, a frame cut short,
 * an exception frame mid-answer, an expired token (refreshed once, then `auth`), a region that does
 * not exist — each a classified error, with the content received kept in the `finish`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/core/events.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { userText } from '../../src/core/transcript.ts';
import { createBedrock } from '../../src/providers/bedrock/index.ts';
import { createVertex } from '../../src/providers/vertex/index.ts';
import { collectStream } from '../../src/testing/collect.ts';
import { type Emulator, startEmulator } from '../../src/testing/emulator/index.ts';
import { bedrockError } from '../../src/testing/emulator/rules/bedrock.ts';
import { googleError } from '../../src/testing/emulator/errors.ts';
import { assertStreamInvariants } from '../../src/testing/invariants.ts';
import { encodeEventStreamMessage } from '../../src/transport/event-stream.ts';

const model = 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const request = { model, transcript: [userText('Say hello')], maxOutputTokens: 256 };
const staticKeys = { accessKeyId: 'AKIDEXAMPLE0000000000', secretAccessKey: 'secret-example-key' };

function event(type: string, payload: object): Buffer {
  const headers = { ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' };
  return Buffer.from(encodeEventStreamMessage(headers, JSON.stringify(payload)));
}

function exception(type: string, message: string): Buffer {
  const headers = {
    ':exception-type': type,
    ':content-type': 'application/json',
    ':message-type': 'exception',
  };
  return Buffer.from(encodeEventStreamMessage(headers, JSON.stringify({ message })));
}

/** The start of an answer: "Hello, world" in two deltas. */
const answerStart = [
  event('messageStart', { role: 'assistant' }),
  event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hello, ' } }),
  event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'world' } }),
];

let emulator: Emulator;
let scratch: string;
beforeAll(async () => {
  emulator = await startEmulator();
  scratch = mkdtempSync(join(tmpdir(), 'switchyard-hostile-clouds-'));
});
afterAll(async () => {
  await emulator.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** Serves `bytes` as the body of a ConverseStream answer. */
function serve(name: string, bytes: Buffer): void {
  const file = join(scratch, `${name}.eventstream.base64.txt`);
  writeFileSync(file, bytes.toString('base64'));
  emulator.enqueue({ type: 'replay', file, protocol: 'bedrock-converse' });
}

function bedrock(options: Parameters<typeof createBedrock>[0] = {}) {
  return createBedrock({
    region: 'us-east-1',
    credentials: staticKeys,
    env: {},
    baseURL: emulator.url,
    maxRetries: 0,
    logger: silentLogger,
    ...options,
  });
}

function finishOf(events: StreamEvent[]) {
  const last = events.at(-1);
  if (last?.type !== 'finish') throw new Error('no finish');
  return last.response;
}

async function expectKeptError(errorClass: string, code?: string) {
  const adapter = bedrock();
  const { events, error } = await collectStream(adapter.stream(request));
  await adapter.close();
  expect(error).toMatchObject({ errorClass, ...(code === undefined ? {} : { providerCode: code }) });
  assertStreamInvariants(events);
  const response = finishOf(events);
  expect(response.finishReason).toBe('error');
  expect(response.content).toMatchObject([{ type: 'text', text: 'Hello, world' }]);
}

describe('Bedrock event-stream: hostile frames keep what arrived', () => {
  it('a corrupt frame (a prelude claiming 5 bytes) is server_error invalid_stream', async () => {
    const corrupt = Buffer.from([0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4]);
    serve('corrupt', Buffer.concat([...answerStart, corrupt]));
    await expectKeptError('server_error', 'invalid_stream');
  });

  it('a frame whose payload fails its CRC is server_error invalid_stream', async () => {
    const bad = event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: '!!' } });
    bad[bad.length - 8] ^= 0xff; // a payload byte: the message CRC no longer matches
    serve('bad-crc', Buffer.concat([...answerStart, bad]));
    await expectKeptError('server_error', 'invalid_stream');
  });

  it('a frame cut short at the end of the body is network stream_truncated', async () => {
    const last = event('contentBlockStop', { contentBlockIndex: 0 });
    serve('truncated', Buffer.concat([...answerStart, last.subarray(0, last.length - 7)]));
    await expectKeptError('network', 'stream_truncated');
  });

  it('an exception frame mid-answer is classified by its type (throttling → rate_limit)', async () => {
    serve(
      'throttled',
      Buffer.concat([...answerStart, exception('throttlingException', 'Too many tokens, please wait.')]),
    );
    await expectKeptError('rate_limit', 'throttlingException');
  });

  it('a modelStreamErrorException mid-answer is server_error, a validationException invalid_request', async () => {
    serve(
      'model-error',
      Buffer.concat([...answerStart, exception('modelStreamErrorException', 'Model Stream Error')]),
    );
    await expectKeptError('server_error', 'modelStreamErrorException');
    serve('validation', Buffer.concat([...answerStart, exception('validationException', 'Bad input')]));
    await expectKeptError('invalid_request', 'validationException');
  });

  it('an error message (:message-type error) keeps its text, which AWS puts in :error-message', async () => {
    const headers = {
      ':message-type': 'error',
      ':error-code': 'InternalFailure',
      ':error-message': 'The server had an internal failure',
    };
    serve(
      'error-message',
      Buffer.concat([...answerStart, Buffer.from(encodeEventStreamMessage(headers, ''))]),
    );
    const adapter = bedrock();
    const { events, error } = await collectStream(adapter.stream(request));
    await adapter.close();
    expect(error).toMatchObject({
      errorClass: 'server_error',
      providerCode: 'internalFailure',
      providerMessage: 'The server had an internal failure',
    });
    expect(finishOf(events).content).toMatchObject([{ type: 'text', text: 'Hello, world' }]);
  });

  it('a tool call started on the index of an open text block is kept after the text, never lost', async () => {
    const frames = [
      ...answerStart,
      event('contentBlockStart', {
        contentBlockIndex: 0,
        start: { toolUse: { toolUseId: 'tooluse_reused', name: 'lookup' } },
      }),
      event('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: '{"q":"x"}' } } }),
      event('contentBlockStop', { contentBlockIndex: 0 }),
      event('messageStop', { stopReason: 'tool_use' }),
      event('metadata', { usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 } }),
    ];
    serve('reused-index', Buffer.concat(frames));
    const adapter = bedrock();
    const { events, error } = await collectStream(adapter.stream(request));
    await adapter.close();
    expect(error).toBeUndefined();
    assertStreamInvariants(events);
    const response = finishOf(events);
    expect(response.finishReason).toBe('tool-call');
    expect(response.content).toMatchObject([
      { type: 'text', text: 'Hello, world' },
      { type: 'tool-call', name: 'lookup', input: { q: 'x' } },
    ]);
  });

  it('a whole stream still finishes cleanly (the frames above are the only fault)', async () => {
    const end = [
      event('contentBlockStop', { contentBlockIndex: 0 }),
      event('messageStop', { stopReason: 'end_turn' }),
      event('metadata', { usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 } }),
    ];
    serve('whole', Buffer.concat([...answerStart, ...end]));
    const adapter = bedrock();
    const response = await adapter.stream(request).result();
    await adapter.close();
    expect(response).toMatchObject({ finishReason: 'completed', usage: { input: 3, output: 4 } });
  });
});

describe('expired credentials: refreshed once, then auth', () => {
  const expired = () =>
    bedrockError(403, 'ExpiredTokenException', 'The security token included in the request is expired');

  it('Bedrock: a rotating credentials source is asked again (forceRefresh) once; a second refusal is auth', async () => {
    const asked: Array<boolean | undefined> = [];
    const credentials = async (options?: { forceRefresh?: boolean }) => {
      asked.push(options?.forceRefresh);
      return staticKeys;
    };
    const before = emulator.requests.length;
    emulator.enqueue(expired());
    emulator.enqueue(expired());
    const adapter = bedrock({ credentials });
    const error = await adapter.complete(request).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorClass: 'auth', status: 403 });
    expect(asked).toEqual([false, true]);
    expect(emulator.requests.length - before).toBe(2);
    emulator.enqueue(expired());
    emulator.enqueue({
      type: 'scripted',
      protocol: 'bedrock-converse',
      content: [{ type: 'text', text: 'renewed' }],
    });
    const { events } = await collectStream(adapter.stream(request));
    expect(finishOf(events)).toMatchObject({
      finishReason: 'completed',
      content: [{ type: 'text', text: 'renewed' }],
    });
    await adapter.close();
  });

  it('Bedrock: a 403 AccessDeniedException (no access to the model) is no stale credential: answered at once, not refreshed and sent again', async () => {
    const asked: Array<boolean | undefined> = [];
    const credentials = async (options?: { forceRefresh?: boolean }) => {
      asked.push(options?.forceRefresh);
      return staticKeys;
    };
    const before = emulator.requests.length;
    emulator.enqueue(
      bedrockError(
        403,
        'AccessDeniedException',
        "You don't have access to the model with the specified model ID.",
      ),
    );
    const adapter = bedrock({ credentials });
    const error = await adapter.complete(request).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorClass: 'auth', status: 403 });
    expect(asked).toEqual([false]);
    expect(emulator.requests.length - before).toBe(1);
    await adapter.close();
  });

  it('Vertex: a reused token that is refused is dropped and fetched once more; a second refusal is auth', async () => {
    let fetched = 0;
    const getAccessToken = async () => ({
      token: `ya29.token-${++fetched}`,
      expiresAt: Date.now() + 3_600_000,
    });
    const adapter = createVertex({
      getAccessToken,
      env: {},
      baseURL: `${emulator.url}/v1/projects/p/locations/us-east5`,
      maxRetries: 0,
      logger: silentLogger,
    });
    const vertexRequest = { ...request, model: 'vertex:gemini-2.5-flash' };
    emulator.enqueue({ type: 'scripted', protocol: 'gemini', content: [{ type: 'text', text: 'first' }] });
    expect((await adapter.complete(vertexRequest)).content).toMatchObject([{ text: 'first' }]);
    expect(fetched).toBe(1);
    const refused = () =>
      googleError(401, 'Request had invalid authentication credentials.', 'UNAUTHENTICATED');
    emulator.enqueue(refused());
    emulator.enqueue(refused());
    const error = await adapter.complete(vertexRequest).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorClass: 'auth', status: 401 });
    expect(fetched).toBe(2);
    const last = emulator.requests.at(-1)?.headers.authorization;
    expect(last).toBe('Bearer ya29.token-2');
    await adapter.close();
  });
});

describe('a region that does not exist', () => {
  it('is a network error naming no secret (the endpoint does not resolve), sent to that region', async () => {
    const hosts: string[] = [];
    const fetch = (async (input: string | URL | Request) => {
      hosts.push(new URL(String(input instanceof Request ? input.url : input)).host);
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('getaddrinfo ENOTFOUND bedrock-runtime.xx-nowhere-9.amazonaws.com'), {
          code: 'ENOTFOUND',
        }),
      });
    }) as typeof globalThis.fetch;
    const adapter = createBedrock({
      region: 'xx-nowhere-9',
      credentials: staticKeys,
      env: {},
      fetch,
      maxRetries: 0,
      logger: silentLogger,
    });
    const { events, error } = await collectStream(adapter.stream(request));
    expect(error).toMatchObject({ errorClass: 'network' });
    expect(String((error as Error).message)).not.toContain(staticKeys.secretAccessKey);
    expect(hosts).toEqual(['bedrock-runtime.xx-nowhere-9.amazonaws.com']);
    expect(finishOf(events).finishReason).toBe('error');
    await adapter.close();
  });

  it('a region that is not a region name fails before any request (invalid_region)', async () => {
    const adapter = createBedrock({
      region: 'us_east/1',
      credentials: staticKeys,
      env: {},
      maxRetries: 0,
      logger: silentLogger,
    });
    await expect(adapter.complete(request)).rejects.toMatchObject({
      errorClass: 'invalid_request',
      providerCode: 'invalid_region',
    });
    await adapter.close();
  });

  it('a model id outside the grammar never reaches a URL (invalid_model_name)', async () => {
    const adapter = bedrock();
    const before = emulator.requests.length;
    await expect(adapter.complete({ ...request, model: 'bedrock:../../admin?x=1' })).rejects.toMatchObject({
      errorClass: 'invalid_request',
      providerCode: 'invalid_model_name',
    });
    expect(emulator.requests.length).toBe(before);
    await adapter.close();
  });
});

describe('an adapter without a region', () => {
  /** A fetch that records every URL and authorization it is given and answers nothing. */
  function recording() {
    const sent: string[] = [];
    const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      sent.push(
        `${String(input instanceof Request ? input.url : input)} ${new Headers(init?.headers).get('authorization')}`,
      );
      throw new TypeError('fetch failed');
    }) as typeof globalThis.fetch;
    return { sent, fetch };
  }
  const bearer = { apiKey: 'ABSKbearer-no-region-0001' };

  it('refuses a call before any credential is sent, as a configuration error naming region and AWS_REGION (bearer key and SigV4, default retries)', async () => {
    for (const credential of [bearer, { credentials: staticKeys }]) {
      const { sent, fetch } = recording();
      const adapter = createBedrock({ ...credential, env: {}, fetch, logger: silentLogger });
      const error = await adapter.complete(request).catch((caught: unknown) => caught);
      expect(sent).toEqual([]);
      expect(error).toMatchObject({ errorClass: 'auth', providerCode: 'not_configured', retryable: false });
      expect((error as Error).message).toMatch(/no AWS region.*region option.*AWS_REGION/);
      expect((error as Error).message).not.toContain('invalid-region');
      await expect(adapter.listModels()).rejects.toMatchObject({ providerCode: 'not_configured' });
      expect(sent).toEqual([]);
      await adapter.close();
    }
  });

  it("an ARN whose region is not a region name is refused naming it; an ARN's region is where the call goes", async () => {
    const { sent, fetch } = recording();
    const adapter = createBedrock({ ...bearer, env: {}, fetch, maxRetries: 0, logger: silentLogger });
    const bogus = {
      ...request,
      model: 'bedrock:arn:aws:bedrock:zz:123456789012:application-inference-profile/abc',
    };
    const error = await adapter.complete(bogus).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorClass: 'invalid_request', providerCode: 'invalid_region' });
    expect((error as Error).message).toContain('"zz"');
    expect(sent).toEqual([]);
    const arn = 'arn:aws:bedrock:eu-west-3:123456789012:application-inference-profile/abc';
    await adapter.complete({ ...request, model: `bedrock:${arn}` }).catch(() => undefined);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^https:\/\/bedrock-runtime\.eu-west-3\.amazonaws\.com\//);
    await adapter.close();
  });

  it("a base URL of the user's needs no region for a bearer key (the call is served there)", async () => {
    const adapter = bedrock({ region: undefined, credentials: undefined, ...bearer });
    emulator.enqueue({
      type: 'scripted',
      protocol: 'bedrock-converse',
      content: [{ type: 'text', text: 'hi' }],
    });
    const response = await adapter.complete(request);
    expect(response.content).toMatchObject([{ type: 'text', text: 'hi' }]);
    expect(emulator.requests.at(-1)?.headers.authorization).toBe(`Bearer ${bearer.apiKey}`);
    await adapter.close();
  });
});
