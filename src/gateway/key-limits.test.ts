/** withKeyLimits: a key's max_in_flight slot is held until the reply is delivered, not only until it is built. */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { withKeyLimits } from './key-limits.ts';
import type { GatewayState } from './state.ts';

const state = () => ({ inFlightByKey: new Map<string, number>() }) as unknown as GatewayState;
const key = { name: 'single', maxInFlight: 1 } as Parameters<typeof withKeyLimits>[1];
const delivery = () => Object.assign(new EventEmitter(), { writableFinished: false, destroyed: false });

describe('withKeyLimits', () => {
  // A client that never reads a large stored reply freed its slot at once and sent the next (adversarial pass).
  it('holds the slot while the reply is still being written: the next request is a 429 until it closes', async () => {
    const gateway = state();
    const first = delivery();
    expect(await withKeyLimits(gateway, key, async () => 'reply', first)).toBe('reply');
    expect(gateway.inFlightByKey.get('single')).toBe(1);
    await expect(withKeyLimits(gateway, key, async () => 'second')).rejects.toMatchObject({
      wire: { status: 429 },
    });
    first.emit('close');
    expect(gateway.inFlightByKey.get('single')).toBeUndefined();
    expect(await withKeyLimits(gateway, key, async () => 'third')).toBe('third');
  });

  it('a reply already delivered, or none to wait for, frees the slot when served; a failure frees it too', async () => {
    const gateway = state();
    const done = Object.assign(delivery(), { writableFinished: true });
    await withKeyLimits(gateway, key, async () => 'x', done);
    expect(gateway.inFlightByKey.get('single')).toBeUndefined();
    await withKeyLimits(gateway, key, async () => 'y');
    expect(gateway.inFlightByKey.get('single')).toBeUndefined();
    await expect(
      withKeyLimits(gateway, key, async () => Promise.reject(new Error('boom')), delivery()),
    ).rejects.toThrow('boom');
    expect(gateway.inFlightByKey.get('single')).toBeUndefined();
  });
});
