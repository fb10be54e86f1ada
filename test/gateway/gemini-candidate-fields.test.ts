/**
 * A Gemini client of a Gemini upstream gets the candidate's own fields back (grounding with its
 * search entry point, citations, safety ratings, `avgLogprobs`), whole and on the last streamed
 * chunk; a prompt the upstream blocked is its `promptFeedback` and no candidate, as Gemini sends it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

const fields = {
  citationMetadata: {
    citationSources: [{ startIndex: 0, endIndex: 18, uri: 'https://ex.com/p', license: 'mit' }],
  },
  groundingMetadata: {
    webSearchQueries: ['paris country'],
    searchEntryPoint: { renderedContent: '<div>chip</div>' },
    groundingChunks: [{ web: { uri: 'https://ex.com/p', title: 'P' } }],
    groundingSupports: [
      { segment: { endIndex: 18, text: 'Paris is in France' }, groundingChunkIndices: [0] },
    ],
  },
  safetyRatings: [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'NEGLIGIBLE' }],
  avgLogprobs: -0.12,
};
const usageMetadata = { promptTokenCount: 5, candidatesTokenCount: 5, totalTokenCount: 10 };
const request = { contents: [{ role: 'user', parts: [{ text: 'Where is Paris?' }] }] };

async function post(method: string, body: object): Promise<string> {
  const response = await fetch(`${harness.server.url}/v1beta/models/up-gemini:${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': 'client-key' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return response.text();
}

const streamChunks = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>);

it('whole: the candidate keeps its grounding, citations, safety ratings and avgLogprobs', async () => {
  harness.emulator.enqueue({
    type: 'json',
    body: {
      candidates: [
        {
          content: { role: 'model', parts: [{ text: 'Paris is in France.' }] },
          finishReason: 'STOP',
          index: 0,
          ...fields,
        },
      ],
      usageMetadata,
    },
  });
  const reply = JSON.parse(await post('generateContent', request)) as {
    candidates: Record<string, unknown>[];
  };
  expect(reply.candidates[0]).toMatchObject({ finishReason: 'STOP', ...fields });
});

it('streamed: the last chunk carries the candidate fields', async () => {
  harness.emulator.enqueue({
    type: 'sse',
    events: [
      { data: { candidates: [{ content: { role: 'model', parts: [{ text: 'Paris is ' }] }, index: 0 }] } },
      {
        data: {
          candidates: [
            {
              content: { role: 'model', parts: [{ text: 'in France.' }] },
              finishReason: 'STOP',
              index: 0,
              ...fields,
            },
          ],
          usageMetadata,
        },
      },
    ],
  });
  const chunks = streamChunks(await post('streamGenerateContent?alt=sse', request));
  const last = (chunks.at(-1)!.candidates as Record<string, unknown>[])[0];
  expect(last).toMatchObject({ finishReason: 'STOP', ...fields });
});

it('a Vertex-style citations list goes to the client as the Gemini API’s citationSources', async () => {
  const citations = [{ startIndex: 0, endIndex: 5, uri: 'https://ex.com/v', title: 'V' }];
  harness.emulator.enqueue({
    type: 'json',
    body: {
      candidates: [
        {
          content: { role: 'model', parts: [{ text: 'Paris.' }] },
          finishReason: 'STOP',
          citationMetadata: { citations },
        },
      ],
      usageMetadata,
    },
  });
  const reply = JSON.parse(await post('generateContent', request)) as {
    candidates: Record<string, unknown>[];
  };
  expect(reply.candidates[0]!.citationMetadata).toEqual({ citationSources: citations });
});

const blocked = {
  promptFeedback: { blockReason: 'PROHIBITED_CONTENT', safetyRatings: [] },
  usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 },
};

it('whole: a blocked prompt is its promptFeedback, no candidate', async () => {
  harness.emulator.enqueue({ type: 'json', body: blocked });
  const reply = JSON.parse(await post('generateContent', request)) as Record<string, unknown>;
  expect(reply.candidates).toBeUndefined();
  expect(reply.promptFeedback).toEqual(blocked.promptFeedback);
  expect(reply.usageMetadata).toMatchObject({ promptTokenCount: 7 });
});

it('streamed: a blocked prompt is one chunk of its promptFeedback, no candidate', async () => {
  harness.emulator.enqueue({ type: 'sse', events: [{ data: blocked }] });
  const chunks = streamChunks(await post('streamGenerateContent?alt=sse', request));
  expect(chunks).toHaveLength(1);
  expect(chunks[0]!.candidates).toBeUndefined();
  expect(chunks[0]!.promptFeedback).toEqual(blocked.promptFeedback);
});

it('another client of a blocked prompt still gets a content_filter finish', async () => {
  harness.emulator.enqueue({ type: 'json', body: blocked });
  const response = await fetch(`${harness.server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer client-key' },
    body: JSON.stringify({ model: 'up-gemini', messages: [{ role: 'user', content: 'x' }] }),
  });
  const completion = (await response.json()) as { choices: { finish_reason: string }[] };
  expect(completion.choices[0]!.finish_reason).toBe('content_filter');
});

describe('the tool-use prompt count (Google Search results and the like)', () => {
  const withToolUse = {
    promptTokenCount: 1000,
    cachedContentTokenCount: 800,
    toolUsePromptTokenCount: 50,
    candidatesTokenCount: 20,
    thoughtsTokenCount: 30,
    totalTokenCount: 1100,
  };
  const answer = (finish: object) => ({
    candidates: [
      { content: { role: 'model', parts: [{ text: 'Paris.' }] }, finishReason: 'STOP', index: 0, ...finish },
    ],
    usageMetadata: withToolUse,
  });

  it.each([
    ['whole', 'generateContent', { type: 'json' as const, body: answer({}) }],
    ['streamed', 'streamGenerateContent?alt=sse', { type: 'sse' as const, events: [{ data: answer({}) }] }],
  ])(
    '%s: a Gemini client gets it back as its own field, the prompt count as sent',
    async (_, method, script) => {
      harness.emulator.enqueue(script);
      const text = await post(method, request);
      const bodies =
        method === 'generateContent' ? [JSON.parse(text) as Record<string, unknown>] : streamChunks(text);
      expect(bodies.at(-1)!.usageMetadata).toEqual(withToolUse);
    },
  );

  it('a Chat client’s prompt_tokens still counts it (the totals other clients see do not change)', async () => {
    harness.emulator.enqueue({ type: 'json', body: answer({}) });
    const response = await fetch(`${harness.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer client-key' },
      body: JSON.stringify({ model: 'up-gemini', messages: [{ role: 'user', content: 'x' }] }),
    });
    const completion = (await response.json()) as { usage: Record<string, unknown> };
    expect(completion.usage).toMatchObject({
      prompt_tokens: 1050,
      completion_tokens: 50,
      total_tokens: 1100,
    });
  });
});
