import { describe, expect, it } from 'vitest';
import type { Item } from '../core/transcript.ts';
import { restoreTextSignatures, saveTextSignatures } from './text-signatures.ts';
import { createMemoryStore } from './store.ts';

describe('Gemini text signatures kept by the text they sign', () => {
  it('puts the signature and its offset back on the same text, in the same scope only', async () => {
    const store = createMemoryStore();
    const metadata = { 'gemini.thoughtSignature': 'SIG', 'gemini.thoughtSignatureOffset': 5 };
    await saveTextSignatures([{ type: 'text', text: 'Hello there.', metadata }], store, 60_000, 'a');
    const sent = (): Item[] => [{ kind: 'assistant', parts: [{ type: 'text', text: 'Hello there.' }] }];
    const same = sent();
    await restoreTextSignatures(same, store, 'a');
    expect(same[0]!.parts[0]).toEqual({ type: 'text', text: 'Hello there.', metadata });
    const otherScope = sent();
    await restoreTextSignatures(otherScope, store, 'b');
    expect(otherScope[0]!.parts[0]).toEqual({ type: 'text', text: 'Hello there.' });
  });

  it('looks nothing up without an unsigned assistant text, and saves nothing without a signed one', () => {
    const store = createMemoryStore();
    expect(saveTextSignatures([{ type: 'text', text: 'plain' }], store, 60_000, '')).toBeUndefined();
    expect(
      restoreTextSignatures([{ kind: 'user', parts: [{ type: 'text', text: 'plain' }] }], store, ''),
    ).toBeUndefined();
  });
});
