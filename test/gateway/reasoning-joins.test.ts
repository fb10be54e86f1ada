/**
 * How a reply's several reasoning parts reach a client with fewer places for them: a Chat client's
 * one `reasoning_content` string has a blank line between parts (whole and streamed alike, as a
 * Responses upstream's summary parts are joined in one canonical part), and a Responses client's
 * whole reply keeps the summary parts a Responses upstream gave apart. Found by a prober: the Chat
 * string ran the parts together ("first thought.second thought.").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorScript } from '../../src/testing/emulator/types.ts';
import { chatStreamText, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(() => harness.close());

const twoThoughts = () =>
  harness.emulator.enqueue({
    type: 'scripted',
    content: [
      { type: 'reasoning', text: 'first thought.', signature: 'S1' },
      { type: 'reasoning', text: 'second thought.', signature: 'S2' },
      { type: 'text', text: 'answer' },
    ],
  } as EmulatorScript);

/** The streamed `reasoning_content` deltas of a Chat SSE body, joined. */
function streamedReasoning(body: string): string {
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map(
      (line) =>
        (JSON.parse(line.slice(6)) as { choices: Array<{ delta?: { reasoning_content?: string } }> })
          .choices[0]?.delta?.reasoning_content ?? '',
    )
    .join('');
}

describe('several reasoning parts of one reply', () => {
  for (const model of ['up-anthropic', 'up-gemini'])
    for (const stream of [false, true])
      it(`Chat client (${model}, stream ${stream}): a blank line between the parts`, async () => {
        twoThoughts();
        const response = await harness.post('/v1/chat/completions', {
          model,
          stream,
          reasoning_effort: 'low',
          messages: [{ role: 'user', content: 'hi' }],
        });
        const text = await response.text();
        expect(response.status, text).toBe(200);
        const reasoning = stream
          ? streamedReasoning(text)
          : (JSON.parse(text) as { choices: Array<{ message: { reasoning_content?: string } }> }).choices[0]!
              .message.reasoning_content;
        expect(reasoning).toBe('first thought.\n\nsecond thought.');
        if (stream) expect(chatStreamText(text)).toBe('answer');
      });

  it('Responses client of a Responses upstream: the summary parts stay apart in a whole reply', async () => {
    harness.emulator.enqueue({
      type: 'json',
      body: {
        id: 'resp_1',
        object: 'response',
        created_at: 1,
        status: 'completed',
        model: 'gpt-5-mini',
        output: [
          {
            id: 'rs_1',
            type: 'reasoning',
            encrypted_content: 'ENC1',
            summary: [
              { type: 'summary_text', text: '**Plan**\nA.' },
              { type: 'summary_text', text: '**Check**\nB.' },
            ],
          },
          {
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'hi', annotations: [] }],
          },
        ],
        usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
      },
    } as EmulatorScript);
    const response = await harness.post('/v1/responses', {
      model: 'up-responses',
      input: 'hi',
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    const json = (await response.json()) as { output: Array<{ type: string; summary?: unknown }> };
    expect(response.status, JSON.stringify(json)).toBe(200);
    expect(json.output[0]!.summary).toEqual([
      { type: 'summary_text', text: '**Plan**\nA.' },
      { type: 'summary_text', text: '**Check**\nB.' },
    ]);
  });
});
