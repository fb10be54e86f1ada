/**
 * An upstream whose TLS certificate does not verify (self-signed here; expired, another host's or
 * an untrusted chain alike): a classified `network` failure naming the certificate problem, not
 * retried (a new connection gets the same certificate) — never an unclassified `other`.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createOpenAI } from '../../src/providers/openai-chat/index.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url));
let server: Server;
let baseURL: string;
let requests = 0;
beforeAll(async () => {
  server = createServer(
    { cert: fixture('self-signed-cert.pem'), key: fixture('self-signed-key.pem') },
    (_, response) => {
      requests++;
      response.end('{}');
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it('a certificate that does not verify is a network failure naming it, tried once', async () => {
  let connections = 0;
  server.on('connection', () => connections++);
  const adapter = createOpenAI({ baseURL, apiKey: 'sk-test-key-0123456789', maxRetries: 3 });
  const error = await adapter
    .complete({
      model: 'openai:gpt-4.1-mini',
      transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
      maxOutputTokens: 64,
    })
    .then(
      () => undefined,
      (failure: unknown) => failure,
    );
  expect(error).toMatchObject({
    errorClass: 'network',
    retryable: false,
    providerCode: 'DEPTH_ZERO_SELF_SIGNED_CERT',
  });
  expect(String((error as Error).message)).toContain('DEPTH_ZERO_SELF_SIGNED_CERT');
  expect(String((error as Error).message)).not.toContain('sk-test-key');
  expect(connections).toBe(1);
  expect(requests).toBe(0);
});
