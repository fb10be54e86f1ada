/**
 * A 3-turn tool conversation from an OpenAI Chat client (which has no field for signatures) to a
 * Gemini 3 thinking model, with the emulator enforcing Gemini's thought-signature rule: the
 * gateway keeps each call's signature by call id and gives it back, so every turn succeeds with the
 * real signatures (never the documented bypass value).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDrivers } from './drivers.ts';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

it('Chat client → Gemini 3: three turns of tool calls keep their thought signatures', async () => {
  const chat = createDrivers(createClients(harness.server.url)).find(
    (driver) => driver.name === 'openai-chat',
  )!;
  const history = chat.start('Compare the weather in Paris and Lyon, one city at a time.');
  const spec = { model: 'up-gemini3', stream: true, tools: true, reasoning: true };
  const weather = (call: { input: unknown }) => `sunny in ${(call.input as { city: string }).city}`;
  const usage = { input: 20, output: 5 };

  harness.emulator.enqueue({
    type: 'scripted',
    content: [
      { type: 'reasoning', text: 'Paris first.', signature: 'thought-sig-1' },
      { type: 'tool-call', name: 'get_weather', input: { city: 'Paris' }, signature: 'call-sig-1' },
    ],
    usage,
  });
  const first = await chat.call(history, spec);
  expect(first.toolCalls.map((call) => call.input)).toEqual([{ city: 'Paris' }]);
  chat.answer(history, first.toolCalls, weather);

  harness.emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'tool-call', name: 'get_weather', input: { city: 'Lyon' }, signature: 'call-sig-2' }],
    usage,
  });
  const second = await chat.call(history, spec);
  expect(second.toolCalls.map((call) => call.input)).toEqual([{ city: 'Lyon' }]);
  chat.answer(history, second.toolCalls, weather);

  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Both are sunny.' }], usage });
  const third = await chat.call(history, spec);
  expect(third.text).toBe('Both are sunny.');

  const [, secondRequest, thirdRequest] = harness.emulator.requests
    .slice(-3)
    .map((request) => JSON.stringify(request.body));
  expect(secondRequest).toContain('call-sig-1');
  expect(thirdRequest).toContain('call-sig-1');
  expect(thirdRequest).toContain('call-sig-2');
  expect(thirdRequest).toContain('thought-sig-1');
  expect(thirdRequest).not.toContain('skip_thought_signature_validator');
});

it('@google/genai chat, streamed with thoughts, on a Claude upstream: the next turn gives back the whole thinking with its signature', async () => {
  const { GoogleGenAI } = await import('@google/genai');
  const ai = new GoogleGenAI({ apiKey: 'gateway-key-unused', httpOptions: { baseUrl: harness.server.url } });
  const thinking = 'The user wants the weather; call the tool.';
  harness.emulator.enqueue({
    type: 'scripted',
    chunkSize: 8, // the thought reaches the client in several parts, only the last one signed
    content: [
      { type: 'reasoning', text: thinking, signature: 'EqQBCkYIBxgCKkDsignature' },
      { type: 'tool-call', name: 'get_weather', input: { city: 'Paris' } },
    ],
  });
  const chat = ai.chats.create({
    model: 'up-anthropic',
    config: {
      thinkingConfig: { includeThoughts: true },
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } },
            },
          ],
        },
      ],
    },
  });
  const calls: Array<{ id?: string; name?: string }> = [];
  for await (const chunk of await chat.sendMessageStream({ message: 'Weather in Paris?' }))
    calls.push(...(chunk.functionCalls ?? []));
  expect(calls).toHaveLength(1);
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Sunny.' }] });
  const answer = [
    { functionResponse: { id: calls[0]!.id, name: 'get_weather', response: { output: 'sunny' } } },
  ];
  for await (const _chunk of await chat.sendMessageStream({ message: answer }));
  const body = harness.emulator.requests.at(-1)!.body as {
    messages: Array<{
      role: string;
      content: Array<{ type: string; thinking?: string; signature?: string }>;
    }>;
  };
  const blocks = body.messages[1]!.content.filter((block) => block.type === 'thinking');
  expect(blocks).toEqual([{ type: 'thinking', thinking, signature: 'EqQBCkYIBxgCKkDsignature' }]);
});

it.each([false, true])(
  'Gemini client → Gemini upstream, stream %s: a text part’s thought signature goes back with that text on the next turn',
  async (stream) => {
    const post = (path: string, body: object) =>
      fetch(`${harness.server.url}${path}`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
    const candidate = {
      content: { role: 'model', parts: [{ text: 'Hello world', thoughtSignature: 'TEXTSIG123' }] },
      finishReason: 'STOP',
      index: 0,
    };
    const usageMetadata = { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 };
    harness.emulator.enqueue(
      stream
        ? { type: 'sse', events: [{ data: { candidates: [candidate], usageMetadata } }] }
        : { type: 'json', body: { candidates: [candidate], usageMetadata } },
    );
    const path = stream
      ? '/v1beta/models/up-gemini:streamGenerateContent?alt=sse'
      : '/v1beta/models/up-gemini:generateContent';
    const first = await post(path, { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] });
    const text = await first.text();
    // The parts the client got, in order (a stream's chunks joined as the SDKs keep them).
    const bodies = stream
      ? text
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => JSON.parse(line.slice(6)))
      : [JSON.parse(text)];
    const parts = bodies.flatMap(
      (body: { candidates?: Array<{ content?: { parts?: object[] } }> }) =>
        body.candidates?.[0]?.content?.parts ?? [],
    );
    expect(JSON.stringify(parts)).toContain('thoughtSignature');
    harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Again.' }] });
    const second = await post('/v1beta/models/up-gemini:generateContent', {
      contents: [
        { role: 'user', parts: [{ text: 'Hi' }] },
        { role: 'model', parts },
        { role: 'user', parts: [{ text: 'More' }] },
      ],
    });
    expect(second.status).toBe(200);
    const sent = harness.emulator.requests.at(-1)!.body as { contents: Array<{ parts: object[] }> };
    expect(sent.contents[1]!.parts).toEqual([{ text: 'Hello world', thoughtSignature: 'TEXTSIG123' }]);
  },
);
