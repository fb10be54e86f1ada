import { describe, expect, it } from 'vitest';
import { readJson } from './generate.ts';

const request = (body: string, headers: Record<string, string> = {}) =>
  new Request('http://gateway.test/v1/chat/completions', { method: 'POST', body, headers });

describe('readJson', () => {
  it('reads a body within the limit', async () => {
    await expect(readJson(request('{"a":1}', { 'content-length': '7' }), 64)).resolves.toEqual({ a: 1 });
    await expect(readJson(request('{"a":1}'), 64)).resolves.toEqual({ a: 1 });
  });

  it('a declared length above the limit is a 413 before the body is read', async () => {
    await expect(readJson(request('{}', { 'content-length': '65' }), 64)).rejects.toMatchObject({
      wire: { status: 413 },
    });
  });

  it('a body larger than its declared length is still held to the limit (multi-byte text counted in bytes)', async () => {
    const body = JSON.stringify({ text: 'é'.repeat(40) });
    await expect(readJson(request(body, { 'content-length': '10' }), 64)).rejects.toMatchObject({
      wire: { status: 413 },
    });
  });

  it('a UTF-8 byte-order mark is dropped, and multi-byte text is decoded, with or without a declared length', async () => {
    const body = '\ufeff{"text":"héllo → 世界"}';
    const length = String(Buffer.byteLength(body));
    await expect(readJson(request(body, { 'content-length': length }), 64)).resolves.toEqual({
      text: 'héllo → 世界',
    });
    await expect(readJson(request(body), 64)).resolves.toEqual({ text: 'héllo → 世界' });
  });

  it('malformed JSON is a 400', async () => {
    await expect(readJson(request('{"a":', { 'content-length': '5' }), 64)).rejects.toMatchObject({
      wire: { status: 400 },
    });
  });
});
