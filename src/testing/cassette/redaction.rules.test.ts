/**
 * Cassette redaction follows the one redaction module's full rules: credential-like request header
 * names, registered secrets, SigV4 authorization and presigned query parameters — and a redacted
 * cassette still replays.
 */

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { redactUrl as redactLoggedUrl, registerSecrets } from '../../core/redaction.ts';
import { createCassette, REDACTED } from './index.ts';
import { createRedaction, redactHeaders, secretHeaderNames } from './redact.ts';
import { createTemporaryFolder, startTestServer, type TestServer } from './test-server.ts';
import type { CassetteFile } from './types.ts';

const sessionToken = 'IQoJb3JpZ2luX2VjSESSIONtokenForCassetteRules0123';
const proxyKey = 'pk-live-cassette-rules-PROXY0123';
const signature = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';
const accessKeyId = 'AKIACASSETTERULES0001';
const registered = 'registered-only-secret-value-0042';

let server: TestServer;
let folder: Awaited<ReturnType<typeof createTemporaryFolder>>;

beforeEach(async () => {
  server = await startTestServer();
  folder = await createTemporaryFolder();
});

afterEach(async () => {
  await server.close();
  await folder.remove();
});

const presignedUrl = (token: string, signed: string) =>
  `${server.url}/v1/models?X-Amz-Algorithm=AWS4-HMAC-SHA256` +
  `&X-Amz-Credential=${accessKeyId}%2F20260101%2Fus-east-1%2Fbedrock%2Faws4_request` +
  `&X-Amz-Security-Token=${encodeURIComponent(token)}&X-Amz-Signature=${signed}`;

describe('cassette redaction by the redaction module rules', () => {
  it('redacts request headers named like credentials and their values wherever they appear', async () => {
    const file = join(folder.path, 'headers.json');
    const cassette = await createCassette({ file, mode: 'record' });
    await cassette.fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization:
          `AWS4-HMAC-SHA256 Credential=${accessKeyId}/20260101/us-east-1/bedrock/aws4_request, ` +
          `SignedHeaders=host;x-amz-date, Signature=${signature}`,
        'x-amz-security-token': sessionToken,
        'x-portkey-api-key': proxyKey,
        'x-amz-date': '20260101T000000Z',
      },
      body: JSON.stringify({ note: `${sessionToken} ${proxyKey} ${signature}` }),
    });
    await cassette.save();
    const text = await readFile(file, 'utf8');
    for (const secret of [sessionToken, proxyKey, signature]) expect(text).not.toContain(secret);
    const [exchange] = (JSON.parse(text) as CassetteFile).exchanges;
    expect(exchange!.request.headers).toMatchObject({
      authorization: REDACTED,
      'x-amz-security-token': REDACTED,
      'x-portkey-api-key': REDACTED,
      'x-amz-date': '20260101T000000Z',
    });
  });

  it('removes secrets registered in this process from request and response bodies', async () => {
    registerSecrets([registered]);
    const file = join(folder.path, 'registered.json');
    const cassette = await createCassette({ file, mode: 'record' });
    await cassette.fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ note: `proxy says ${registered}` }),
    });
    await cassette.save();
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(registered);
    const [exchange] = (JSON.parse(text) as CassetteFile).exchanges;
    expect(exchange!.request.body).toEqual({ note: `proxy says ${REDACTED}` });
    expect(exchange!.response.body).toMatchObject({ echo: { note: `proxy says ${REDACTED}` } });
  });

  it('redacts presigned query parameters and replays with other secret values', async () => {
    const file = join(folder.path, 'presigned.json');
    const recording = await createCassette({ file, mode: 'record' });
    await recording.fetch(presignedUrl(sessionToken, signature));
    await recording.save();
    const text = await readFile(file, 'utf8');
    for (const secret of [sessionToken, signature, accessKeyId]) expect(text).not.toContain(secret);
    const [exchange] = (JSON.parse(text) as CassetteFile).exchanges;
    expect(exchange!.request.url).toContain('X-Amz-Algorithm=AWS4-HMAC-SHA256');
    expect(exchange!.request.url).toContain(`X-Amz-Signature=${REDACTED}`);

    // A replay signs again: another signature and session token must still find the exchange.
    const replay = await createCassette({ file, mode: 'replay' });
    const response = await replay.fetch(presignedUrl(`${sessionToken}-next`, 'f'.repeat(64)));
    expect(response.status).toBe(200);
    replay.assertAllUsed();
  });

  it('keeps response headers such as rate-limit token counts', () => {
    const headers = new Headers({ 'x-ratelimit-remaining-tokens': '29990000', 'set-cookie': 'a=b' });
    const redacted = redactHeaders(headers, createRedaction(secretHeaderNames(), []), 'response');
    expect(redacted).toEqual({ 'set-cookie': REDACTED, 'x-ratelimit-remaining-tokens': '29990000' });
  });

  it('the logged form of a presigned URL hides its signature and token too', () => {
    const logged = redactLoggedUrl(presignedUrl(sessionToken, signature));
    expect(logged).not.toContain(signature);
    expect(logged).not.toContain(encodeURIComponent(sessionToken));
    expect(logged).toContain(`X-Amz-Signature=${REDACTED}`);
  });
});
