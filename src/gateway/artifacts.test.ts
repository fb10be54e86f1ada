import { describe, expect, it } from 'vitest';
import type { Item, Part, ToolCallPart } from '../core/transcript.ts';
import { restoreArtifacts, saveArtifacts } from './artifacts.ts';
import { maxTextSignatureReads, restoreTextSignatures } from './text-signatures.ts';
import { createMemoryStore, maxArtifactReads } from './store.ts';

const thinking = (text: string, signature: string): Part => ({ type: 'reasoning', text, signature });
const call: Part = { type: 'tool-call', id: 'call_1' as never, name: 'get_weather', input: {} };

/** A memory store that counts its reads (`reads()`). */
function countingStore() {
  const store = createMemoryStore();
  let reads = 0;
  const get = store.get.bind(store);
  store.get = (id, hold) => {
    reads++;
    return get(id, hold);
  };
  return { store, reads: () => reads };
}

const callPart = (id: string): ToolCallPart => ({
  type: 'tool-call',
  id: id as never,
  name: 'step',
  input: {},
});

/** A tool item of `count` results of the call `id`. */
const resultItem = (id: string, count = 1): Item => ({
  kind: 'tool',
  parts: Array.from({ length: count }, () => ({
    type: 'tool-result' as const,
    callId: id as never,
    output: { type: 'text' as const, text: 'ok' },
    isError: false,
  })),
});

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
describe('lookups bounded per request', () => {
  const signedCall = (index: number): ToolCallPart => callPart(`call_${index}`);

  it(`a history of 1,000 calls makes ${maxArtifactReads} reads, the latest calls' (the earlier keep what the client sent)`, async () => {
    const { store, reads } = countingStore();
    for (let index = 0; index < 1000; index++)
      await saveArtifacts([{ ...signedCall(index), signature: `SIG-${index}` }], 'google', store, 60_000, '');
    const transcript: Item[] = [];
    // Only the assistant items matter here (their results would sit between them).
    for (let index = 0; index < 1000; index++)
      transcript.push({ kind: 'assistant', parts: [signedCall(index)] });
    await restoreArtifacts(transcript, store, '');
    expect(reads()).toBe(maxArtifactReads);
    const signatures = transcript.map((item) => (item.parts[0] as { signature?: string }).signature);
    expect(signatures.slice(-maxArtifactReads)).toEqual(
      Array.from({ length: maxArtifactReads }, (_, index) => `SIG-${1000 - maxArtifactReads + index}`),
    );
    expect(signatures.slice(0, -maxArtifactReads).every((signature) => signature === undefined)).toBe(true);
  });

  it(`one message of 1,000 parallel calls makes ${maxArtifactReads} reads, its first calls' (the first carries its reasoning)`, async () => {
    const { store, reads } = countingStore();
    const reply = Array.from({ length: 1000 }, (_, index) => ({
      ...signedCall(index),
      signature: `SIG-${index}`,
    }));
    await saveArtifacts(reply, 'google', store, 60_000, '');
    const transcript: Item[] = [{ kind: 'assistant', parts: reply.map((_, index) => signedCall(index)) }];
    await restoreArtifacts(transcript, store, '');
    expect(reads()).toBe(maxArtifactReads);
    const parts = transcript[0]!.parts as Array<{ signature?: string }>;
    expect(parts[0]!.signature).toBe('SIG-0');
    expect(parts[maxArtifactReads - 1]!.signature).toBe(`SIG-${maxArtifactReads - 1}`);
    expect(parts[maxArtifactReads]!.signature).toBeUndefined();
  });
});

