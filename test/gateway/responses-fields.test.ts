/**
 * Responses fields only a Responses upstream has: `max_tool_calls` and `text.verbosity` reach it
 * as written (beside the output format and built-in tools); `text.verbosity` (and a Chat client's
 * `verbosity`) also reaches an OpenAI Chat upstream's GPT-5 model as its `verbosity`; Anthropic and
 * Gemini upstreams ignore both; `include: ['message.output_text.logprobs']` is refused like
 * `top_logprobs`.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

const create = (body: Record<string, unknown>) =>
  harness.post('/v1/responses', { input: 'Hi', store: false, ...body });
const sent = () => harness.emulator.requests.at(-1)!.body as Record<string, unknown>;
const format = {
  type: 'json_schema',
  name: 'answer',
  schema: {
    type: 'object',
    properties: { a: { type: 'string' } },
    required: ['a'],
    additionalProperties: false,
  },
  strict: true,
};

it('max_tool_calls and text.verbosity reach a Responses upstream, beside the format and a built-in tool', async () => {
  harness.emulator.enqueue(scriptedText('{"a":"x"}'));
  const response = await create({
    model: 'up-responses',
    max_tool_calls: 2,
    tools: [{ type: 'web_search' }],
    text: { format, verbosity: 'low' },
  });
  expect(response.status).toBe(200);
  const body = sent() as { max_tool_calls?: number; text?: Record<string, unknown>; tools?: unknown[] };
  expect(body.max_tool_calls).toBe(2);
  expect(body.text).toMatchObject({ verbosity: 'low', format: { type: 'json_schema', name: 'answer' } });
  expect(body.tools).toEqual([{ type: 'web_search' }]);
});

it('text.verbosity alone: sent as text.verbosity', async () => {
  harness.emulator.enqueue(scriptedText());
  await create({ model: 'up-responses', text: { verbosity: 'high' } });
  expect(sent().text).toEqual({ verbosity: 'high' });
});

it('toward an OpenAI Chat upstream, text.verbosity is its verbosity (GPT-5) and max_tool_calls is ignored', async () => {
  harness.emulator.enqueue(scriptedText());
  const response = await create({ model: 'up-chat', max_tool_calls: 1, text: { verbosity: 'low' } });
  expect(response.status).toBe(200);
  expect(sent().verbosity).toBe('low');
  expect(JSON.stringify(sent())).not.toMatch(/max_tool_calls/);
});

it('a Chat client’s verbosity reaches an OpenAI Chat upstream as written and a Responses one as text.verbosity', async () => {
  for (const [model, expected] of [
    ['up-chat', { verbosity: 'high' }],
    ['up-responses', { text: { verbosity: 'high' } }],
  ] as const) {
    harness.emulator.enqueue(scriptedText());
    const response = await harness.post('/v1/chat/completions', {
      model,
      messages: [{ role: 'user', content: 'Hi' }],
      verbosity: 'high',
    });
    expect(response.status).toBe(200);
    expect(sent()).toMatchObject(expected);
  }
  const refused = await harness.post('/v1/chat/completions', {
    model: 'up-chat',
    messages: [{ role: 'user', content: 'Hi' }],
    verbosity: 'loud',
  });
  expect(refused.status).toBe(400);
});

it.each(['up-anthropic', 'up-gemini'])(
  'toward %s they are ignored and the call is answered',
  async (model) => {
    harness.emulator.enqueue(scriptedText());
    const response = await create({ model, max_tool_calls: 1, text: { verbosity: 'low' } });
    expect(response.status).toBe(200);
    expect(JSON.stringify(sent())).not.toMatch(/verbosity|max_tool_calls/);
  },
);

it.each([
  ['include message.output_text.logprobs', { include: ['message.output_text.logprobs'] }, 'include'],
  ['a verbosity the API does not have', { text: { verbosity: 'terse' } }, 'text.verbosity'],
  ['a max_tool_calls that is no count', { max_tool_calls: -1 }, 'max_tool_calls'],
])('%s: a 400 naming the field, nothing sent', async (_case, extra, param) => {
  const before = harness.emulator.requests.length;
  const response = await create({ model: 'up-responses', ...extra });
  expect(response.status).toBe(400);
  expect(((await response.json()) as { error: { param: string } }).error.param).toBe(param);
  expect(harness.emulator.requests.length).toBe(before);
});
