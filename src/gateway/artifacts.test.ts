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

  it('puts reasoning that followed a call back after it (reasoning, call, reasoning, call)', async () => {
    const store = createMemoryStore();
    const second: Part = { type: 'tool-call', id: 'call_2' as never, name: 'get_weather', input: {} };
    await saveArtifacts(
      [thinking('first', 'SIG-A'), call, thinking('second', 'SIG-B'), second],
      'anthropic',
      store,
      60_000,
      '',
    );
    const transcript: Item[] = [{ kind: 'assistant', parts: [{ ...call }, { ...second }] }];
    await restoreArtifacts(transcript, store, '');
    expect(
      transcript[0]!.parts.map((part) => (part.type === 'reasoning' ? part.signature : part.type)),
    ).toEqual(['SIG-A', 'tool-call', 'SIG-B', 'tool-call']);
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

describe("a reply's parallel calls sent back one turn each", () => {
  const second: Part = { type: 'tool-call', id: 'call_2' as never, name: 'get_weather', input: {} };
  const result = (id: string): Part => ({
    type: 'tool-result',
    callId: id as never,
    output: { type: 'text', text: 'ok' },
    isError: false,
  });
  /** `call_1, out_1, call_2, out_2`, as a Responses client that records each output as it runs the call. */
  const split = (): Item[] => [
    { kind: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
    { kind: 'assistant', parts: [{ ...call }] },
    { kind: 'tool', parts: [result('call_1')] },
    { kind: 'assistant', parts: [{ ...second }] },
    { kind: 'tool', parts: [result('call_2')] },
  ];
  const shape = (transcript: Item[]) =>
    transcript.map(
      (item) =>
        `${item.kind}[${item.parts.map((part) => (part.type === 'reasoning' ? part.signature : part.type)).join(',')}]`,
    );

  it('are one assistant turn and one tool turn again when the store knows they came together', async () => {
    const store = createMemoryStore();
    await saveArtifacts([thinking('both', 'SIG-A'), call, second], 'anthropic', store, 60_000, '');
    const transcript = split();
    await restoreArtifacts(transcript, store, '');
    expect(shape(transcript)).toEqual([
      'user[text]',
      'assistant[SIG-A,tool-call,tool-call]',
      'tool[tool-result,tool-result]',
    ]);
  });

  it('stay apart without a stored entry (a sequential tool loop sends the same items)', async () => {
    const transcript = split();
    await restoreArtifacts(transcript, createMemoryStore(), '');
    expect(shape(transcript)).toEqual(shape(split()));
  });

  it('stay apart when the later turn holds more than calls (text begins a new model turn)', async () => {
    const store = createMemoryStore();
    await saveArtifacts([call, second], 'anthropic', store, 60_000, '');
    const transcript = split();
    transcript[3]!.parts.unshift({ type: 'text', text: 'And Lyon:' });
    await restoreArtifacts(transcript, store, '');
    expect(shape(transcript)).toEqual([
      'user[text]',
      'assistant[tool-call]',
      'tool[tool-result]',
      'assistant[text,tool-call]',
      'tool[tool-result]',
    ]);
  });
});
