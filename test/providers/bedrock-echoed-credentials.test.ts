/**
 * A Bedrock upstream (or a proxy in front of it) that echoes the request's credentials back in its
 * error: none of them reaches the error's message, `providerMessage` or `providerCode`, wherever
 * the echo stands — the body's message, the SigV4 `authorization` header's `Signature=`, the
 * exception's name (which is normalised to camelCase: redacted before, or the lowercased first
 * letter hid the session token from redaction); and a name of any length or content ends as a
 * bounded code without control characters.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.ts';
import { createBedrock } from '../../src/providers/bedrock/index.ts';
import { collectStream } from '../../src/testing/collect.ts';
import { encodeEventStreamMessage } from '../../src/transport/event-stream.ts';

/** The session token starts upper-case, as AWS's do (`IQoJ…`): the normalised name lowercases it. */
const credentials = {
  accessKeyId: 'AKIDECHOTEST00000001',
  secretAccessKey: 'echoSecretAccessKey0000000001',
  sessionToken: 'EchoSESSIONtoken0000000001',
};

/** How the test server fails the next request, given the request it received. */
let reply: (request: IncomingMessage) => {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
};
let server: Server;
let baseURL: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    const { status, headers, body } = reply(request);
    response.writeHead(status, headers);
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const request = {
  model: 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  transcript: [{ kind: 'user' as const, parts: [{ type: 'text' as const, text: 'Hi' }] }],
  maxOutputTokens: 64,
};

/** The error of one streamed call, and everything of it a user can see. */
async function failure(): Promise<{ error: Record<string, unknown>; visible: string }> {
  const bedrock = createBedrock({
    baseURL,
    region: 'us-east-1',
    credentials,
    maxRetries: 0,
    logger: silentLogger,
  });
  try {
    const error = (await collectStream(bedrock.stream(request))).error as Error & Record<string, unknown>;
    expect(error).toBeInstanceOf(Error);
    return { error, visible: `${error.message}\n${error.stack}\n${JSON.stringify(error)}` };
  } finally {
    await bedrock.close();
  }
}

describe('Bedrock: an upstream echoing the signed authorization header', () => {
  it('the signature is redacted as the key id is, the rest of the header kept', async () => {
    let authorization = '';
    reply = (received) => {
      authorization = String(received.headers.authorization);
      return {
        status: 400,
        headers: { 'content-type': 'application/json', 'x-amzn-errortype': 'ValidationException' },
        body: JSON.stringify({ message: `echo: ${authorization}` }),
      };
    };
    const { error, visible } = await failure();
    const signature = /Signature=([0-9a-f]{64})$/.exec(authorization)?.[1];
    expect(signature).toBeDefined();
    expect(visible).not.toContain(signature);
    expect(visible).not.toContain(credentials.accessKeyId);
    expect(error.providerMessage).toMatch(
      /Credential=\[REDACTED\]\/.*SignedHeaders=.*, Signature=\[REDACTED\]$/,
    );
  });
});

/** A 200 ConverseStream holding one exception message named `name`. */
function streamedException(name: string): ReturnType<typeof reply> {
  const headers = {
    ':exception-type': name,
    ':content-type': 'application/json',
    ':message-type': 'exception',
  };
  return {
    status: 200,
    headers: { 'content-type': 'application/vnd.amazon.eventstream' },
    body: Buffer.from(encodeEventStreamMessage(headers, JSON.stringify({ message: 'm' }))),
  };
}

/** Where an upstream can name its exception, each holding `name`. */
const nameSlots: Array<[string, (name: string) => ReturnType<typeof reply>]> = [
  [
    'the x-amzn-errortype header',
    (name) => ({
      status: 400,
      headers: { 'content-type': 'application/json', 'x-amzn-errortype': name },
      body: '{"message":"m"}',
    }),
  ],
  [
    "the body's __type",
    (name) => ({
      status: 400,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ __type: `com.amazon#${name}`, message: 'm' }),
    }),
  ],
  [
    "the body's code",
    (name) => ({
      status: 400,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: name, message: 'm' }),
    }),
  ],
  ["an exception frame's :exception-type", streamedException],
];

describe('Bedrock: an exception name echoing a credential', () => {
  it.each(nameSlots)(
    'in %s: the session token is redacted, not lowercased past redaction',
    async (_slot, serve) => {
      reply = (received) => serve(String(received.headers['x-amz-security-token']));
      const { error, visible } = await failure();
      expect(error.providerCode).toBe('[REDACTED]');
      expect(visible).not.toContain(credentials.sessionToken.slice(1));
    },
  );
});

describe('Bedrock: an exception name of 10 KB with ESC sequences and line breaks', () => {
  const name = `Throttling\u001b[31mRED\u001b[0m\nlevel=info msg=admin logged in ${'A'.repeat(10_000)}`;
  const expectBounded = (error: Record<string, unknown>, shape: RegExp) => {
    expect(String(error.providerCode).length).toBeLessThanOrEqual(100);
    expect(error.providerCode).toMatch(shape);
    expect(String(error.message)).not.toMatch(/\p{Cc}/u);
    expect(String(error.message).length).toBeLessThan(400);
  };

  // A header cannot hold control characters (HTTP refuses them): the length alone.
  it('in the x-amzn-errortype header (printable): a code of at most 100 characters', async () => {
    reply = () => nameSlots[0]![1](`Throttling${'A'.repeat(10_000)}`);
    expectBounded((await failure()).error, /^throttlingA+…$/);
  });

  it.each(nameSlots.slice(1))(
    'in %s: a code of at most 100 characters, its ESC sequences removed and line breaks one space',
    async (_slot, serve) => {
      reply = () => serve(name);
      expectBounded((await failure()).error, /^throttlingRED level=info msg=admin logged in A+…$/);
    },
  );
});
