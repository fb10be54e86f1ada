/** Where a dropped part sat: looked up in the call's transcript only when a drop is logged. */
import { describe, expect, it } from 'vitest';
import type { Item, Part } from '../../core/transcript.ts';
import { createTestContext } from '../anthropic/test-support.ts';
import { locatePart, recordPartLocations } from './projection.ts';

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
