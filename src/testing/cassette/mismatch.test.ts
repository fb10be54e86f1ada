/** Cassette replay failures: mismatched bodies, exhausted and unused exchanges, custom matchers. */

import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../core/json.ts';
import { writeCassetteFile } from './cassette-file.ts';
import { CassetteMismatchError, createCassette, isCassetteMismatchError } from './index.ts';
import { createTemporaryFolder } from './test-server.ts';
import type { CassetteExchange } from './types.ts';

const secretKey = `sk-ant-api03-${'Zq9_Ab3-xY'.repeat(4)}`;
const url = 'https://api.example.test/v1/messages';

const exchange = (body: JsonObject, reply: string): CassetteExchange => ({
  request: { method: 'POST', url, headers: { 'x-api-key': '[REDACTED]' }, body },
  response: { status: 200, headers: { 'content-type': 'application/json' }, body: { reply } },
});

const messages = [{ role: 'user', content: 'Hello' }];
let folder: Awaited<ReturnType<typeof createTemporaryFolder>>;
let file: string;

beforeEach(async () => {
  folder = await createTemporaryFolder();
  file = join(folder.path, 'mismatch.json');
  await writeCassetteFile(file, [
    exchange({ model: 'claude', max_tokens: 100, messages }, 'first'),
    exchange({ model: 'claude', max_tokens: 100, messages, stream: false }, 'second'),
  ]);
});

afterEach(async () => {
  await folder.remove();
});

const send = (fetch: typeof globalThis.fetch, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'x-api-key': secretKey }, body: JSON.stringify(body) });

async function catchError(promise: Promise<unknown>): Promise<CassetteMismatchError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isCassetteMismatchError(error))
    throw new Error(`expected a CassetteMismatchError, got ${String(error)}`);
  return error;
}

describe('cassette mismatches', () => {
  it('a mismatched body fails with a diff naming the differing field', async () => {
    const cassette = await createCassette({ file, mode: 'replay' });
    const error = await catchError(send(cassette.fetch, { model: 'claude', max_tokens: 200, messages }));
    expect(error).toBeInstanceOf(CassetteMismatchError);
    expect(error.reason).toBe('mismatch');
    expect(error.file).toBe(file);
    expect(error.message).toContain(file);
    expect(error.message).toContain(`POST ${url}`);
    expect(error.message).toContain('-     "max_tokens": 100,');
    expect(error.message).toContain('+     "max_tokens": 200,');
    expect(error.message).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@$/m);
  });

  it('the mismatch message carries no secret header value', async () => {
    const cassette = await createCassette({ file, mode: 'replay' });
    const error = await catchError(send(cassette.fetch, { model: 'other', note: secretKey }));
    expect(error.message).not.toContain(secretKey);
    expect(error.message).toContain('[REDACTED]');
  });

  it('serves exchanges in order and matches bodies whatever their key order', async () => {
    const cassette = await createCassette({ file, mode: 'replay' });
    const first = await send(cassette.fetch, { messages, max_tokens: 100, model: 'claude' });
    expect(await first.json()).toEqual({ reply: 'first' });
    const second = await send(cassette.fetch, { stream: false, messages, max_tokens: 100, model: 'claude' });
    expect(await second.json()).toEqual({ reply: 'second' });
    cassette.assertAllUsed();
  });

  it('an exhausted cassette fails clearly', async () => {
    const cassette = await createCassette({ file, mode: 'replay' });
    await send(cassette.fetch, { model: 'claude', max_tokens: 100, messages });
    await send(cassette.fetch, { model: 'claude', max_tokens: 100, messages, stream: false });
    const error = await catchError(send(cassette.fetch, { model: 'claude', max_tokens: 100, messages }));
    expect(error.reason).toBe('exhausted');
    expect(error.message).toContain(file);
    expect(error.message).toContain('no exchange left');
    expect(error.message).toContain('all 2 recorded exchange(s) were already used');
  });

  it('assertAllUsed catches an unused exchange', async () => {
    const cassette = await createCassette({ file, mode: 'replay' });
    await send(cassette.fetch, { model: 'claude', max_tokens: 100, messages });
    let thrown: unknown;
    try {
      cassette.assertAllUsed();
    } catch (error) {
      thrown = error;
    }
    expect(isCassetteMismatchError(thrown)).toBe(true);
    expect((thrown as CassetteMismatchError).reason).toBe('unused');
    expect((thrown as CassetteMismatchError).message).toContain(`1 unused exchange(s):\n  #2 POST ${url}`);
  });

  it('a custom match function decides which exchange answers', async () => {
    const cassette = await createCassette({
      file,
      mode: 'replay',
      match: (recorded, actual) => recorded.method === actual.method,
    });
    const response = await send(cassette.fetch, { anything: true });
    expect(await response.json()).toEqual({ reply: 'first' });
  });

  it('a replay-mode cassette without its file fails naming the file', async () => {
    const missing = join(folder.path, 'missing.json');
    await expect(createCassette({ file: missing, mode: 'replay' })).rejects.toThrow(missing);
  });
});
