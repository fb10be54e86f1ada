/**
 * Audio token counts through the gateway: an upstream's audio parts of the prompt and the reply
 * (here a Gemini upstream's `AUDIO` modality counts) reach an OpenAI Chat client as
 * `prompt_tokens_details.audio_tokens` and `completion_tokens_details.audio_tokens`; the prediction
 * counts stay 0 (`prediction` is ignored).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

/** A Gemini generateContent body whose prompt was mostly audio, part of it from a cache, and whose reply had audio. */
const geminiBody = {
  candidates: [
    { content: { role: 'model', parts: [{ text: 'Heard you.' }] }, finishReason: 'STOP', index: 0 },
  ],
  usageMetadata: {
    promptTokenCount: 1100,
    cachedContentTokenCount: 400,
    candidatesTokenCount: 30,
    totalTokenCount: 1130,
    promptTokensDetails: [
      { modality: 'TEXT', tokenCount: 100 },
      { modality: 'AUDIO', tokenCount: 1000 },
    ],
    cacheTokensDetails: [{ modality: 'AUDIO', tokenCount: 400 }],
    candidatesTokensDetails: [
      { modality: 'TEXT', tokenCount: 10 },
      { modality: 'AUDIO', tokenCount: 20 },
    ],
  },
  modelVersion: 'gemini-2.5-flash',
  responseId: 'resp-audio-1',
};

describe('audio token counts through the gateway', () => {
  it('an OpenAI Chat client reads a Gemini upstream’s audio counts in the usage details', async () => {
    harness.emulator.enqueue({ type: 'json', body: geminiBody });
    const { openai } = createClients(harness.server.url);
    const reply = await openai.chat.completions.create({
      model: 'up-gemini',
      messages: [{ role: 'user', content: 'Listen.' }],
    });
    expect(reply.usage).toMatchObject({
      prompt_tokens: 1100,
      completion_tokens: 30,
      prompt_tokens_details: { cached_tokens: 400, audio_tokens: 1000 },
      completion_tokens_details: {
        audio_tokens: 20,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    });
  });
});
