/**
 * A Bedrock upstream (or a proxy in front of it) that echoes the request's credentials back in its
 * error: none of them reaches the error's message, `providerMessage` or `providerCode`, wherever
 * the echo stands — the body's message, the SigV4 `authorization` header's `Signature=`.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.ts';
import { createBedrock } from '../../src/providers/bedrock/index.ts';
import { collectStream } from '../../src/testing/collect.ts';

const credentials = {
  accessKeyId: 'AKIDECHOTEST00000001',
  secretAccessKey: 'echoSecretAccessKey0000000001',
  sessionToken: 'echoSESSIONtoken0000000001',
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
