/** Where a dropped part sat: looked up in the call's transcript only when a drop is logged. */
import { describe, expect, it } from 'vitest';
import type { Item, Part } from '../../core/transcript.ts';
import { createTestContext } from '../anthropic/test-support.ts';
import { locatePart, namedUserItem, recordPartLocations } from './projection.ts';

describe('locatePart', () => {
  const shared: Part = { type: 'text', text: 'shared' };
  const inner: Part = {
    type: 'media',
    modality: 'image',
    mimeType: 'image/png',
    data: { type: 'uri', uri: 'https://x' },
  };
  const items: Item[] = [
    { kind: 'user', parts: [{ type: 'text', text: 'a' }, shared] },
    {
      id: 'm2' as never,
      kind: 'tool',
      parts: [
        {
          type: 'tool-result',
          callId: 'c1' as never,
          output: { type: 'parts', parts: [inner] },
          isError: false,
        },
      ],
    },
    { id: 'm3' as never, kind: 'user', parts: [shared] },
  ];

  it('names the first place a part sits, a tool result’s inner part at its tool result, and nothing for a stranger', () => {
    const context = createTestContext();
    recordPartLocations(items, context);
    expect(locatePart(context, shared)).toEqual({ messageId: null, itemIndex: 0, partIndex: 1 });
    expect(locatePart(context, inner)).toEqual({ messageId: 'm2', itemIndex: 1, partIndex: 0 });
    expect(locatePart(context, { type: 'text', text: 'a' })).toEqual({
      messageId: null,
      itemIndex: null,
      partIndex: null,
    });
  });

  it('knows nothing of a call that recorded no transcript', () => {
    expect(locatePart(createTestContext(), shared)).toEqual({
      messageId: null,
      itemIndex: null,
      partIndex: null,
    });
  });
});

describe('namedUserItem (a target without a participant-name field)', () => {
  const name = { 'switchyard.name': 'alice' };
  const image: Part = {
    type: 'media',
    modality: 'image',
    mimeType: 'image/png',
    data: { type: 'uri', uri: 'https://x' },
  };

  it('the name goes before the first text', () => {
    const item: Item = { kind: 'user', parts: [{ type: 'text', text: 'hi' }, image], metadata: name };
    expect(namedUserItem(item).parts).toEqual([{ type: 'text', text: 'alice: hi' }, image]);
    expect(item.parts[0]).toEqual({ type: 'text', text: 'hi' });
  });

  it('a turn that starts with an image gets the name as a text part before it', () => {
    const item: Item = { kind: 'user', parts: [image], metadata: name };
    expect(namedUserItem(item).parts).toEqual([{ type: 'text', text: 'alice:' }, image]);
  });

  it('an unnamed or non-user item is left as it is', () => {
    const user: Item = { kind: 'user', parts: [{ type: 'text', text: 'hi' }] };
    const assistant: Item = { kind: 'assistant', parts: [{ type: 'text', text: 'hi' }], metadata: name };
    expect(namedUserItem(user)).toBe(user);
    expect(namedUserItem(assistant)).toBe(assistant);
  });
});
