/**
 * Structured output with tools to a Gemini upstream, through the OpenAI SDK: Gemini 2.5 refuses
 * JSON mode beside function declarations (the emulator enforces the API's 400), so the adapter asks
 * for the answer as a call of `final_answer`; the client sees a tool-call round trip and then the
 * structured answer as content, as from a model that takes both. Gemini 3 gets JSON mode as before.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
let client: OpenAI;
beforeAll(async () => {
  harness = await startGatewayHarness();
  client = new OpenAI({ baseURL: `${harness.server.url}/v1`, apiKey: 'k', maxRetries: 0 });
});
afterAll(() => harness.close());
// `clear()` empties the script queue (a failed case leaves none behind), not `requests`.
beforeEach(() => harness.emulator.clear());

const tools: OpenAI.Chat.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'weather',
      description: 'Current weather in a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
        additionalProperties: false,
      },
    },
  },
];
const response_format: OpenAI.ResponseFormatJSONSchema = {
  type: 'json_schema',
  json_schema: {
    name: 'forecast',
    strict: true,
    schema: {
      type: 'object',
      properties: { city: { type: 'string' }, sunny: { type: 'boolean' } },
      required: ['city', 'sunny'],
      additionalProperties: false,
    },
  },
};
const question: OpenAI.Chat.ChatCompletionMessageParam = { role: 'user', content: 'Is it sunny in Rome?' };

type UpstreamBody = {
  tools?: Array<{ functionDeclarations?: Array<{ name: string }> }>;
  toolConfig?: unknown;
  generationConfig?: Record<string, unknown>;
};
const upstreamBody = () => harness.emulator.requests.at(-1)?.body as UpstreamBody;
const declared = () =>
  upstreamBody().tools?.[0]?.functionDeclarations?.map((declaration) => declaration.name);

/** The tool-call turn, then the turn with the tool's result. */
async function roundTrip(model: string, answer: 'call' | 'text', stream: boolean) {
  const before = harness.emulator.requests.length;
  harness.emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'tool-call', name: 'weather', input: { city: 'Rome' } }],
  });
  const first = await client.chat.completions.create({ model, messages: [question], tools, response_format });
  const firstBody = upstreamBody();
  const call = first.choices[0]?.message.tool_calls?.[0];
  expect(first.choices[0]?.finish_reason).toBe('tool_calls');
  expect(call).toMatchObject({
    type: 'function',
    function: { name: 'weather', arguments: '{"city":"Rome"}' },
  });

  const forecast = { city: 'Rome', sunny: true };
  harness.emulator.enqueue({
    type: 'scripted',
    content:
      answer === 'call'
        ? [{ type: 'tool-call', name: 'final_answer', input: forecast }]
        : [{ type: 'text', text: JSON.stringify(forecast) }],
  });
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    question,
    first.choices[0]!.message as OpenAI.Chat.ChatCompletionMessageParam,
    { role: 'tool', tool_call_id: call!.id, content: '{"sunny":true}' },
  ];
  let content = '';
  let finish: string | null | undefined;
  let toolCalls = 0;
  if (stream) {
    const chunks = await client.chat.completions.create({
      model,
      messages,
      tools,
      response_format,
      stream: true,
    });
    for await (const chunk of chunks) {
      const choice = chunk.choices[0];
      content += choice?.delta.content ?? '';
      toolCalls += choice?.delta.tool_calls?.length ?? 0;
      finish = choice?.finish_reason ?? finish;
    }
  } else {
    const second = await client.chat.completions.create({ model, messages, tools, response_format });
    content = second.choices[0]?.message.content ?? '';
    toolCalls = second.choices[0]?.message.tool_calls?.length ?? 0;
    finish = second.choices[0]?.finish_reason;
  }
  const sent = harness.emulator.requests.length - before;
  return { firstBody, secondBody: upstreamBody(), content, finish, toolCalls, sent };
}

describe('response_format json_schema + tools to Gemini', () => {
  it.each([false, true])(
    'gemini-2.5-flash: a tool call round trip, then the structured answer as content (stream %s)',
    async (stream) => {
      const result = await roundTrip('up-gemini', 'call', stream);
      for (const body of [result.firstBody, result.secondBody]) {
        expect(body.generationConfig).not.toHaveProperty('responseMimeType');
        expect(body.tools?.[0]?.functionDeclarations?.map((declaration) => declaration.name)).toEqual([
          'weather',
          'final_answer',
        ]);
        expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
      }
      expect(JSON.parse(result.content)).toEqual({ city: 'Rome', sunny: true });
      expect(result.finish).toBe('stop');
      expect(result.toolCalls).toBe(0);
      expect(result.sent).toBe(2);
      expect(
        harness.logger.entries.some((entry) =>
          entry.message.includes('structured output asked for as a function call'),
        ),
      ).toBe(true);
    },
  );

  it('gemini-3-pro-preview takes both: JSON mode beside the tools, the answer as text', async () => {
    const result = await roundTrip('up-gemini3', 'text', false);
    expect(result.secondBody.generationConfig).toMatchObject({ responseMimeType: 'application/json' });
    expect(declared()).toEqual(['weather']);
    expect(JSON.parse(result.content)).toEqual({ city: 'Rome', sunny: true });
    expect(result.finish).toBe('stop');
  });
});
