/**
 * `item_reference` resolution is bounded: a request naming more stored responses than
 * `maxReferencedResponses` is refused before any read, and the stored conversations are read a few
 * at a time (each may be as large as the body limit), each response once however many of its
 * items are named. The parts are put in place in one pass per item (work linear in the references,
 * counted on the item's parts array), and the request's share of the bytes in flight is taken
 * before any part is copied.
 */
import { describe, expect, it } from 'vitest';
import { RequestFieldError } from '../codecs/fields.ts';
import { responsesItemId } from '../codecs/ids.ts';
import type { ItemReference } from '../codecs/types.ts';
import type { Item, Part } from '../core/transcript.ts';
import { approximateSize } from '../core/value-shape.ts';
import { maxItemReferences, maxReferencedResponses, resolveItemReferences } from './stored-responses.ts';
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

  it('refuses more than maxItemReferences references, even all to one response, with a 400 naming input, before any read', async () => {
    const { store, counts } = countingStore();
    const error = await resolveItemReferences(store, references(1, maxItemReferences + 1), 'scope').catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(RequestFieldError);
    expect((error as RequestFieldError).field).toBe('input');
    expect((error as Error).message).toContain(`at most ${maxItemReferences}`);
    expect(counts.reads).toBe(0);
  });

  it('references around and between an item’s parts land before the part at their place, in the order sent', async () => {
    const { store } = countingStore();
    const [a, b] = [
      { type: 'text', text: 'a' },
      { type: 'text', text: 'b' },
    ] satisfies Part[];
    const item: Item = { kind: 'assistant', parts: [a, b] };
    const named = [0, 0, 1, 2].map((at, index) => ({
      id: responsesItemId('msg', responseId(index), 0),
      path: `input.${index}`,
      item,
      at,
    }));
    await resolveItemReferences(store, named, 'scope');
    const from = (index: number) => ({ type: 'text', text: `from response:scope:${responseId(index)}` });
    expect(item.parts).toEqual([from(0), from(1), a, from(2), b, from(3)]);
  });

  it('N references into one item: its parts are built once — work on them linear in N, not a splice per reference (O(N²))', async () => {
    const { store } = countingStore();
    /** Reads and writes of the item's parts array while `count` references to one response are put in it. */
    const work = async (count: number) => {
      let operations = 0;
      const counted = new Proxy([] as Part[], {
        get: (target, key, receiver) => (operations++, Reflect.get(target, key, receiver)),
        set: (target, key, value, receiver) => (operations++, Reflect.set(target, key, value, receiver)),
        deleteProperty: (target, key) => (operations++, Reflect.deleteProperty(target, key)),
      });
      const item: Item = { kind: 'assistant', parts: counted };
      const named = references(1, count).map((reference) => ({ ...reference, item }));
      await resolveItemReferences(store, named, 'scope');
      expect(item.parts).toHaveLength(count);
      return operations;
    };
    const [once, four] = [await work(200), await work(800)];
    // Spliced one by one: ~N²/2 moves (20,000 and 320,000) — sixteen times more at four times the references.
    expect(four).toBeLessThanOrEqual(10 * 800);
    expect(four).toBeLessThanOrEqual(4 * Math.max(once, 10) + 10);
  });

  it('takes the copies’ size (each stored part sized once) before copying any: a refusal leaves the item as it was', async () => {
    const { store } = countingStore();
    const item: Item = { kind: 'assistant', parts: [] };
    const named = references(1, 3).map((reference) => ({ ...reference, item }));
    const held: number[] = [];
    const overloaded = new Error('503');
    const error = await resolveItemReferences(store, named, 'scope', (bytes) => {
      held.push(bytes);
      throw overloaded;
    }).catch((caught: unknown) => caught);
    expect(error).toBe(overloaded);
    expect(item.parts).toEqual([]);
    const part = { type: 'text', text: `from response:scope:${responseId(0)}` };
    // As `approximateSize` of the three copies: 2 for the array, each part's size.
    expect(held).toEqual([2 + 3 * approximateSize(part)]);
  });
});
