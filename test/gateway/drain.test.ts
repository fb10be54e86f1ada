/**
 * Shutdown as a load balancer expects it: while requests are in flight the listener keeps
 * accepting, `/readyz` answers 503 and a new request is refused 503 with `retry-after` and
 * `connection: close` in its protocol's shape; a second `close` with a shorter grace ends the
 * drain sooner.
 */
import { request } from 'node:http';
import { expect, it } from 'vitest';
import { startGatewayHarness } from './harness.ts';

/** One request on a new connection: its status, headers and body. */
function once(
  url: string,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const outgoing = request(`${url}${path}`, { method, headers, agent: false }, (incoming) => {
        let text = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (text += chunk));
        incoming.on('end', () =>
          resolve({ status: incoming.statusCode!, headers: incoming.headers, body: text }),
        );
      });
      outgoing.on('error', reject);
      outgoing.end(body);
    },
  );
}

it('while a stream is in flight the listener accepts: /readyz and new requests get 503 with retry-after and connection: close; close(0) then ends the drain', async () => {
  const own = await startGatewayHarness();
  try {
    own.emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'w'.repeat(200) }],
      fault: { stallAfterEvents: 4 },
    });
    const response = await fetch(`${own.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'up-chat', stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    const reader = response.body!.getReader();
    await reader.read();
    const started = performance.now();
    const closing = own.server.close(30_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // New connections are still taken during the grace: a health check sees the drain.
    const ready = await once(own.server.url, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.headers.connection).toBe('close');
    const late = await once(
      own.server.url,
      'POST',
      '/v1/messages',
      JSON.stringify({ model: 'up-chat', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] }),
      { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    );
    expect(late.status).toBe(503);
    expect(late.headers['retry-after']).toBe('1');
    expect(late.headers.connection).toBe('close');
    expect(JSON.parse(late.body)).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    const chat = await once(own.server.url, 'POST', '/v1/chat/completions', '{}', {
      'content-type': 'application/json',
    });
    expect([chat.status, chat.headers['retry-after'], chat.headers.connection]).toEqual([503, '1', 'close']);
    // A shorter grace ends the drain now: the stream ends with its in-band 503, the listener closes.
    await own.server.close(0);
    await closing;
    expect(performance.now() - started).toBeLessThan(10_000);
    let rest = '';
    const decoder = new TextDecoder();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      rest += decoder.decode(chunk.value, { stream: true });
    expect(rest).toContain('the gateway shut down before this reply finished');
    await expect(once(own.server.url, 'GET', '/readyz')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  } finally {
    await own.close();
  }
}, 20_000);
