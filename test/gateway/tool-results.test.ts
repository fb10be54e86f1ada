/**
 * What a tool result and a stop carry across protocols: the error flag (Anthropic `is_error`,
 * Gemini `response.error`) reaches an upstream that has a place for it, and one that has none reads
 * `Error:`; a structured Gemini function response stays JSON; Anthropic's `stop_sequence` says which.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { safeToolName } from '../../src/core/tool-names.ts';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => {
  harness.emulator.clear();
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'OK.' }] });
});
afterAll(async () => {
  await harness?.close();
});

const post = (path: string, body: object) =>
  fetch(`${harness.server.url}${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
const upstreamBody = () => harness.emulator.requests.at(-1)!.body as Record<string, unknown>;

const anthropicTurn = (model: string, result: Record<string, unknown>) =>
  post('/v1/messages', {
    model,
    max_tokens: 64,
    messages: [
      { role: 'user', content: 'Delete it' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'remove', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', ...result }] },
    ],
    tools: [{ name: 'remove', input_schema: { type: 'object' } }],
  });

const geminiTurn = (model: string, response: Record<string, unknown>) =>
  post(`/v1beta/models/${model}:generateContent`, {
    contents: [
      { role: 'user', parts: [{ text: 'Weather?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'weather', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'weather', response } }] },
    ],
    tools: [{ functionDeclarations: [{ name: 'weather', parameters: { type: 'object' } }] }],
  });

describe('the error flag of a tool result', () => {
  it('Anthropic is_error → Responses upstream (no flag there): the output reads "Error: …"', async () => {
    expect(
      (await anthropicTurn('up-responses', { content: 'permission denied', is_error: true })).status,
    ).toBe(200);
    const input = upstreamBody().input as Array<{ type: string; output?: unknown }>;
    expect(input.find((item) => item.type === 'function_call_output')?.output).toBe(
      'Error: permission denied',
    );
  });

  it('Gemini response.error → Anthropic upstream: is_error true, the error text as content', async () => {
    expect((await geminiTurn('up-anthropic', { error: 'permission denied' })).status).toBe(200);
    const messages = upstreamBody().messages as Array<{ content: Array<Record<string, unknown>> }>;
    expect(messages[2]!.content[0]).toMatchObject({
      type: 'tool_result',
      is_error: true,
      content: 'permission denied',
    });
  });
});

it('a structured Gemini function response reaches a Gemini upstream as the same object, not a string of it', async () => {
  const response = { temperature: 21.5, unit: 'C', hourly: [20, 21, 22] };
  expect((await geminiTurn('up-gemini', response)).status).toBe(200);
  const contents = upstreamBody().contents as Array<{ parts: Array<Record<string, unknown>> }>;
  expect(contents[2]!.parts[0]).toMatchObject({ functionResponse: { name: 'weather', response } });
});

it.each([false, true])(
  'Anthropic client, stream %s: stop_sequence names the sequence the upstream stopped at',
  async (stream) => {
    harness.emulator.clear();
    const message = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'one two' }],
      stop_reason: 'stop_sequence',
      stop_sequence: 'END',
      usage: { input_tokens: 5, output_tokens: 2 },
    };
    const start = { ...message, content: [], stop_reason: null, stop_sequence: null };
    harness.emulator.enqueue(
      stream
        ? {
            type: 'sse',
            events: [
              { event: 'message_start', data: { type: 'message_start', message: start } },
              {
                event: 'content_block_start',
                data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
              },
              {
                event: 'content_block_delta',
                data: {
                  type: 'content_block_delta',
                  index: 0,
                  delta: { type: 'text_delta', text: 'one two' },
                },
              },
              { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
              {
                event: 'message_delta',
                data: {
                  type: 'message_delta',
                  delta: { stop_reason: 'stop_sequence', stop_sequence: 'END' },
                  usage: { output_tokens: 2 },
                },
              },
              { event: 'message_stop', data: { type: 'message_stop' } },
            ],
          }
        : { type: 'json', body: message },
    );
    const response = await post('/v1/messages', {
      model: 'up-anthropic',
      max_tokens: 64,
      stream,
      stop_sequences: ['END'],
      messages: [{ role: 'user', content: 'Count' }],
    });
    const text = await response.text();
    expect(text).toContain('"stop_reason":"stop_sequence"');
    expect(text).toContain('"stop_sequence":"END"');
  },
);

describe('tool names an upstream would refuse', () => {
  const names = ['github.create_issue:v2', '1st-tool', `${'x'.repeat(80)}`];
  it.each(['up-chat', 'up-responses', 'up-anthropic', 'up-gemini'])(
    'Gemini client → %s: sent as safe names, the model’s call named back, the next turn sent the same way',
    async (model) => {
      harness.emulator.clear();
      const safe = safeToolName(names[0]!);
      expect(safe).toMatch(/^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/);
      harness.emulator.enqueue({
        type: 'scripted',
        content: [{ type: 'tool-call', name: safe, input: { title: 'bug' } }],
      });
      const tools = [
        { functionDeclarations: names.map((name) => ({ name, parameters: { type: 'object' } })) },
      ];
      const first = await post(`/v1beta/models/${model}:generateContent`, {
        contents: [{ role: 'user', parts: [{ text: 'File it' }] }],
        tools,
      });
      expect(first.status).toBe(200);
      const sent = JSON.stringify(upstreamBody());
      for (const name of names) expect(sent).not.toContain(`"${name}"`);
      const answer = (await first.json()) as {
        candidates: Array<{ content: { parts: Array<{ functionCall?: { name: string; id?: string } }> } }>;
      };
      const call = answer.candidates[0]!.content.parts.find((part) => part.functionCall)!.functionCall!;
      expect(call.name).toBe(names[0]);
      harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Filed.' }] });
      const second = await post(`/v1beta/models/${model}:generateContent`, {
        contents: [
          { role: 'user', parts: [{ text: 'File it' }] },
          { role: 'model', parts: [{ functionCall: call }] },
          {
            role: 'user',
            parts: [{ functionResponse: { id: call.id, name: call.name, response: { output: 'ok' } } }],
          },
        ],
        tools,
      });
      expect(second.status).toBe(200);
      const history = JSON.stringify(upstreamBody());
      expect(history).toContain(`"${safe}"`);
      expect(history).not.toContain(`"${names[0]}"`);
    },
  );
});

describe('tool-call arguments that are JSON but not an object', () => {
  const turn = (model: string, argumentsText: string) =>
    post('/v1/chat/completions', {
      model,
      messages: [
        { role: 'user', content: 'Sum' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'sum', arguments: argumentsText } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '3' },
      ],
      tools: [{ type: 'function', function: { name: 'sum', parameters: { type: 'object' } } }],
    });

  it.each(['up-chat', 'up-responses'])(
    'go back to %s as the model wrote them ([1,2] stays [1,2], not {})',
    async (model) => {
      expect((await turn(model, '[1,2]')).status).toBe(200);
      expect(JSON.stringify(upstreamBody())).toContain('"arguments":"[1,2]"');
    },
  );

  it('arguments cut short go back as their repair (hosts that parse earlier calls would refuse the text)', async () => {
    expect((await turn('up-chat', '{"path":"/tmp/a","content":"hel')).status).toBe(200);
    const sent = upstreamBody().messages as Array<{
      tool_calls?: Array<{ function: { arguments: string } }>;
    }>;
    expect(JSON.parse(sent[1]!.tool_calls![0]!.function.arguments)).toEqual({
      path: '/tmp/a',
      content: 'hel',
    });
  });
});

describe('renamed tool names never reach the client, in errors either', () => {
  const name = 'github.create_issue:v2';
  const safe = safeToolName(name);
  const tools = [{ functionDeclarations: [{ name, parameters: { type: 'object' } }] }];

  it('a model failure whose finish message names the renamed tool names the client’s tool', async () => {
    harness.emulator.clear();
    harness.emulator.enqueue({
      type: 'json',
      body: {
        candidates: [
          {
            content: { role: 'model', parts: [] },
            finishReason: 'MALFORMED_FUNCTION_CALL',
            finishMessage: `Malformed function call: print(default_api.${safe}(a=1))`,
          },
        ],
        usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 0, totalTokenCount: 5 },
      },
    });
    const response = await post('/v1beta/models/up-gemini:generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'File it' }] }],
      tools,
    });
    const text = await response.text();
    expect(response.status).toBe(502);
    expect(text).toContain(name);
    expect(text).not.toContain(safe);
  });

  it('a client name equal to another name’s safe form is refused saying so', async () => {
    const response = await post('/v1beta/models/up-gemini:generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'File it' }] }],
      tools: [{ functionDeclarations: [{ name }, { name: safe }] }],
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('cannot both be sent');
  });
});

describe('a tool result of several texts', () => {
  const responsesTurn = (model: string) =>
    post('/v1/responses', {
      model,
      input: [
        { role: 'user', content: 'Run it.' },
        { type: 'function_call', call_id: 'call_1', name: 'run', arguments: '{}' },
        {
          type: 'function_call_output',
          call_id: 'call_1',
          output: [
            { type: 'input_text', text: 'first line' },
            { type: 'input_text', text: 'second line' },
          ],
        },
      ],
      tools: [{ type: 'function', name: 'run', parameters: { type: 'object' } }],
    });

  it('keeps its texts apart: separate blocks to Anthropic, never run together', async () => {
    expect((await responsesTurn('up-anthropic')).status).toBe(200);
    const messages = upstreamBody().messages as Array<{ content: unknown }>;
    expect(messages.at(-1)!.content).toEqual([
      expect.objectContaining({
        type: 'tool_result',
        content: [
          { type: 'text', text: 'first line' },
          { type: 'text', text: 'second line' },
        ],
      }),
    ]);
  });

  it.each(['up-chat', 'up-responses', 'up-gemini'])('%s gets both texts, not run together', async (model) => {
    expect((await responsesTurn(model)).status).toBe(200);
    const sent = JSON.stringify(upstreamBody());
    expect(sent).not.toContain('first linesecond line');
    expect(sent).toContain('first line');
    expect(sent).toContain('second line');
  });
});

describe('a tool result of several text parts, sent where one string is taken', () => {
  /** The result's text as each upstream was sent it. */
  const sentText: Record<string, () => unknown> = {
    'up-chat': () =>
      (upstreamBody().messages as Array<{ role: string; content?: unknown }>).find(
        (message) => message.role === 'tool',
      )?.content,
    'up-responses': () =>
      (upstreamBody().input as Array<{ type: string; output?: unknown }>).find(
        (item) => item.type === 'function_call_output',
      )?.output,
    'up-gemini': () => {
      const contents = upstreamBody().contents as Array<{
        parts: Array<{ functionResponse?: { response: Record<string, unknown> } }>;
      }>;
      const response = contents.flatMap((content) => content.parts).find((part) => part.functionResponse)
        ?.functionResponse?.response;
      return response === undefined ? undefined : Object.values(response)[0];
    },
  };

  it.each(Object.keys(sentText))(
    'toward %s: the parts joined with a blank line, the same everywhere',
    async (model) => {
      const content = [
        { type: 'text', text: 'Line one of the first part.' },
        { type: 'text', text: 'The second part.' },
      ];
      expect((await anthropicTurn(model, { content })).status).toBe(200);
      expect(sentText[model]!()).toBe('Line one of the first part.\n\nThe second part.');
    },
  );
});
