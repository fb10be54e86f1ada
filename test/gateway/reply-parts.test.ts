/**
 * Reply parts a client's protocol has no place for are never lost in silence. A Gemini image
 * model's `inlineData` output comes back whole to a Gemini client, streamed and not; a client of
 * another protocol gets the rest of the reply, and the gateway logs one WARN naming what was left
 * out. Before, every client lost the image without a word (and the access log billed its tokens).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EmulatorScript } from '../../src/testing/emulator/types.ts';
import { type GatewayHarness, startGatewayHarness, upstreams } from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => {
  harness.emulator.clear();
  harness.logger.entries.length = 0;
});
afterAll(() => harness.close());

const image = { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUg==' } };
const candidate = (parts: unknown[], finishReason?: string) => ({
  candidates: [{ content: { role: 'model', parts }, index: 0, ...(finishReason ? { finishReason } : {}) }],
  usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 1290, totalTokenCount: 1295 },
  modelVersion: 'gemini-2.5-flash-image',
});
const whole: EmulatorScript = {
  type: 'json',
  body: candidate([{ text: 'Here is your cat:' }, image], 'STOP'),
};
const streamed: EmulatorScript = {
  type: 'sse',
  events: [
    { data: JSON.stringify(candidate([{ text: 'Here is your cat:' }])) },
    { data: JSON.stringify(candidate([image], 'STOP')) },
  ],
};

const post = (path: string, body: unknown) =>
  fetch(`${harness.server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k', 'x-goog-api-key': 'k' },
    body: JSON.stringify(body),
  });
const leftOut = () =>
  harness.logger.entries.filter((entry) => entry.message === 'gateway: part of the reply was left out');
const model = upstreams.gemini.alias;
const ask = { contents: [{ role: 'user', parts: [{ text: 'Draw a cat.' }] }] };

describe('reply parts a protocol cannot carry', () => {
  it('a Gemini client gets an image model’s inlineData back, whole and streamed, with no WARN', async () => {
    harness.emulator.enqueue(whole);
    const body = (await (await post(`/v1beta/models/${model}:generateContent`, ask)).json()) as {
      candidates: Array<{ content: { parts: unknown[] } }>;
    };
    expect(body.candidates[0]!.content.parts).toEqual([{ text: 'Here is your cat:' }, image]);
    harness.emulator.enqueue(streamed);
    const text = await (await post(`/v1beta/models/${model}:streamGenerateContent?alt=sse`, ask)).text();
    const parts = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .flatMap(
        (line) =>
          (JSON.parse(line.slice(6)) as { candidates: Array<{ content: { parts: unknown[] } }> })
            .candidates[0]!.content.parts,
      );
    expect(parts).toContainEqual(image);
    expect(leftOut()).toEqual([]);
  });

  it('an image’s thoughtSignature reaches the Gemini client wrapped, and goes back upstream as it came', async () => {
    harness.emulator.enqueue({
      type: 'json',
      body: candidate([{ ...image, thoughtSignature: 'SIG_IMAGE_1' }], 'STOP'),
    });
    const first = (await (await post(`/v1beta/models/${model}:generateContent`, ask)).json()) as {
      candidates: Array<{ content: { role: string; parts: Array<Record<string, unknown>> } }>;
    };
    const [returned] = first.candidates[0]!.content.parts;
    expect(returned).toMatchObject(image);
    expect(typeof returned!.thoughtSignature).toBe('string');
    harness.emulator.enqueue({ type: 'json', body: candidate([{ text: 'Edited.' }], 'STOP') });
    const next = {
      contents: [
        ...ask.contents,
        first.candidates[0]!.content,
        { role: 'user', parts: [{ text: 'Make it blue.' }] },
      ],
    };
    expect((await post(`/v1beta/models/${model}:generateContent`, next)).status).toBe(200);
    const sent = harness.emulator.requests.at(-1)!.body as { contents: Array<{ parts: unknown[] }> };
    expect(sent.contents[1]!.parts).toEqual([{ ...image, thoughtSignature: 'SIG_IMAGE_1' }]);
  });

  it.each([
    [
      'anthropic-messages',
      '/v1/messages',
      { model, max_tokens: 64, messages: [{ role: 'user', content: 'Draw a cat.' }] },
    ],
    ['openai-chat', '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'Draw a cat.' }] }],
    ['openai-responses', '/v1/responses', { model, input: 'Draw a cat.' }],
  ])('a %s client gets the text, and one WARN names the image left out', async (protocol, path, body) => {
    for (const [script, stream] of [
      [whole, false],
      [streamed, true],
    ] as const) {
      harness.logger.entries.length = 0;
      harness.emulator.enqueue(script);
      const reply = await post(path, { ...body, stream });
      expect(reply.status).toBe(200);
      expect(await reply.text()).toContain('Here is your cat:');
      expect(leftOut()).toEqual([
        expect.objectContaining({
          fields: expect.objectContaining({ protocol, parts: ['custom:inlineData'] }),
        }),
      ]);
    }
  });
});
