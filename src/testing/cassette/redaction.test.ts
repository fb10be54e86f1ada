/** Cassette redaction: no API key, secret header, query key or cookie reaches the file. */

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCassette, REDACTED } from './index.ts';
import { createRedaction, redactChunks, redactText, redactUrl, secretHeaderNames } from './redact.ts';
import { createTemporaryFolder, startTestServer, type TestServer } from './test-server.ts';
import type { CassetteFile } from './types.ts';

const anthropicKey = `sk-ant-api03-${'Ab3_-Zq9xY'.repeat(4)}`;
const openaiKey = `sk-proj-${'Q7w_E4r-T1'.repeat(4)}`;
const googleKey = `AIza${'SyD4-k_9Lm'.repeat(3)}5678`;
const groqKey = `gsk_${'Ab12Cd34Ef'.repeat(3)}`;
const xaiKey = `xai-${'Zz98Yy76Xx'.repeat(3)}`;
const sessionToken = 'opaque-session-token-not-a-key-shape';
const allSecrets = [
  anthropicKey,
  openaiKey,
  googleKey,
  groqKey,
  xaiKey,
  sessionToken,
  'cookie-secret-value-123',
];

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

async function recordWithSecrets(file: string): Promise<void> {
  const cassette = await createCassette({ file, mode: 'record', redactHeaders: ['X-Session-Token'] });
  const body = {
    model: 'm',
    note: `echo ${anthropicKey}`,
    keys: [groqKey, { xai: xaiKey }],
    token: sessionToken,
  };
  await cassette.fetch(`${server.url}/v1/messages?key=${googleKey}&page=2`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': anthropicKey,
      authorization: `Bearer ${openaiKey}`,
      'openai-organization': 'org-public',
      'x-session-token': sessionToken,
      cookie: 'theme=dark; session=cookie-secret-value-123',
    },
    body: JSON.stringify(body),
  });
  await cassette.fetch(`${server.url}/v1/models?api_key=${googleKey}`);
  await cassette.save();
}

describe('cassette redaction', () => {
  it('the written file contains no API key, header secret or cookie', async () => {
    const file = join(folder.path, 'secrets.json');
    await recordWithSecrets(file);
    const text = await readFile(file, 'utf8');
    for (const secret of allSecrets) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/sk-[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}|gsk_|xai-[A-Za-z0-9]{20,}/);
    expect(text).toContain(REDACTED);
  });

  it('keeps non-secret headers and marks where each secret was', async () => {
    const file = join(folder.path, 'secrets.json');
    await recordWithSecrets(file);
    const [first, second] = (JSON.parse(await readFile(file, 'utf8')) as CassetteFile).exchanges;
    expect(first!.request.url).toBe(`${server.url}/v1/messages?key=${REDACTED}&page=2`);
    expect(first!.request.headers).toMatchObject({
      authorization: REDACTED,
      'x-api-key': REDACTED,
      'x-session-token': REDACTED,
      cookie: REDACTED,
      'openai-organization': 'org-public',
    });
    expect(first!.request.body).toEqual({
      keys: [REDACTED, { xai: REDACTED }],
      model: 'm',
      note: `echo ${REDACTED}`,
      token: REDACTED,
    });
    expect(first!.response.headers['set-cookie']).toBe(REDACTED);
    expect(first!.response.body).toMatchObject({ session: REDACTED, echo: { token: REDACTED } });
    expect(second!.response.body).toEqual({ object: 'list', url: `/v1/models?api_key=${REDACTED}` });
  });

  it('replays a recording made with secrets when the same secrets are sent again', async () => {
    const file = join(folder.path, 'secrets.json');
    await recordWithSecrets(file);
    const cassette = await createCassette({ file, mode: 'replay', redactHeaders: ['x-session-token'] });
    const response = await cassette.fetch(`${server.url}/v1/models?api_key=${googleKey}`);
    expect(response.status).toBe(200);
  });
});

describe('redaction of text', () => {
  const redaction = createRedaction(secretHeaderNames(), []);

  it('does not redact words that merely contain sk-', () => {
    expect(redactText('risk-assessment-for-everything', redaction)).toBe('risk-assessment-for-everything');
    expect(redactText(`key=${openaiKey}.`, redaction)).toBe(`key=${REDACTED}.`);
  });

  it('redacts a key split across two stream chunks', () => {
    const chunks = [
      'data: {"a":1}\n\n',
      `data: {"k":"${openaiKey.slice(0, 12)}`,
      `${openaiKey.slice(12)}"}\n\n`,
      'x',
    ];
    const redacted = redactChunks(chunks, redaction);
    expect(redacted).toEqual(['data: {"a":1}\n\n', `data: {"k":"${REDACTED}"}\n\n`, 'x']);
  });

  it('a URL userinfo split across chunks: the chunks it spans are merged and the password removed', () => {
    const body = 'data: {"delta":"use postgres://admin:hunter2pass@db.internal/app"}\n\n';
    const redactedBody = `data: {"delta":"use postgres://${REDACTED}@db.internal/app"}\n\n`;
    for (const cut of ['postgres', '://', 'admin', 'ter2', 'pass@']) {
      const at = body.indexOf(cut) + 2;
      const chunks = ['data: {"a":1}\n\n', body.slice(0, at), body.slice(at), 'x'];
      const redacted = redactChunks(chunks, redaction);
      expect(redacted.join('')).not.toContain('hunter2');
      expect(redacted).toEqual(['data: {"a":1}\n\n', redactedBody, 'x']);
    }
    const afterAt = body.indexOf('@') + 1;
    expect(redactChunks([body.slice(0, afterAt), body.slice(afterAt)], redaction)).toEqual([
      redactedBody.slice(0, redactedBody.indexOf('@') + 1),
      body.slice(afterAt),
    ]);
  });

  it('redacts secret query parameters whatever their case', () => {
    expect(redactUrl('https://example.com/v1?API_KEY=abc&Key=def&keep=1', redaction)).toBe(
      `https://example.com/v1?API_KEY=${REDACTED}&Key=${REDACTED}&keep=1`,
    );
  });
});
