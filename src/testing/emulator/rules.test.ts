/** Provider request rules the emulator enforces, and how scripts skip them. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Emulator, type EmulatorScript, startEmulator } from './index.ts';
import { anthropicBody, anthropicHeaders, geminiHeaders, openaiHeaders, postJson } from './test-support.ts';

let emulator: Emulator;

beforeEach(async () => {
  emulator = await startEmulator();
  emulator.setDefault({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
});

afterEach(async () => {
  await emulator.close();
});

type GoogleErrorBody = { error: { code: number; message: string; status: string } };
type AnthropicErrorBody = { type: string; error: { type: string; message: string }; request_id: string };
type OpenaiErrorBody = {
  error: { message: string; type: string; param: string | null; code: string | null };
};

const weatherCall = { functionCall: { name: 'weather', args: { city: 'Rome' } } };
const weatherResult = { functionResponse: { name: 'weather', response: { sunny: true } } };

function gemini(
  contents: unknown[],
  model = 'gemini-3-pro-preview',
  headers: Record<string, string> = geminiHeaders,
) {
  return postJson(`${emulator.url}/v1beta/models/${model}:generateContent`, { contents }, headers);
}

function turnWithCall(callPart: Record<string, unknown>): unknown[] {
  return [
    { role: 'user', parts: [{ text: 'Weather in Rome?' }] },
    { role: 'model', parts: [callPart] },
    { role: 'user', parts: [weatherResult] },
  ];
}

describe('Gemini 3 thought signatures', () => {
  it('rejects an unsigned function call of the current turn with INVALID_ARGUMENT', async () => {
    const response = await gemini(turnWithCall(weatherCall));
    expect(response.status).toBe(400);
    const body = (await response.json()) as GoogleErrorBody;
    expect(body.error.code).toBe(400);
    expect(body.error.status).toBe('INVALID_ARGUMENT');
    expect(body.error.message).toContain(
      'Function call is missing a thought_signature in functionCall parts',
    );
    expect(body.error.message).toContain('`weather` , position 2');
  });

  it.each(['skip_thought_signature_validator', 'context_engineering_is_the_way_to_go'])(
    'accepts the documented bypass signature %s',
    async (signature) => {
      const response = await gemini(turnWithCall({ ...weatherCall, thoughtSignature: signature }));
      expect(response.status).toBe(200);
    },
  );

  it('does not check function calls of earlier turns', async () => {
    const contents = [...turnWithCall(weatherCall), { role: 'model', parts: [{ text: 'Sunny.' }] }];
    contents.push({ role: 'user', parts: [{ text: 'Thanks!' }] });
    expect((await gemini(contents)).status).toBe(200);
  });

  it('requires a signature only on the first of parallel calls', async () => {
    const parallel = [
      { role: 'user', parts: [{ text: 'Two cities?' }] },
      { role: 'model', parts: [{ ...weatherCall, thoughtSignature: 'c2ln' }, weatherCall] },
      { role: 'user', parts: [weatherResult, weatherResult] },
    ];
    expect((await gemini(parallel)).status).toBe(200);
  });

  it('lets Gemini 2.5 models replay unsigned calls', async () => {
    expect((await gemini(turnWithCall(weatherCall), 'gemini-2.5-flash')).status).toBe(200);
  });

  it('requires an API key, by header or by key query parameter', async () => {
    const missing = await gemini(turnWithCall(weatherCall), 'gemini-2.5-flash', {
      'content-type': 'application/json',
    });
    expect(missing.status).toBe(403);
    expect(((await missing.json()) as GoogleErrorBody).error.status).toBe('PERMISSION_DENIED');
    const url = `${emulator.url}/v1beta/models/gemini-2.5-flash:generateContent?key=abc`;
    expect((await postJson(url, { contents: [] }, {})).status).toBe(200);
  });
});

describe('Gemini JSON mode with function declarations', () => {
  const ask = (model: string, tools: unknown[], responseMimeType = 'application/json') =>
    postJson(
      `${emulator.url}/v1beta/models/${model}:generateContent`,
      {
        contents: [{ role: 'user', parts: [{ text: 'Weather in Rome?' }] }],
        tools,
        generationConfig: { responseMimeType, responseJsonSchema: { type: 'object' } },
      },
      geminiHeaders,
    );
  const functions = [{ functionDeclarations: [{ name: 'weather' }] }];

  it.each(['gemini-2.5-flash', 'gemini-2.5-pro', 'gemini-2.0-flash'])(
    '%s refuses them together with 400 INVALID_ARGUMENT, as the real API',
    async (model) => {
      const response = await ask(model, functions);
      expect(response.status).toBe(400);
      const body = (await response.json()) as GoogleErrorBody;
      expect(body.error.status).toBe('INVALID_ARGUMENT');
      expect(body.error.message).toBe(
        "Function calling with a response mime type: 'application/json' is unsupported",
      );
    },
  );

  it('Gemini 3 takes both; 2.5 takes JSON mode beside other tools, and function tools without JSON mode', async () => {
    expect((await ask('gemini-3-pro-preview', functions)).status).toBe(200);
    expect((await ask('gemini-2.5-flash', [{ googleSearch: {} }])).status).toBe(200);
    expect((await ask('gemini-2.5-flash', functions, 'text/plain')).status).toBe(200);
  });
});

function anthropic(messages: unknown[], headers: Record<string, string> = anthropicHeaders) {
  return postJson(`${emulator.url}/v1/messages`, anthropicBody({ messages }), headers);
}

async function anthropicMessage(response: Response): Promise<string> {
  expect(response.status).toBe(400);
  const body = (await response.json()) as AnthropicErrorBody;
  expect(body.type).toBe('error');
  expect(body.error.type).toBe('invalid_request_error');
  expect(body.request_id).toMatch(/^req_/);
  return body.error.message;
}

const toolUse = { type: 'tool_use', id: 'toolu_01abc', name: 'weather', input: {} };

describe('Anthropic rules', () => {
  it('rejects a tool_result without a matching tool_use in the previous message', async () => {
    const messages = [
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: [toolUse] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01other', content: 'sunny' }] },
    ];
    expect(await anthropicMessage(await anthropic(messages))).toBe(
      'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01other. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    );
  });

  it('accepts a tool_result answering the preceding tool_use', async () => {
    const messages = [
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: [toolUse] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01abc', content: 'sunny' }] },
    ];
    expect((await anthropic(messages)).status).toBe(200);
  });

  it('rejects a tool_use left unanswered by the next message', async () => {
    const messages = [
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: [toolUse] },
      { role: 'user', content: 'never mind' },
    ];
    expect(await anthropicMessage(await anthropic(messages))).toContain(
      '`tool_use` ids were found without `tool_result` blocks immediately after: toolu_01abc',
    );
  });

  it('rejects tool ids outside ^[a-zA-Z0-9_-]{1,64}$', async () => {
    const badId = [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: [{ ...toolUse, id: 'functions.Bash:0' }] },
    ];
    expect(await anthropicMessage(await anthropic(badId))).toBe(
      "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
    );
    const longId = [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: [{ ...toolUse, id: 'a'.repeat(65) }] },
    ];
    expect(await anthropicMessage(await anthropic(longId))).toContain('at most 64 characters');
  });

  it('rejects a tool_use id reused in a later turn', async () => {
    const messages = [
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: [toolUse] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01abc', content: 'sunny' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Again.' }, toolUse] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01abc', content: 'sunny' }] },
    ];
    expect(await anthropicMessage(await anthropic(messages))).toBe(
      'messages.3.content.1: tool_use ids must be unique',
    );
  });

  it('rejects a tool_result that comes after a text block in the user message', async () => {
    const messages = [
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: [toolUse] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Here you go:' },
          { type: 'tool_result', tool_use_id: 'toolu_01abc', content: 'sunny' },
        ],
      },
    ];
    expect(await anthropicMessage(await anthropic(messages))).toBe(
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01abc. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    );
  });

  it('accepts text after the tool_result blocks of a user message', async () => {
    const messages = [
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: [toolUse] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01abc', content: 'sunny' },
          { type: 'text', text: 'And tomorrow?' },
        ],
      },
    ];
    expect((await anthropic(messages)).status).toBe(200);
  });

  it('rejects an empty text block', async () => {
    const messages = [{ role: 'user', content: [{ type: 'text', text: '' }] }];
    expect(await anthropicMessage(await anthropic(messages))).toBe(
      'messages: text content blocks must be non-empty',
    );
  });

  it('rejects a message whose only text is whitespace', async () => {
    const messages = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: [{ type: 'text', text: ' \n' }] },
      { role: 'user', content: 'Hello?' },
    ];
    expect(await anthropicMessage(await anthropic(messages))).toBe(
      'messages: text content blocks must contain non-whitespace text',
    );
  });

  it('accepts a whitespace text block beside non-whitespace text', async () => {
    const content = [
      { type: 'text', text: ' ' },
      { type: 'text', text: 'Hi' },
    ];
    expect((await anthropic([{ role: 'user', content }])).status).toBe(200);
  });

  it('rejects a conversation that starts with the assistant', async () => {
    expect(await anthropicMessage(await anthropic([{ role: 'assistant', content: 'Hi' }]))).toBe(
      'messages: first message must use the "user" role',
    );
  });

  it('under thinking, rejects a tool-use turn whose assistant message does not start with a thinking block', async () => {
    const result = {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_01abc', content: 'sunny' }],
    };
    const turn = (first: unknown[]) => [
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: [...first, toolUse] },
      result,
    ];
    const ask = (messages: unknown[], thinking: unknown) =>
      postJson(
        `${emulator.url}/v1/messages`,
        anthropicBody({ messages, max_tokens: 4096, thinking }),
        anthropicHeaders,
      );
    const enabled = { type: 'enabled', budget_tokens: 2048 };
    expect(await anthropicMessage(await ask(turn([]), enabled))).toMatch(
      /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`\. When `thinking` is enabled, a final `assistant` message must start with a thinking block/,
    );
    expect(
      await anthropicMessage(await ask(turn([{ type: 'text', text: 'Checking.' }]), { type: 'adaptive' })),
    ).toContain('but found `text`');
    const signed = { type: 'thinking', thinking: 'Look it up.', signature: 'sig' };
    expect((await ask(turn([signed]), enabled)).status).toBe(200);
    expect((await ask(turn([{ type: 'redacted_thinking', data: 'opaque' }]), enabled)).status).toBe(200);
    // Without thinking, or once user text opens a new turn, the call needs no thinking block.
    expect((await ask(turn([]), undefined)).status).toBe(200);
    expect(
      (
        await ask(
          [...turn([]), { role: 'assistant', content: 'Sunny.' }, { role: 'user', content: 'Thanks' }],
          enabled,
        )
      ).status,
    ).toBe(200);
  });

  it('requires x-api-key, anthropic-version and max_tokens', async () => {
    const { 'x-api-key': _key, ...noKey } = anthropicHeaders;
    const unauthenticated = await anthropic([{ role: 'user', content: 'Hi' }], noKey);
    expect(unauthenticated.status).toBe(401);
    expect(((await unauthenticated.json()) as AnthropicErrorBody).error.type).toBe('authentication_error');
    const { 'anthropic-version': _version, ...noVersion } = anthropicHeaders;
    expect(await anthropicMessage(await anthropic([{ role: 'user', content: 'Hi' }], noVersion))).toBe(
      'anthropic-version: header is required',
    );
    const noMaxTokens = await postJson(
      `${emulator.url}/v1/messages`,
      { model: 'claude', messages: [{ role: 'user', content: 'Hi' }] },
      anthropicHeaders,
    );
    expect(await anthropicMessage(noMaxTokens)).toBe('max_tokens: Field required');
  });
});

function chat(messages: unknown[], headers: Record<string, string> = openaiHeaders) {
  return postJson(`${emulator.url}/v1/chat/completions`, { model: 'gpt-4.1-nano', messages }, headers);
}

const assistantCall = {
  role: 'assistant',
  content: null,
  tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{}' } }],
};

describe('OpenAI rules', () => {
  it('rejects a tool message after a null message as a 400, without failing itself', async () => {
    const response = await chat([null, { role: 'tool', tool_call_id: 'call_1', content: 'x' }]);
    expect(response.status).toBe(400);
    expect(((await response.json()) as OpenaiErrorBody).error).toMatchObject({ param: 'messages.[1].role' });
  });

  it('checks a conversation of 20,000 tool rounds in one pass each, answering each run', async () => {
    const messages: unknown[] = [{ role: 'user', content: 'Hi' }];
    for (let round = 0; round < 20_000; round++)
      messages.push(
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: `call_${round}`, type: 'function', function: { name: 'weather', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: `call_${round}`, content: 'x' },
      );
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'done' }] });
    expect((await chat(messages)).status).toBe(200);
  });

  it('checks one assistant message of 20,000 parallel calls and their 20,000 results in one pass', async () => {
    const calls = Array.from({ length: 20_000 }, (_, index) => ({
      id: `call_${index}`,
      type: 'function',
      function: { name: 'weather', arguments: '{}' },
    }));
    const messages: unknown[] = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: null, tool_calls: calls },
      ...calls.map((call) => ({ role: 'tool', tool_call_id: call.id, content: 'x' })),
    ];
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'done' }] });
    expect((await chat(messages)).status).toBe(200);
  });

  it('rejects a tool message whose tool_call_id no earlier assistant issued', async () => {
    const messages = [
      { role: 'user', content: 'Hi' },
      assistantCall,
      { role: 'tool', tool_call_id: 'call_2', content: 'x' },
    ];
    const response = await chat(messages);
    expect(response.status).toBe(400);
    const body = (await response.json()) as OpenaiErrorBody;
    expect(body.error).toMatchObject({ type: 'invalid_request_error', param: 'messages.[2].tool_call_id' });
    expect(body.error.message).toContain("'call_2' not found");
  });

  it('rejects a tool message answering a call of an earlier assistant message, not the previous one', async () => {
    const messages = [
      { role: 'user', content: 'Hi' },
      assistantCall,
      { role: 'tool', tool_call_id: 'call_1', content: 'x' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_2', content: 'y' },
      { role: 'tool', tool_call_id: 'call_1', content: 'stale' },
    ];
    const response = await chat(messages);
    expect(response.status).toBe(400);
    expect(((await response.json()) as OpenaiErrorBody).error).toEqual({
      message: "Invalid parameter: 'tool_call_id' of 'call_1' not found in 'tool_calls' of previous message.",
      type: 'invalid_request_error',
      param: 'messages.[5].tool_call_id',
      code: null,
    });
  });

  it('rejects tool call arguments sent as an object instead of a string', async () => {
    const call = {
      id: 'call_1',
      type: 'function',
      function: { name: 'weather', arguments: { city: 'Rome' } },
    };
    const messages = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: 'call_1', content: 'x' },
    ];
    const response = await chat(messages);
    expect(response.status).toBe(400);
    expect(((await response.json()) as OpenaiErrorBody).error).toEqual({
      message:
        "Invalid type for 'messages[1].tool_calls[0].function.arguments': expected a string, but got an object instead.",
      type: 'invalid_request_error',
      param: 'messages.[1].tool_calls.[0].function.arguments',
      code: 'invalid_type',
    });
  });

  it('rejects a tool message that follows no assistant tool_calls', async () => {
    const response = await chat([
      { role: 'user', content: 'Hi' },
      { role: 'tool', tool_call_id: 'call_1', content: 'x' },
    ]);
    expect(((await response.json()) as OpenaiErrorBody).error.message).toContain(
      "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'",
    );
  });

  it('rejects an assistant tool call that no tool message answers', async () => {
    const response = await chat([
      { role: 'user', content: 'Hi' },
      assistantCall,
      { role: 'user', content: 'Hm' },
    ]);
    expect(((await response.json()) as OpenaiErrorBody).error.message).toContain(
      'The following tool_call_ids did not have response messages: call_1',
    );
  });

  it('requires a bearer token unless the script allows no auth', async () => {
    const messages = [{ role: 'user', content: 'Hi' }];
    const missing = await chat(messages, { 'content-type': 'application/json' });
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as OpenaiErrorBody).error.message).toContain(
      "You didn't provide an API key",
    );
    emulator.enqueue({ type: 'scripted', allowNoAuth: true, content: [{ type: 'text', text: 'local' }] });
    expect((await chat(messages, { 'content-type': 'application/json' })).status).toBe(200);
  });

  it('rejects a Responses function_call_output without its function_call', async () => {
    const input = [{ type: 'function_call_output', call_id: 'call_9', output: '42' }];
    const response = await postJson(`${emulator.url}/v1/responses`, { model: 'gpt-5', input }, openaiHeaders);
    expect(response.status).toBe(400);
    expect(((await response.json()) as OpenaiErrorBody).error.message).toBe(
      'No tool call found for function call output with call_id call_9.',
    );
  });
});

describe('skipping rules', () => {
  it('serves the script of a violating request when the script says enforce: false', async () => {
    const script: EmulatorScript = { type: 'json', body: { served: true }, enforce: false };
    emulator.enqueue(script);
    const response = await gemini(turnWithCall(weatherCall), 'gemini-3-pro-preview', {});
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ served: true });
  });

  it('consumes the script of a rejected request', async () => {
    emulator.enqueue({ type: 'json', body: { first: true } });
    emulator.enqueue({ type: 'json', body: { second: true } });
    expect((await chat([{ role: 'user', content: 'Hi' }], {})).status).toBe(401);
    expect(await (await chat([{ role: 'user', content: 'Hi' }])).json()).toEqual({ second: true });
  });
});
