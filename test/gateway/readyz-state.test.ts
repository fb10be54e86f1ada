/**
 * `/readyz` over a real redis-server: with `on_state_failure: closed`, an instance that cannot reach
 * Redis refuses every request needing it (503), so it is not ready (a rolling deploy with a wrong
 * `gateway.state` fails its readiness check); with `open` it serves, and stays ready.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../support/redis-server.ts';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';

let redis: TestRedis;
let closed: GatewayHarness;
let open: GatewayHarness;

beforeAll(async () => {
  redis = await startRedis();
  closed = await startGatewayHarness({ state: redis.url, on_state_failure: 'closed' });
  open = await startGatewayHarness({ state: redis.url, on_state_failure: 'open' });
});
afterAll(async () => {
  await closed?.close();
  await open?.close();
  await redis?.close();
});

const readiness = async (harness: GatewayHarness) => (await fetch(`${harness.server.url}/readyz`)).status;

/** Polls `/readyz` until it answers `status` (at most 5 s); returns the last status. */
async function until(harness: GatewayHarness, status: number): Promise<number> {
  let last = await readiness(harness);
  for (let tries = 0; tries < 50 && last !== status; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await readiness(harness);
  }
  return last;
}

it('under on_state_failure: closed, /readyz is 503 while Redis is down, and ready again once it is back', async () => {
  expect(await readiness(closed)).toBe(200);
  await redis.stop();
  try {
    expect(await until(closed, 503)).toBe(503);
    const body = (await (await fetch(`${closed.server.url}/readyz`)).json()) as { status: string };
    expect(body.status).toBe('state unavailable');
    // Under open the instance serves from its own state: ready.
    expect(await readiness(open)).toBe(200);
  } finally {
    await redis.start();
  }
  expect(await until(closed, 200)).toBe(200);
}, 20_000);
