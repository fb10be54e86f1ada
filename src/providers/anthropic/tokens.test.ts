/** The input-token estimate, measured against recorded token counts. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CanonicalResponse } from '../../core/request.ts';
import type { ToolCallId } from '../../core/ids.ts';
import type { Item } from '../../core/transcript.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { collect, createTestAdapter, fixture, partsOf, textRequest } from './test-support.ts';
import { estimateInputTokens, textTokens, tokenCalibration } from './tokens.ts';

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator.close();
});

async function recorded(name: string): Promise<CanonicalResponse> {
  emulator.enqueue({ type: 'replay', file: fixture(name) });
  const adapter = createTestAdapter(emulator);
  if (name.endsWith('.json')) return adapter.complete(textRequest('replay'));
  const { response } = await collect(adapter.stream(textRequest('replay')));
  if (response === undefined) throw new Error(`no response for ${name}`);
  return response;
}

function within(estimate: number, actual: number, tolerance = 0.1): boolean {
  return Math.abs(estimate - actual) <= actual * tolerance;
}

describe('estimateInputTokens', () => {
  it('meets the reconstructed anthropic-text request exactly (12 input tokens, .json and .chunks.txt)', async () => {
    // The request is not recorded; the reply ("Hello! I'm doing well, thanks for asking. How are you
    // doing today?") answers a greeting: we reconstruct it as one user message.
    const estimate = estimateInputTokens({
      transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hello, how are you?' }] }],
    });
    for (const name of ['anthropic-text.json', 'anthropic-text.chunks.txt']) {
      const response = await recorded(name);
      expect([name, response.usage.input]).toEqual([name, 12]);
      expect(estimate).toBe(12);
    }
  });

  it.each([
    'anthropic-text.json',
    'anthropic-text.chunks.txt',
    'anthropic-clear-tool-uses.1.json',
    'anthropic-clear-tool-uses.1.chunks.txt',
    'anthropic-json-output-format.1.json',
    'anthropic-json-output-format.1.chunks.txt',
  ])('counts the text of %s within 10%% of its recorded output_tokens', async (name) => {
    const response = await recorded(name);
    const text = partsOf(response.content, 'text')
      .map((part) => part.text)
      .join('');
    const estimate = textTokens(text);
    expect({ name, estimate, within: within(estimate, response.usage.output) }).toEqual({
      name,
      estimate,
      within: true,
    });
  });

  it('adds the tool-use system prompt of the model family and each tool definition', () => {
    const transcript: Item[] = [{ kind: 'user', parts: [{ type: 'text', text: 'Weather?' }] }];
    const tool = { name: 'get_weather', description: 'Weather for a city', inputSchema: { type: 'object' } };
    const without = estimateInputTokens({ transcript });
    const sonnet = estimateInputTokens({ transcript, tools: [tool], model: 'claude-sonnet-4-5' });
    const haiku3 = estimateInputTokens({ transcript, tools: [tool], model: 'claude-3-haiku-20240307' });
    const definition = textTokens(
      JSON.stringify({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }),
    );
    expect(sonnet - without).toBe(346 + definition);
    expect(haiku3 - without).toBe(264 + definition);
  });

  it('counts images at the size cap, and thinking only in the last assistant turn', () => {
    const image: Item = {
      kind: 'user',
      parts: [
        {
          type: 'media',
          modality: 'image',
          mimeType: 'image/png',
          data: { type: 'uri', uri: 'https://x/y.png' },
        },
      ],
    };
    const thinking: Item = {
      kind: 'assistant',
      parts: [
        { type: 'reasoning', text: 'many many words of thought here', signature: 's', provider: 'anthropic' },
      ],
    };
    const base = estimateInputTokens({ transcript: [] });
    expect(estimateInputTokens({ transcript: [image] }) - base).toBe(tokenCalibration.messageOverhead + 1600);
    const older = estimateInputTokens({ transcript: [thinking, image, { kind: 'assistant', parts: [] }] });
    const latest = estimateInputTokens({ transcript: [image, thinking] });
    expect(latest - older).toBe(
      textTokens('many many words of thought here') - tokenCalibration.messageOverhead,
    );
  });

  it('treats CJK characters as a token each', () => {
    expect(textTokens('東京都庁です')).toBe(6);
  });
});

describe('estimateInputTokens with stopAbove (the context-window check)', () => {
  const prose = 'The quick brown fox jumps over the lazy dog, twice; "quoted" (text) and 12345.\n';
  const request = (text: string): Item[] => [
    { kind: 'user', parts: [{ type: 'text', text: 'Read these.' }] },
    {
      kind: 'assistant',
      parts: [{ type: 'tool-call', id: 'c1' as ToolCallId, name: 'read', input: { text } }],
    },
    {
      kind: 'tool',
      parts: [
        { type: 'tool-result', callId: 'c1' as ToolCallId, isError: false, output: { type: 'text', text } },
      ],
    },
    { kind: 'user', parts: [{ type: 'text', text }] },
  ];

  it('counts only until past it: a body of many windows costs what the window holds', () => {
    const transcript = request(prose.repeat(40_000));
    const whole = estimateInputTokens({ transcript });
    const stopped = estimateInputTokens({ transcript, stopAbove: 10_000 });
    expect(whole).toBeGreaterThan(1_000_000);
    expect(stopped).toBeGreaterThan(10_000);
    // The count it returns is how far it counted: one word past the limit.
    expect(stopped).toBeLessThan(10_010);
  });

  it('a body of 30 MiB of spaces is past a 200k window (whitespace runs count: 16 spaces a token)', () => {
    const transcript: Item[] = [
      { kind: 'user', parts: [{ type: 'text', text: ' '.repeat(30 * 1024 * 1024) }] },
    ];
    expect(estimateInputTokens({ transcript, stopAbove: 200_000 })).toBeGreaterThan(200_000);
  });

  it('below it, the count is the whole count, exactly', () => {
    const transcript = request(prose.repeat(400));
    const tools = [{ name: 'read', description: prose, inputSchema: { type: 'object' } }];
    const whole = estimateInputTokens({ transcript, tools });
    expect(estimateInputTokens({ transcript, tools, stopAbove: whole })).toBe(whole);
    expect(estimateInputTokens({ transcript, tools, stopAbove: whole - 1 })).toBeGreaterThan(whole - 1);
  });
});
