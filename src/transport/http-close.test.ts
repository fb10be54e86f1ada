import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HttpClient, type HttpCall } from './http.ts';

describe('HttpClient.close()', () => {
  it('is final: a call after it fails with a classified error and builds no new connection pool', async () => {
    const server = createServer((_request, response) => response.end('{}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const call: HttpCall = {
      method: 'GET',
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
      headers: {},
      provider: 'test',
    };
    const client = new HttpClient({ timeoutMs: 5000 });
    const send = async () => {
      const controller = new AbortController();
      const timers = client.createTimers(controller);
      try {
        const response = await client.send(call, controller, timers);
        await response.body?.cancel();
        return response.status;
      } finally {
        timers.dispose();
      }
    };
    try {
      expect(await send()).toBe(200);
      await client.close();
      // As the adapter's own calls after close(): not a network failure, not retried.
      await expect(send()).rejects.toMatchObject({
        errorClass: 'other',
        retryable: false,
        message: expect.stringContaining('closed'),
      });
      expect((client as unknown as { transport: unknown }).transport).toBeUndefined();
    } finally {
      await client.close();
      server.close();
    }
  });
});
