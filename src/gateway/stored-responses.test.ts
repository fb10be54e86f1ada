/**
 * `item_reference` resolution is bounded: a request naming more stored responses than
 * `maxReferencedResponses` is refused before any read, and the stored conversations are read a few
 * at a time (each may be as large as the body limit), each response once however many of its
 * items are named.
 */
import { describe, expect, it } from 'vitest';
import { RequestFieldError } from '../codecs/fields.ts';
import { responsesItemId } from '../codecs/ids.ts';
import type { ItemReference } from '../codecs/types.ts';
import type { Item } from '../core/transcript.ts';
import { maxReferencedResponses, resolveItemReferences } from './stored-responses.ts';
import type { GatewayStore } from './store.ts';

const responseId = (index: number) => `resp_${index.toString(16).padStart(50, '0')}`;

/** A store holding a one-message reply under every response id, counting reads and reads at once. */
function countingStore() {
  let inFlight = 0;
  const counts = { reads: 0, mostAtOnce: 0 };
  const store: GatewayStore = {
    async get(key) {
      counts.reads++;
      inFlight++;
      counts.mostAtOnce = Math.max(counts.mostAtOnce, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight--;
      return { transcript: [{ kind: 'assistant', parts: [{ type: 'text', text: `from ${key}` }] }] };
    },
    put: () => Promise.resolve(),
  };
  return { store, counts };
}

/** References to item 0 of each of `count` responses, each into an item of its own. */
function references(count: number, perResponse = 1): ItemReference[] {
  return Array.from({ length: count * perResponse }, (_, index) => ({
    id: responsesItemId('msg', responseId(index % count), 0),
    path: `input.${index}`,
    item: { kind: 'assistant', parts: [] } as Item,
    at: 0,
  }));
}

describe('resolveItemReferences', () => {
  it('reads each stored response once, at most 8 at a time, and puts every referenced part in place', async () => {
    const { store, counts } = countingStore();
    const named = references(40, 3);
    await resolveItemReferences(store, named, 'scope');
    expect(counts.reads).toBe(40);
    expect(counts.mostAtOnce).toBeLessThanOrEqual(8);
    expect(named[41]!.item.parts).toEqual([{ type: 'text', text: `from response:scope:${responseId(1)}` }]);
  });

  it('refuses a request naming more than maxReferencedResponses responses before reading any', async () => {
    const { store, counts } = countingStore();
    const error = await resolveItemReferences(store, references(maxReferencedResponses + 1), 'scope').catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(RequestFieldError);
    expect((error as Error).message).toContain(`at most ${maxReferencedResponses}`);
    expect(counts.reads).toBe(0);
  });
});