describe('split turns joined within the bounded reads', () => {
  it('a history of 1,000 split pairs (call, result, call, result …) reads at most the bound and joins the latest reply', async () => {
    const { store, reads } = countingStore();
    const part = callPart;
    // The last reply made two calls at once; the client sent each with its result.
    await saveArtifacts([part('last_a'), part('last_b')], 'anthropic', store, 60_000, '');
    const transcript: Item[] = [];
    const result = resultItem;
    for (let index = 0; index < 1000; index++)
      transcript.push({ kind: 'assistant', parts: [part(`old_${index}`)] }, result(`old_${index}`));
    transcript.push(
      { kind: 'assistant', parts: [part('last_a')] },
      result('last_a'),
      { kind: 'assistant', parts: [part('last_b')] },
      result('last_b'),
    );
    await restoreArtifacts(transcript, store, '');
    expect(reads()).toBeLessThanOrEqual(maxArtifactReads);
    const last = transcript.at(-2)!;
    expect(last.parts.map((entry) => (entry as ToolCallPart).id)).toEqual(['last_a', 'last_b']);
  });
});

describe('split turns joined in one pass', () => {
  const part = callPart;
  const result = resultItem;

  it('a history repeating one stored reply’s split turn (A, out, B, out, C, out …) joins each repetition, the rest as sent', async () => {
    const store = createMemoryStore();
    await saveArtifacts([part('A'), part('B')], 'anthropic', store, 60_000, '');
    const transcript: Item[] = [{ kind: 'user', parts: [{ type: 'text', text: 'go' }] }];
    for (let index = 0; index < 10_000; index++)
      transcript.push(
        { kind: 'assistant', parts: [part('A')] },
        result('A'),
        { kind: 'assistant', parts: [part('B')] },
        result('B'),
        { kind: 'assistant', parts: [part('C')] },
        result('C'),
      );
    // One pass: an indexOf and a splice per join took 0.4–11 s for 30,000–240,000 such items.
    await restoreArtifacts(transcript, store, '');
    expect(transcript).toHaveLength(1 + 10_000 * 4);
    expect(transcript[1]!.parts.map((entry) => (entry as ToolCallPart).id)).toEqual(['A', 'B']);
    expect(transcript[2]!.parts).toHaveLength(2);
    expect((transcript[3]!.parts[0] as ToolCallPart).id).toBe('C');
    expect(transcript.at(-4)!.parts.map((entry) => (entry as ToolCallPart).id)).toEqual(['A', 'B']);
  });

  it('an item of calls with no results after it joins, and so does the next one (A, out A, B, C, out B)', async () => {
    const store = createMemoryStore();
    await saveArtifacts([part('A'), part('B'), part('C')], 'anthropic', store, 60_000, '');
    const transcript: Item[] = [
      { kind: 'user', parts: [{ type: 'text', text: 'go' }] },
      { kind: 'assistant', parts: [part('A')] },
      result('A'),
      { kind: 'assistant', parts: [part('B')] },
      { kind: 'assistant', parts: [part('C')] },
      result('B'),
    ];
    await restoreArtifacts(transcript, store, '');
    expect(transcript.map((item) => `${item.kind}:${item.parts.length}`)).toEqual([
      'user:1',
      'assistant:3',
      'tool:2',
    ]);
  });

  it('joins results of 150,000 parts without a spread into a call’s arguments (a RangeError, a 500)', async () => {
    const store = createMemoryStore();
    await saveArtifacts([part('A'), part('B')], 'anthropic', store, 60_000, '');
    const transcript: Item[] = [
      { kind: 'user', parts: [{ type: 'text', text: 'go' }] },
      { kind: 'assistant', parts: [part('A')] },
      result('A'),
      { kind: 'assistant', parts: [part('B')] },
      result('B', 150_000),
    ];
    await restoreArtifacts(transcript, store, '');
    expect(transcript).toHaveLength(3);
    expect(transcript[2]!.parts).toHaveLength(150_001);
  });

  it('call entries and text signatures share one bound of reads (the text signatures’ share first)', async () => {
    const { store, reads } = countingStore();
    const transcript: Item[] = [];
    for (let index = 0; index < 400; index++)
      transcript.push({
        kind: 'assistant',
        parts: [{ type: 'text', text: `step ${index}` }, part(`c${index}`)],
      });
    // As prepareTranscript does on a route to Gemini.
    const budget = { left: maxArtifactReads };
    await restoreTextSignatures(transcript, store, '', budget);
    expect(reads()).toBe(maxTextSignatureReads);
    await restoreArtifacts(transcript, store, '', budget);
    expect(reads()).toBe(maxArtifactReads);
  });
});
