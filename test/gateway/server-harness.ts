/**
 * The gateway the server suites (`server.*.test.ts`) share: a 4 KB body limit and five keys — `team`
 * (three models), `ops` (an admin, its key from the environment), `haiku` (the fallback alone),
 * `globbed` (`up-c*`) and `haiku-and-chat` — with the helpers their tests post and scrape through.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { type GatewayHarness, rawConnection, useGatewayHarness } from './harness.ts';

/** A key's configured digest. */
export const digest = (key: string) => `sha256:${createHash('sha256').update(key).digest('hex')}`;

/** A scripted upstream reply of `text`. */
export const hello = (text = 'Hello.') => ({
  type: 'scripted' as const,
  content: [{ type: 'text' as const, text }],
  usage: { input: 3, output: 2 },
});

/** A Chat Completions body to `up-chat`, with `extra` fields. */
export const chatBody = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }], ...extra });

export interface ServerSuite {
  harness: GatewayHarness;
  /** POSTs `body` with the admin key (unless `headers` name another). */
  post(path: string, body: string, headers?: Record<string, string>): Promise<Response>;
  /** GET /metrics with the admin key (with keys configured, only an admin key may read it). */
  scrapeMetrics(): Promise<Response>;
  /** A raw socket to the gateway: what it has received so far, and when it closed. */
  rawConnection(): ReturnType<typeof rawConnection>;
}

/** Starts the shared gateway for the calling file's tests (and sets, then removes, the admin key's variable). */
export function useServerHarness(): ServerSuite {
  beforeAll(() => {
    process.env.GATEWAY_TEST_OPS_KEY = 'ops-key-2';
  });
  const harness = useGatewayHarness({
    body_limit_bytes: 4096,
    keys: [
      { name: 'team', key: digest('team-key-1'), models: ['up-chat', 'up-responses', 'up-gemini'] },
      { name: 'ops', key_env: 'GATEWAY_TEST_OPS_KEY', admin: true },
      { name: 'haiku', key: digest('haiku-key'), models: ['up-fallback'] },
      { name: 'globbed', key: digest('glob-key'), models: ['up-c*'] },
      { name: 'haiku-and-chat', key: digest('both-key'), models: ['up-fallback', 'up-chat'] },
    ],
  });
  afterAll(() => {
    // Worker processes run many files: the variable set above goes with this file.
    delete process.env.GATEWAY_TEST_OPS_KEY;
  });
  return {
    harness,
    post: (path, body, headers = {}) =>
      fetch(`${harness.server.url}${path}`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', authorization: 'Bearer ops-key-2', ...headers },
      }),
    scrapeMetrics: () =>
      fetch(`${harness.server.url}/metrics`, { headers: { authorization: 'Bearer ops-key-2' } }),
    rawConnection: () => rawConnection(harness.server.url),
  };
}
