/**
 * How far concurrent calls can take a key past its budget (the memory store; the Redis script
 * applies the same rule). A call is admitted while the key's spend plus the reservations of its
 * calls in flight is under the limit — its own reservation is not counted against it — so the
 * calls admitted together reserve less than the limit plus one reservation: with a budget that
 * one call's reservation fits, ten concurrent calls admit two, and they spend 1.35 × the budget.
 * The overshoot is under one call's reservation, never one per concurrent call.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { keyDigest } from '../support/gateway-processes.ts';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

// gpt-5-mini: $0.25 / M input, $2 / M output. A call with max_tokens 1,000 reserves ~$0.002 (its
// input bound and all of max_tokens) and bills 100 input + 1,000 output tokens: $0.002025.
const limitUsd = 0.003;
const billedUsd = (100 * 0.25 + 1000 * 2) / 1e6;

beforeAll(async () => {
  harness = await startGatewayHarness({
    keys: [
      { name: 'budgeted', key: keyDigest('key-budgeted'), budget: { usd_per_day: limitUsd } },
      { name: 'ops', key: keyDigest('key-ops'), admin: true },
    ],
  });
});
afterAll(async () => {
  await harness?.close();
});

const call = () =>
  harness.post(
    '/v1/chat/completions',
    { model: 'up-chat', max_tokens: 1000, messages: [{ role: 'user', content: 'Hi' }] },
    { authorization: 'Bearer key-budgeted' },
  );

it('ten concurrent calls against a budget one call’s reservation fits: two are admitted, spending 1.35 × the budget (under one reservation over)', async () => {
  // Each call's reply waits 300 ms: all ten are admitted or refused while the first are in flight.
  harness.emulator.setDefault({
    type: 'scripted',
    content: [{ type: 'text', text: 'ok' }],
    usage: { input: 100, output: 1000 },
    fault: { delayHeadersMs: 300 },
  });
  const statuses = await Promise.all(
    Array.from({ length: 10 }, async () => {
      const response = await call();
      await response.arrayBuffer();
      return response.status;
    }),
  );
  expect(statuses.filter((status) => status === 200)).toHaveLength(2);
  expect(statuses.filter((status) => status === 402)).toHaveLength(8);
  const usage = (await (
    await fetch(`${harness.server.url}/switchyard/v1/keys/budgeted/usage`, {
      headers: { authorization: 'Bearer key-ops' },
    })
  ).json()) as { day: { spent_micros: number; limit_usd: number; reserved_micros: number } };
  expect(usage.day.reserved_micros).toBe(0);
  expect(usage.day.spent_micros).toBe(Math.round(2 * billedUsd * 1e6));
  const limitMicros = usage.day.limit_usd * 1e6;
  expect(usage.day.spent_micros / limitMicros).toBeCloseTo(1.35, 2);
  // Over by less than one call's reservation (≥ its bill): never one per concurrent call.
  expect(usage.day.spent_micros - limitMicros).toBeLessThan(billedUsd * 1e6);
  // At its budget, the next call is refused before dispatch.
  expect((await call()).status).toBe(402);
});
