import { describe, expect, it } from 'vitest';
import type { Item, Part } from '../core/transcript.ts';
import { restoreArtifacts, saveArtifacts } from './artifacts.ts';
import { createMemoryStore } from './store.ts';

const thinking = (text: string, signature: string): Part => ({ type: 'reasoning', text, signature });
const call: Part = { type: 'tool-call', id: 'call_1' as never, name: 'get_weather', input: {} };

describe('signed reasoning put back for a client that has no field for it', () => {
  it('keeps interleaved thinking in its place among the text and the call', async () => {
    const store = createMemoryStore();
    const reply: Part[] = [
      thinking('first', 'SIG-A'),
      { type: 'text', text: 'Let me check.' },
      thinking('second', 'SIG-B'),
      call,
    ];
    await saveArtifacts(reply, 'anthropic', store, 60_000, '');
    // What a Chat client sends back: the text and the call, no reasoning.
    const transcript: Item[] = [
      { kind: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
      { kind: 'assistant', parts: [{ type: 'text', text: 'Let me check.' }, { ...call }] },
    ];
    await restoreArtifacts(transcript, store, '');
    expect(
      transcript[1]!.parts.map((part) => (part.type === 'reasoning' ? part.signature : part.type)),
    ).toEqual(['SIG-A', 'text', 'SIG-B', 'tool-call']);
  });

  it('never puts reasoning after the call when the client sends back fewer parts (only the call)', async () => {
    const store = createMemoryStore();
    await saveArtifacts(
      [
        thinking('first', 'SIG-A'),
        { type: 'text', text: 'Let me check.' },
        thinking('second', 'SIG-B'),
        call,
      ],
      'anthropic',
      store,
      60_000,
      '',
    );
    const transcript: Item[] = [{ kind: 'assistant', parts: [{ ...call }] }];
    await restoreArtifacts(transcript, store, '');
    expect(
      transcript[0]!.parts.map((part) => (part.type === 'reasoning' ? part.signature : part.type)),
    ).toEqual(['SIG-A', 'SIG-B', 'tool-call']);
  });

  it('puts reasoning stored without positions (an older entry) in front', async () => {
    const store = createMemoryStore();
    await store.put(
      'call::call_1',
      { provider: 'anthropic', reasoning: [thinking('only', 'SIG-A')] },
      60_000,
    );
    const transcript: Item[] = [{ kind: 'assistant', parts: [{ type: 'text', text: 'Hm.' }, { ...call }] }];
    await restoreArtifacts(transcript, store, '');
    expect(transcript[0]!.parts.map((part) => part.type)).toEqual(['reasoning', 'text', 'tool-call']);
  });
});
