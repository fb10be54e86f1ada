/**
 * An empty user turn (`content: ""`) never silently changes the request: left out, a trailing one
 * would make the assistant message before it a prefill (Anthropic and Gemini would continue the old
 * message). OpenAI Chat and Responses upstreams, which take empty content, are sent it; Anthropic and
 * Gemini, which refuse it, fail the call with a 400 naming the client's turn before anything is sent.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicClient, type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => harness.emulator.clear());
afterAll(() => harness?.close());

const joke = 'Why did the chicken cross the road?';
const chat = (model: string) => ({
  model,
  messages: [
    { role: 'user', content: 'Tell me a joke' },
    { role: 'assistant', content: joke },
    { role: 'user', content: '' },
  ],
});
const responses = (model: string) => ({
  model,
  input: [
    { role: 'user', content: 'Tell me a joke' },
    { role: 'assistant', content: joke },
    { role: 'user', content: [{ type: 'input_text', text: '' }] },
  ],
});

type Upstream = { messages?: unknown[]; input?: unknown[]; contents?: unknown[] };

/** The last turn the upstream got, or undefined when the call sent nothing. */
async function lastTurn(path: string, body: object, status = 200): Promise<unknown> {
  const before = harness.emulator.requests.length;
  harness.emulator.enqueue(scriptedText('ok'));
  const reply = await harness.post(path, body);
  const text = await reply.text();
  expect(reply.status, text).toBe(status);
  if (harness.emulator.requests.length === before) return undefined;
  const sent = harness.emulator.requests.at(-1)!.body as Upstream;
  return (sent.messages ?? sent.input ?? sent.contents)!.at(-1);
}

describe('toward an upstream that takes empty content, the empty turn is sent last', () => {
  it.each([
    ['up-chat', { role: 'user', content: '' }],
    ['up-responses', { type: 'message', role: 'user', content: [{ type: 'input_text', text: '' }] }],
  ])('Chat and Responses clients → %s', async (model, turn) => {
    expect(await lastTurn('/v1/chat/completions', chat(model))).toMatchObject(turn);
    expect(await lastTurn('/v1/responses', responses(model))).toMatchObject(turn);
  });

  it('a Gemini client’s content of empty text → Chat', async () => {
    const body = {
      contents: [
        { role: 'user', parts: [{ text: 'Tell me a joke' }] },
        { role: 'model', parts: [{ text: joke }] },
        { role: 'user', parts: [{ text: '' }] },
      ],
    };
    expect(await lastTurn('/v1beta/models/up-chat:generateContent', body)).toEqual({
      role: 'user',
      content: '',
    });
  });
});

describe('toward an upstream that refuses empty content, a 400 naming the turn and nothing sent', () => {
  it.each(['up-anthropic', 'up-gemini'])('%s', async (model) => {
    for (const [path, body, field] of [
      ['/v1/chat/completions', chat(model), 'messages.2.content'],
      ['/v1/responses', responses(model), 'input.2.content'],
    ] as const) {
      const before = harness.emulator.requests.length;
      const reply = await harness.post(path, body);
      expect(reply.status).toBe(400);
      const { error } = (await reply.json()) as { error: { message: string; param: string } };
      expect(error.param).toBe(field);
      expect(error.message).toContain(`the user turn (${field}) is empty`);
      expect(harness.emulator.requests.length).toBe(before);
    }
  });

  it.each(['up-anthropic', 'up-gemini'])(
    'an empty turn right after a tool result is part of that user message: served (→ %s)',
    async (model) => {
      const body = {
        model,
        messages: [
          { role: 'user', content: 'weather?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
          { role: 'user', content: '' },
        ],
        tools: [
          { type: 'function', function: { name: 'get', parameters: { type: 'object', properties: {} } } },
        ],
      };
      const last = (await lastTurn('/v1/chat/completions', body)) as { role: string };
      expect(last.role).toBe('user');
      expect(JSON.stringify(last)).toContain('sunny');
    },
  );

  it('empty text beside other content in a user turn is no empty turn (Chat turns joined → Gemini)', async () => {
    const body = {
      model: 'up-gemini',
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'user', content: '' },
      ],
    };
    expect(await lastTurn('/v1/chat/completions', body)).toEqual({ role: 'user', parts: [{ text: 'Hi' }] });
  });
});

describe('a refusal names the client’s field for blank text and a string input too', () => {
  const refused = async (path: string, body: object) => {
    const before = harness.emulator.requests.length;
    const reply = await harness.post(path, body);
    expect(reply.status).toBe(400);
    const { error } = (await reply.json()) as { error: { message: string; param?: string | null } };
    expect(harness.emulator.requests.length).toBe(before);
    return error;
  };

  it('Chat and Responses whitespace-only turns, and Responses input: "" (→ Anthropic)', async () => {
    for (const [path, body, field] of [
      [
        '/v1/chat/completions',
        {
          model: 'up-anthropic',
          messages: [...chat('').messages.slice(0, 2), { role: 'user', content: ' \n' }],
        },
        'messages.2.content',
      ],
      [
        '/v1/responses',
        {
          model: 'up-anthropic',
          input: [
            ...responses('').input.slice(0, 2),
            { role: 'user', content: [{ type: 'input_text', text: '  ' }] },
          ],
        },
        'input.2.content',
      ],
      ['/v1/responses', { model: 'up-anthropic', input: '' }, 'input'],
    ] as const) {
      const error = await refused(path, body);
      expect(error.param).toBe(field);
      expect(error.message).toContain(`the user turn (${field}) is empty`);
    }
  });

  it.each([
    ['whitespace-only text', { role: 'user', parts: [{ text: ' ' }] }, 'up-anthropic'],
    ['empty text marked not a thought', { role: 'user', parts: [{ text: '', thought: false }] }, 'up-gemini'],
    ['no parts (Gemini refuses it too)', { role: 'user' }, 'up-gemini'],
  ])('a Gemini client’s content of %s', async (_, content, model) => {
    const body = {
      contents: [
        { role: 'user', parts: [{ text: 'Tell me a joke' }] },
        { role: 'model', parts: [{ text: joke }] },
        content,
      ],
    };
    const error = await refused(`/v1beta/models/${model}:generateContent`, body);
    expect(error.message).toContain('the user turn (contents.2.parts) is empty');
  });

  it('a Gemini client’s content without parts, or of empty text marked not a thought, is an empty turn (→ Chat)', async () => {
    for (const content of [{ role: 'user' }, { role: 'user', parts: [{ text: '', thought: false }] }]) {
      const body = {
        contents: [
          { role: 'user', parts: [{ text: 'Tell me a joke' }] },
          { role: 'model', parts: [{ text: joke }] },
          content,
        ],
      };
      expect(await lastTurn('/v1beta/models/up-chat:generateContent', body)).toEqual({
        role: 'user',
        content: '',
      });
    }
  });
});

describe('the client’s own refusals say the text is empty, not missing', () => {
  it('an Anthropic client’s empty text block or empty content', async () => {
    const messages = (content: unknown) => ({
      model: 'up-chat',
      max_tokens: 16,
      messages: [
        { role: 'user', content: 'Tell me a joke' },
        { role: 'assistant', content: joke },
        { role: 'user', content },
      ],
    });
    const empty = await harness.post('/v1/messages', messages(''), anthropicClient);
    expect(empty.status).toBe(400);
    expect(await empty.text()).toContain('messages.2.content.0.text must not be empty');
    const none = await harness.post('/v1/messages', messages([]), anthropicClient);
    expect(none.status).toBe(400);
    expect(await none.text()).toContain('messages.2.content must not be empty');
  });
});
