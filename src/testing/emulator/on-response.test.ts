/** `onResponse`: one report per request served, with its status and whether the response was whole. */
import { describe, expect, it } from 'vitest';
import { type ServedRequest, startEmulator } from './index.ts';

const chatBody = { model: 'gpt-4.1-nano', stream: true, messages: [{ role: 'user', content: 'Hi' }] };

async function post(url: string): Promise<void> {
  try {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer test-key' },
      body: JSON.stringify(chatBody),
    });
    await response.text();
  } catch {
    // a disconnect fault fails the read; the report is what this test checks
  }
}

describe('startEmulator onResponse', () => {
  it('reports method, path, status and completeness once per request', async () => {
    const served: ServedRequest[] = [];
    const emulator = await startEmulator({ onResponse: (entry) => served.push(entry) });
    try {
      const events = Array.from({ length: 4 }, (_, index) => ({ data: { index } }));
      emulator.enqueue({ type: 'sse', events });
      emulator.enqueue({ type: 'sse', events, fault: { disconnectAfterEvents: 2 } });
      emulator.enqueue({ type: 'json', status: 429, body: { error: { message: 'slow down' } } });
      for (let index = 0; index < 3; index++) await post(emulator.url);
      await fetch(`${emulator.url}/nowhere`).then((response) => response.text());
      await expect.poll(() => served.length).toBe(4);
      expect(
        served.map(({ method, path, status, complete }) => ({ method, path, status, complete })),
      ).toEqual([
        { method: 'POST', path: '/v1/chat/completions', status: 200, complete: true },
        { method: 'POST', path: '/v1/chat/completions', status: 200, complete: false },
        { method: 'POST', path: '/v1/chat/completions', status: 429, complete: true },
        { method: 'GET', path: '/nowhere', status: 500, complete: true },
      ]);
      for (const entry of served) expect(entry.durationMs).toBeGreaterThanOrEqual(0);
    } finally {
      await emulator.close();
    }
  });
});
