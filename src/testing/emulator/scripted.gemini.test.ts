/** Scripted Gemini answers: streamGenerateContent chunks and generateContent bodies. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from './index.ts';
import { geminiHeaders, parseSse, payloads, postJson } from './test-support.ts';

let emulator: Emulator;

beforeEach(async () => {
  emulator = await startEmulator();
});

afterEach(async () => {
  await emulator.close();
});

const request = { contents: [{ role: 'user', parts: [{ text: 'Weather in Rome?' }] }] };

type Candidate = {
  content: { parts: Array<Record<string, unknown>>; role: string };
  finishReason?: string;
};
type Chunk = { candidates: Candidate[]; usageMetadata: Record<string, number>; modelVersion: string };

async function stream(model: string): Promise<{ text: string; chunks: Chunk[] }> {
  const url = `${emulator.url}/v1beta/models/${model}:streamGenerateContent?alt=sse`;
  const text = await (await postJson(url, request, geminiHeaders)).text();
  return { text, chunks: payloads(parseSse(text)) as Chunk[] };
}

describe('scripted Gemini stream', () => {
  it('streams thought parts, text parts, a functionCall and a final chunk with finishReason', async () => {
    emulator.enqueue({
      type: 'scripted',
      chunkSize: 5,
      content: [
        { type: 'reasoning', text: 'Need the weather tool.', signature: 'c2lnbmF0dXJl' },
        { type: 'text', text: 'Checking now.' },
        { type: 'tool-call', name: 'weather', input: { city: 'Rome' } },
      ],
      usage: { input: 20, output: 8, reasoning: 6, cacheRead: 4 },
    });
    const { text, chunks } = await stream('gemini-2.5-flash');
    expect(text).not.toContain('[DONE]');
    expect(text).not.toContain('event:');
    const parts = chunks.flatMap((chunk) => chunk.candidates[0]?.content.parts ?? []);
    const thoughts = parts.filter((part) => part.thought === true);
    expect(thoughts.map((part) => part.text).join('')).toBe('Need the weather tool.');
    expect(thoughts.at(-1)?.thoughtSignature).toBe('c2lnbmF0dXJl');
    expect(thoughts.slice(0, -1).every((part) => part.thoughtSignature === undefined)).toBe(true);
    const visible = parts.filter((part) => typeof part.text === 'string' && part.thought === undefined);
    expect(visible.map((part) => part.text).join('')).toBe('Checking now.');
    expect(parts.find((part) => 'functionCall' in part)).toEqual({
      functionCall: { name: 'weather', args: { city: 'Rome' } },
    });
    const last = chunks.at(-1);
    expect(last?.candidates[0]?.finishReason).toBe('STOP');
    expect(chunks.slice(0, -1).every((chunk) => chunk.candidates[0]?.finishReason === undefined)).toBe(true);
    expect(last?.usageMetadata).toMatchObject({
      promptTokenCount: 24,
      candidatesTokenCount: 8,
      thoughtsTokenCount: 6,
      cachedContentTokenCount: 4,
      totalTokenCount: 38,
    });
    expect(last?.modelVersion).toBe('gemini-2.5-flash');
  });

  it('signs the first function call of a Gemini 3 response when the script gives no signature', async () => {
    emulator.enqueue({
      type: 'scripted',
      content: [
        { type: 'tool-call', name: 'first', input: {} },
        { type: 'tool-call', name: 'second', input: {} },
      ],
    });
    const { chunks } = await stream('gemini-3-pro-preview');
    const calls = chunks
      .flatMap((chunk) => chunk.candidates[0]?.content.parts ?? [])
      .filter((part) => 'functionCall' in part);
    expect(calls[0]?.thoughtSignature).toEqual(expect.stringMatching(/^[A-Za-z0-9+/]+=*$/));
    expect(calls[1]?.thoughtSignature).toBeUndefined();
  });
});

describe('scripted Gemini stream without alt=sse', () => {
  const url = () => `${emulator.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent`;

  it('streams the chunks as one JSON array, not SSE', async () => {
    emulator.enqueue({ type: 'scripted', chunkSize: 4, content: [{ type: 'text', text: 'Sunny today.' }] });
    const response = await postJson(url(), request, geminiHeaders);
    expect(response.headers.get('content-type')).toBe('application/json');
    const text = await response.text();
    expect(text).not.toContain('data:');
    expect(text.startsWith('[{')).toBe(true);
    expect(text.endsWith('}]')).toBe(true);
    const chunks = JSON.parse(text) as Chunk[];
    const parts = chunks.flatMap((chunk) => chunk.candidates[0]?.content.parts ?? []);
    expect(parts.map((part) => part.text).join('')).toBe('Sunny today.');
    expect(chunks.at(-1)?.candidates[0]?.finishReason).toBe('STOP');
  });

  it('counts each array item as an event for faults, the closing bracket as the last', async () => {
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'Hi' }],
      fault: { malformedAtEvent: 2 },
    });
    const text = await (await postJson(url(), request, geminiHeaders)).text();
    expect(text).toMatch(/^\[\{.*\},\r\n\{"type": garbage\]$/s);
  });
});

describe('scripted Gemini generateContent', () => {
  it('answers with one candidate holding every part', async () => {
    emulator.enqueue({
      type: 'scripted',
      content: [
        { type: 'reasoning', text: 'Hmm.' },
        { type: 'text', text: 'It is sunny.' },
      ],
      finishReason: 'MAX_TOKENS',
    });
    const url = `${emulator.url}/v1beta/models/gemini-2.5-pro:generateContent`;
    const body = (await (await postJson(url, request, geminiHeaders)).json()) as Chunk & {
      responseId: string;
    };
    expect(body.candidates[0]).toMatchObject({
      content: { role: 'model', parts: [{ text: 'Hmm.', thought: true }, { text: 'It is sunny.' }] },
      finishReason: 'MAX_TOKENS',
    });
    expect(body.modelVersion).toBe('gemini-2.5-pro');
    expect(body.responseId).toMatch(/^[A-Za-z0-9_-]{23}$/);
  });
});
