import { describe, expect, it } from 'vitest';
import { LightBody } from './light-response.ts';

describe('LightBody', () => {
  it('refuses a second read while one is pending, and the first still gets its chunk', async () => {
    const body = new LightBody(
      () => {},
      () => {},
    );
    const first = body.read();
    await expect(body.read()).rejects.toThrow('a read is already pending');
    body.enqueue(new Uint8Array([1]));
    await expect(first).resolves.toEqual({ done: false, value: new Uint8Array([1]) });
    body.close();
    await expect(body.read()).resolves.toEqual({ done: true, value: undefined });
  });
});
