/**
 * The cloud adapters' credentials under attack (Bedrock, Vertex): a token an upstream echoes back is
 * never printed, a region or location that is not one never names the host a token goes to, a
 * credential source that hangs does not outlive the call, and a broken one is a classified AuthError.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Adapter } from '../../src/core/adapter.ts';
import type { CanonicalRequest } from '../../src/core/request.ts';
import { createBedrock } from '../../src/providers/bedrock/index.ts';
import { endpointOf } from '../../src/providers/bedrock/options.ts';
import { createVertex } from '../../src/providers/vertex/index.ts';

/** Answers 400 with every request header it was sent, as a careless upstream's error might. */
let echo: Server;
let echoURL: string;
const received: IncomingMessage['headers'][] = [];
beforeAll(async () => {
  echo = createServer((request, response) => {
    received.push(request.headers);
    request.resume();
    response.writeHead(400, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ message: `Bad request; you sent ${JSON.stringify(request.headers)}` }));
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoURL = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

const request = (model: string): CanonicalRequest => ({
  model,
  transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
  maxOutputTokens: 64,
});
const bedrockModel = 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const vertexModel = 'vertex:gemini-2.5-flash';

async function failure(adapter: Adapter, model: string, options: { signal?: AbortSignal } = {}) {
  return adapter.complete(request(model), options).then(
    () => undefined,
    (error: unknown) => error as Error & { errorClass?: string; providerCode?: string },
  );
}

describe('a token an upstream echoes back is never printed', () => {
  const bearer = 'ABSKQmVkcm9ja0FQSUtleS1wcm9iZXNlY3JldDEyMzQ1Njc4OTA';
  const sessionToken = 'IQoJb3JpZ2luX2VjEJrSESSIONTOKENPROBE123';
  const accessToken = 'ya29.a0AfH6SMBprobeGoogleAccessToken';

  it.each([
    [
      'Bedrock bearer token',
      () => createBedrock({ apiKey: bearer, baseURL: echoURL, maxRetries: 0 }),
      bedrockModel,
      bearer,
    ],
    [
      'Bedrock SigV4 session token',
      () =>
        createBedrock({
          region: 'us-east-1',
          credentials: {
            accessKeyId: 'AKIDPROBE0000000000',
            secretAccessKey: 'secretprobe/K7MDENG+bPxRfi',
            sessionToken,
          },
          baseURL: echoURL,
          maxRetries: 0,
        }),
      bedrockModel,
      sessionToken,
    ],
    [
      'Bedrock SigV4 access key id (in the echoed Credential=)',
      () =>
        createBedrock({
          region: 'us-east-1',
          credentials: {
            accessKeyId: 'AKIAPROBEKEYIDECHO0001',
            secretAccessKey: 'secretprobe/K7MDENG+bPxRfj',
          },
          baseURL: echoURL,
          maxRetries: 0,
        }),
      bedrockModel,
      'AKIAPROBEKEYIDECHO0001',
    ],
    [
      'Vertex OAuth access token',
      () =>
        createVertex({
          project: 'my-project',
          getAccessToken: async () => accessToken,
          baseURL: echoURL,
          maxRetries: 0,
        }),
      vertexModel,
      accessToken,
    ],
  ])('%s', async (_name, adapter, model, secret) => {
    const error = await failure(adapter(), model);
    expect(error?.errorClass).toBe('invalid_request');
    expect(error?.message).toContain('Bad request; you sent');
    expect(JSON.stringify(received.at(-1))).toContain(secret.slice(0, 20)); // it was sent…
    expect(error?.message).not.toContain(secret.slice(0, 20)); // …and is not printed
  });
});

describe('a region or location that is not one never names the host', () => {
  it.each(['x@evil.example/', 'evil.example/#', `127.0.0.1:1/steal?`])(
    'Bedrock region %j: refused before anything is sent, with a bearer token too',
    async (region) => {
      expect(new URL(endpointOf(region)).hostname.endsWith('.amazonaws.com')).toBe(true);
      const before = received.length;
      const error = await failure(
        createBedrock({ apiKey: 'ABSKprobebearertoken0001', region, maxRetries: 0 }),
        bedrockModel,
      );
      expect(error).toMatchObject({ errorClass: 'invalid_request', providerCode: 'invalid_region' });
      expect(received.length).toBe(before);
    },
  );

  it.each([
    [{ location: `127.0.0.1:1/steal?` }, 'is not a Vertex location'],
    [{ location: 'evil.example?' }, 'is not a Vertex location'],
    [{ project: '..' }, 'is not a Google Cloud project id'],
  ])('Vertex %j: refused before any token is asked for', async (fields, message) => {
    let asked = 0;
    const adapter = createVertex({
      project: 'my-project',
      ...fields,
      getAccessToken: async () => {
        asked++;
        return 'ya29.token-never-sent';
      },
      maxRetries: 0,
    });
    const error = await failure(adapter, vertexModel);
    expect(error).toMatchObject({ errorClass: 'invalid_request', providerCode: 'invalid_endpoint' });
    expect(error?.message).toContain(message);
    expect(asked).toBe(0);
  });
});

describe('a credential source that never answers does not outlive the call', () => {
  const never = () => new Promise<never>(() => {});
  const adapters: Array<[string, (timeout?: number) => Adapter, string]> = [
    [
      'Bedrock credentials()',
      (timeout) =>
        createBedrock({ region: 'us-east-1', credentials: never, baseURL: echoURL, maxRetries: 0, timeout }),
      bedrockModel,
    ],
    [
      'Vertex getAccessToken()',
      (timeout) =>
        createVertex({
          project: 'my-project',
          getAccessToken: never,
          baseURL: echoURL,
          maxRetries: 0,
          timeout,
        }),
      vertexModel,
    ],
  ];

  it.each(adapters)('%s: an abort ends it as cancelled', async (_name, adapter, model) => {
    const error = await failure(adapter(), model, { signal: AbortSignal.timeout(50) });
    expect(error?.errorClass).toBe('cancelled');
  });

  it.each(adapters)('%s: the call timeout ends it as a timeout', async (_name, adapter, model) => {
    const error = await failure(adapter(200), model);
    expect(error).toMatchObject({ errorClass: 'network' });
    expect(error?.providerCode).toMatch(/timeout/);
  });
});

describe('a broken credential source is a classified AuthError, never a TypeError or a retryable server error', () => {
  it.each([
    ['throws', () => Promise.reject(new Error('sso expired IQoJsecret')), 'not_configured'],
    ['returns undefined', async () => undefined as never, 'invalid_api_key_format'],
    ['returns {}', async () => ({}) as never, 'invalid_api_key_format'],
    [
      'returns a session token with a newline',
      async () => ({
        accessKeyId: 'AKIDPROBE',
        secretAccessKey: 'secret0000probe',
        sessionToken: 'IQoJfirst\nsecond',
      }),
      'invalid_api_key_format',
    ],
  ])('Bedrock credentials() that %s', async (_name, credentials, code) => {
    for (const call of ['complete', 'stream'] as const) {
      const adapter = createBedrock({ region: 'us-east-1', credentials, baseURL: echoURL, maxRetries: 0 });
      let error: (Error & { errorClass?: string; providerCode?: string; retryable?: boolean }) | undefined;
      if (call === 'complete') error = await failure(adapter, bedrockModel);
      else
        try {
          for await (const _event of adapter.stream(request(bedrockModel)));
        } catch (caught) {
          error = caught as typeof error;
        }
      expect(error).toMatchObject({ errorClass: 'auth', providerCode: code, retryable: false });
      expect(error?.message).not.toContain('IQoJ');
    }
  });

  it('Vertex getAccessToken() that returns no token', async () => {
    const adapter = createVertex({
      project: 'my-project',
      getAccessToken: async () => ({}) as never,
      baseURL: echoURL,
      maxRetries: 0,
    });
    expect(await failure(adapter, vertexModel)).toMatchObject({
      errorClass: 'auth',
      providerCode: 'invalid_api_key_format',
    });
  });
});
