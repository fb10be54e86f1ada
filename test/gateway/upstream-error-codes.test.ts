/**
 * What a gateway client reads of an upstream's error code: the code an upstream names its failure
 * with is its own text, so a Bedrock exception name echoing the gateway's session token reaches the
 * client redacted (it was lowercased past redaction: "failed with 400 gwSESSIONTOKEN…"), and a name
 * of 10 KB reaches it bounded, without the line breaks and ESC sequences it held.
 */
import Anthropic from '@anthropic-ai/sdk';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGateway, type Gateway, type GatewayServer } from 'switchyard-ai/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEventStreamMessage } from '../../src/transport/event-stream.ts';

const sessionToken = 'GwSESSIONTOKEN0001xyz';

/** How the upstream fails the next request, given the request it received. */
let reply: (request: IncomingMessage) => {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
};
let upstream: Server;
let gateway: Gateway;
let server: GatewayServer;
let client: Anthropic;
const accessLog: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  upstream = createServer((request, response) => {
    request.resume();
    const { status, headers, body } = reply(request);
    response.writeHead(status, headers);
    response.end(body);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const baseURL = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  gateway = createGateway({
    accessLog: (entry) => void accessLog.push(entry as unknown as Record<string, unknown>),
    logger: { warn: () => {} },
    env: {
      AWS_ACCESS_KEY_ID: 'AKIDGATEWAY000001',
      AWS_SECRET_ACCESS_KEY: 'gwSECRETgwSECRET0001',
      AWS_SESSION_TOKEN: sessionToken,
    },
    config: {
      builtins: false,
      adapters: {
        aws: { type: 'bedrock', base_url: baseURL, max_retries: 0, options: { region: 'us-east-1' } },
      },
      models: { 'aws:anthropic.claude-3-haiku-20240307-v1:0': { aliases: ['haiku'] } },
    },
  });
  server = await gateway.listen({ port: 0 });
  client = new Anthropic({ baseURL: server.url, apiKey: 'client-key', maxRetries: 0 });
});

afterAll(async () => {
  await server.close();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

/** The error an Anthropic SDK client gets for one call, streamed or not. */
async function clientError(stream: boolean): Promise<{ status?: number; text: string }> {
  const params = { model: 'haiku', max_tokens: 50, messages: [{ role: 'user' as const, content: 'hi' }] };
  try {
    if (stream) for await (const _event of client.messages.stream(params));
    else await client.messages.create(params);
  } catch (error) {
    const failure = error as { status?: number; message: string; error?: unknown };
    return { status: failure.status, text: `${failure.message} | ${JSON.stringify(failure.error)}` };
  }
  throw new Error('the call succeeded');
}

describe('gateway: an upstream exception name reaches the client redacted and bounded', () => {
  it.each([false, true])('the session token echoed in x-amzn-errortype (stream: %s)', async (stream) => {
    reply = (request) => ({
      status: 400,
      headers: {
        'content-type': 'application/json',
        'x-amzn-errortype': String(request.headers['x-amz-security-token']),
      },
      body: '{"message":"m"}',
    });
    const { status, text } = await clientError(stream);
    expect(status).toBe(400);
    expect(text).toContain('failed with 400 [REDACTED]: m');
    expect(text).not.toContain(sessionToken.slice(1));
    expect(JSON.stringify(accessLog)).not.toContain(sessionToken.slice(1));
  });

  const name = `throttling\u001b[31mRED\u001b[0m\nlevel=info msg=admin logged in ${'A'.repeat(10_000)}`;
  const served: Array<[string, boolean, () => ReturnType<typeof reply>]> = [
    [
      "a 400 body's code",
      false,
      () => ({
        status: 400,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: name, message: 'm' }),
      }),
    ],
    [
      "a stream's exception frame",
      true,
      () => ({
        status: 200,
        headers: { 'content-type': 'application/vnd.amazon.eventstream' },
        body: Buffer.from(
          encodeEventStreamMessage(
            { ':exception-type': name, ':content-type': 'application/json', ':message-type': 'exception' },
            '{"message":"m"}',
          ),
        ),
      }),
    ],
  ];

  it.each(served)('a 10 KB name with ESC sequences and line breaks in %s', async (_where, stream, serve) => {
    reply = serve;
    const { text } = await clientError(stream);
    expect(text).toContain('throttlingRED level=info msg=admin logged in AAAA');
    expect(text).not.toMatch(/\p{Cc}|\\u001b|\\n/u);
    expect(text).not.toContain('A'.repeat(100));
    expect(text.length).toBeLessThan(1000);
  });
});
