/**
 * A Gemini client gets thoughts only when it asks (`thinkingConfig.includeThoughts: true`), as from
 * Gemini itself: a budget or level alone, or `includeThoughts: false`, gets none back, streamed or
 * not, and a Gemini upstream is asked for none. A signed thought left out still goes back to its
 * provider on the next tool-call turn (kept by the gateway by call id).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

const post = (model: string, stream: boolean, body: object) =>
  fetch(
    `${harness.server.url}/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } },
  );

/** The parts the client got, a stream's chunks joined. */
async function replyParts(response: Response, stream: boolean): Promise<Array<Record<string, unknown>>> {
  const text = await response.text();
  const bodies = stream
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)))
    : [JSON.parse(text)];
  return bodies.flatMap(
    (body: { candidates?: Array<{ content?: { parts?: Array<Record<string, unknown>> } }> }) =>
      body.candidates?.[0]?.content?.parts ?? [],
  );
}

const thinking: Parameters<GatewayHarness['emulator']['enqueue']>[0] = {
  type: 'scripted',
  content: [
    { type: 'reasoning', text: 'SECRET-THOUGHT', signature: 'SIG' },
    { type: 'text', text: 'answer' },
  ],
};

const configs = [
  ['a budget alone', { thinkingBudget: 2048 }],
  ['includeThoughts false', { thinkingBudget: 2048, includeThoughts: false }],
  ['no thinkingConfig', undefined],
] as const;

for (const model of ['up-anthropic', 'up-gemini'])
  for (const stream of [false, true])
    it.each(configs)(
      `${model}, stream ${stream}: %s gets no thought parts back`,
      async (_name, thinkingConfig) => {
        harness.emulator.enqueue(thinking);
        const response = await post(model, stream, {
          contents: [{ role: 'user', parts: [{ text: 'q' }] }],
          ...(thinkingConfig === undefined ? {} : { generationConfig: { thinkingConfig } }),
        });
        expect(response.status).toBe(200);
        const parts = await replyParts(response, stream);
        expect(parts.some((part) => part.thought === true)).toBe(false);
        expect(JSON.stringify(parts)).not.toContain('SECRET-THOUGHT');
        expect(parts.map((part) => part.text).join('')).toBe('answer');
      },
    );

it.each([false, true])('includeThoughts true, stream %s: the thought comes back', async (stream) => {
  harness.emulator.enqueue(thinking);
  const response = await post('up-anthropic', stream, {
    contents: [{ role: 'user', parts: [{ text: 'q' }] }],
    generationConfig: { thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } },
  });
  const parts = await replyParts(response, stream);
  const thought = parts.filter((part) => part.thought === true).map((part) => part.text);
  expect(thought.join('')).toBe('SECRET-THOUGHT');
});

it.each([
  [{ thinkingBudget: 2048 }, { includeThoughts: false, thinkingBudget: 2048 }],
  [
    { thinkingBudget: 2048, includeThoughts: true },
    { includeThoughts: true, thinkingBudget: 2048 },
  ],
])('a Gemini upstream is sent the includeThoughts the client asked: %j', async (asked, sent) => {
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'answer' }] });
  await post('up-gemini', false, {
    contents: [{ role: 'user', parts: [{ text: 'q' }] }],
    generationConfig: { thinkingConfig: asked },
  });
  const body = harness.emulator.requests.at(-1)!.body as {
    generationConfig?: { thinkingConfig?: unknown };
  };
  expect(body.generationConfig?.thinkingConfig).toEqual(sent);
});

it('thoughts left out on a Claude tool-call turn: the next turn gives Claude its signed thinking back', async () => {
  const tools = [
    {
      functionDeclarations: [
        { name: 'get_weather', parametersJsonSchema: { type: 'object', properties: {} } },
      ],
    },
  ];
  harness.emulator.enqueue({
    type: 'scripted',
    content: [
      { type: 'reasoning', text: 'Call the tool.', signature: 'CLAUDE-SIG' },
      { type: 'tool-call', name: 'get_weather', input: {} },
    ],
  });
  const generationConfig = { thinkingConfig: { thinkingBudget: 2048 } };
  const first = await post('up-anthropic', false, {
    contents: [{ role: 'user', parts: [{ text: 'Weather?' }] }],
    tools,
    generationConfig,
  });
  const parts = await replyParts(first, false);
  expect(parts.some((part) => part.thought === true)).toBe(false);
  const call = parts.find((part) => part.functionCall !== undefined)!.functionCall as { id: string };
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Sunny.' }] });
  const second = await post('up-anthropic', false, {
    contents: [
      { role: 'user', parts: [{ text: 'Weather?' }] },
      { role: 'model', parts },
      {
        role: 'user',
        parts: [{ functionResponse: { id: call.id, name: 'get_weather', response: { output: 'sunny' } } }],
      },
    ],
    tools,
    generationConfig,
  });
  expect(second.status).toBe(200);
  const body = harness.emulator.requests.at(-1)!.body as {
    messages: Array<{ content: Array<{ type: string; thinking?: string; signature?: string }> }>;
  };
  expect(body.messages[1]!.content.filter((block) => block.type === 'thinking')).toEqual([
    { type: 'thinking', thinking: 'Call the tool.', signature: 'CLAUDE-SIG' },
  ]);
});
