import { describe, expect, it } from 'vitest';
import { availabilitySuite } from '../../test/support/availability-suite.ts';
import { Availability, type AvailabilityStore, createMemoryAvailabilityStore } from './availability.ts';

availabilitySuite('the memory store', () => createMemoryAvailabilityStore());

/** The memory store answering through promises, as a remote store does. */
function asynchronous(): AvailabilityStore {
  const inner = createMemoryAvailabilityStore();
  return {
    get: async (key) => inner.get(key),
    transition: async (key, operation) => inner.transition(key, operation),
    onOpen: (listener) => inner.onOpen!(listener),
  };
}

availabilitySuite('an asynchronous store', asynchronous);

describe('memory store', () => {
  it('a closed circuit is admitted synchronously (no promise on the fast path)', () => {
    const availability = new Availability();
    expect(availability.check('model:a')).toEqual({ allowed: true });
  });

  it('tells listeners when a circuit opens, once per opening', async () => {
    const availability = new Availability({ policy: { failureThreshold: 2 } });
    const opened: string[] = [];
    const stop = availability.onOpen((key) => opened.push(key));
    await availability.failure('model:a');
    await availability.failure('model:a');
    await availability.failure('model:a');
    stop();
    await availability.failure('model:b', 3600);
    expect(opened).toEqual(['model:a']);
  });
});
