/** Golden request bodies: both state modes and every Responses preset, as inline snapshots. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Adapter } from '../../core/adapter.ts';
import { silentLogger } from '../../core/logger.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { Item } from '../../core/transcript.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import {
  createAzureOpenAIResponses,
  createOpenAIResponses,
  createOpenResponses,
  createXaiResponses,
} from './index.ts';

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator.close();
});

const common = () => ({
  apiKey: 'test-key',
  baseURL: `${emulator.url}/v1`,
  maxRetries: 0,
  logger: silentLogger,
});

/** A fixed answer: reasoning (encrypted), then a tool call. */
const toolAnswer = {
  id: 'resp_golden_1',
  object: 'response',
  status: 'completed',
  model: 'gpt-5-mini',
  output: [
    {
      id: 'rs_golden_1',
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Use the tool.' }],
      encrypted_content: 'gAAAA_golden',
    },
    {
      id: 'fc_golden_1',
      type: 'function_call',
      status: 'completed',
      call_id: 'call_golden_1',
      name: 'weather',
      arguments: '{"city":"Rome"}',
    },
  ],
  usage: { input_tokens: 20, output_tokens: 10, output_tokens_details: { reasoning_tokens: 4 } },
};

const textAnswer = {
  id: 'resp_golden_2',
  object: 'response',
  status: 'completed',
  model: 'gpt-5-mini',
  output: [
    {
      id: 'msg_golden_2',
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Sunny.', annotations: [] }],
    },
  ],
  usage: { input_tokens: 30, output_tokens: 3 },
};

const request = (transcript: Item[], model: string): CanonicalRequest => ({
  model,
  transcript,
  tools: [
    {
      name: 'weather',
      description: 'Weather by city',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ],
  toolChoice: 'auto',
  maxOutputTokens: 512,
  reasoning: { effort: 'low' },
});

const opening: Item[] = [
  { kind: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
  { kind: 'user', parts: [{ type: 'text', text: 'Weather in Rome?' }] },
];

/** Two turns (a tool call, then its answer); returns both requests as sent. */
async function twoTurns(adapter: Adapter, model: string) {
  const session = adapter.startSession();
  const before = emulator.requests.length;
  emulator.enqueue({ type: 'json', body: toolAnswer });
  const first = await adapter.complete(request(opening, model), { session });
  const call = first.content.find((part) => part.type === 'tool-call');
  if (call?.type !== 'tool-call') throw new Error('no call');
  const transcript: Item[] = [
    ...opening,
    { kind: 'assistant', parts: first.content },
    {
      kind: 'tool',
      parts: [
        { type: 'tool-result', callId: call.id, output: { type: 'text', text: 'sunny' }, isError: false },
      ],
    },
  ];
  emulator.enqueue({ type: 'json', body: textAnswer });
  await adapter.complete(request(transcript, model), { session });
  return emulator.requests.slice(before).map(({ path, query, body, headers }) => ({
    path,
    query,
    auth: headers['api-key'] !== undefined ? `api-key: ${headers['api-key']}` : headers.authorization,
    body,
  }));
}

describe('golden request bodies', () => {
  it('openai, stateless (default): store false, encrypted reasoning included and replayed whole', async () => {
    const [, second] = await twoTurns(createOpenAIResponses(common()), 'openai:gpt-5-mini');
    expect(second).toMatchInlineSnapshot(`
      {
        "auth": "Bearer test-key",
        "body": {
          "include": [
            "reasoning.encrypted_content",
          ],
          "input": [
            {
              "content": [
                {
                  "text": "Weather in Rome?",
                  "type": "input_text",
                },
              ],
              "role": "user",
              "type": "message",
            },
            {
              "encrypted_content": "gAAAA_golden",
              "id": "rs_golden_1",
              "summary": [
                {
                  "text": "Use the tool.",
                  "type": "summary_text",
                },
              ],
              "type": "reasoning",
            },
            {
              "arguments": "{"city":"Rome"}",
              "call_id": "call_golden_1",
              "id": "fc_golden_1",
              "name": "weather",
              "type": "function_call",
            },
            {
              "call_id": "call_golden_1",
              "output": "sunny",
              "type": "function_call_output",
            },
          ],
          "instructions": "Be brief.",
          "max_output_tokens": 512,
          "model": "gpt-5-mini",
          "reasoning": {
            "effort": "low",
            "summary": "auto",
          },
          "store": false,
          "tool_choice": "auto",
          "tools": [
            {
              "description": "Weather by city",
              "name": "weather",
              "parameters": {
                "properties": {
                  "city": {
                    "type": "string",
                  },
                },
                "required": [
                  "city",
                ],
                "type": "object",
              },
              "strict": false,
              "type": "function",
            },
          ],
        },
        "path": "/v1/responses",
        "query": {},
      }
    `);
  });

  it('openai, previous-response: the second turn sends only the tool output', async () => {
    const [first, second] = await twoTurns(
      createOpenAIResponses({ ...common(), state: 'previous-response' }),
      'openai:gpt-5-mini',
    );
    expect(first?.body).toMatchObject({ store: true });
    expect(second).toMatchInlineSnapshot(`
      {
        "auth": "Bearer test-key",
        "body": {
          "include": [
            "reasoning.encrypted_content",
          ],
          "input": [
            {
              "call_id": "call_golden_1",
              "output": "sunny",
              "type": "function_call_output",
            },
          ],
          "instructions": "Be brief.",
          "max_output_tokens": 512,
          "model": "gpt-5-mini",
          "previous_response_id": "resp_golden_1",
          "reasoning": {
            "effort": "low",
            "summary": "auto",
          },
          "store": true,
          "tool_choice": "auto",
          "tools": [
            {
              "description": "Weather by city",
              "name": "weather",
              "parameters": {
                "properties": {
                  "city": {
                    "type": "string",
                  },
                },
                "required": [
                  "city",
                ],
                "type": "object",
              },
              "strict": false,
              "type": "function",
            },
          ],
        },
        "path": "/v1/responses",
        "query": {},
      }
    `);
  });

  it('openai, conversation: both turns go into the conversation, the second with new items only', async () => {
    const [first, second] = await twoTurns(
      createOpenAIResponses({ ...common(), state: { conversation: 'conv_golden' } }),
      'openai:gpt-5-mini',
    );
    expect((first?.body as { input: unknown[] }).input).toHaveLength(1);
    expect(second).toMatchInlineSnapshot(`
      {
        "auth": "Bearer test-key",
        "body": {
          "conversation": "conv_golden",
          "include": [
            "reasoning.encrypted_content",
          ],
          "input": [
            {
              "call_id": "call_golden_1",
              "output": "sunny",
              "type": "function_call_output",
            },
          ],
          "instructions": "Be brief.",
          "max_output_tokens": 512,
          "model": "gpt-5-mini",
          "reasoning": {
            "effort": "low",
            "summary": "auto",
          },
          "store": true,
          "tool_choice": "auto",
          "tools": [
            {
              "description": "Weather by city",
              "name": "weather",
              "parameters": {
                "properties": {
                  "city": {
                    "type": "string",
                  },
                },
                "required": [
                  "city",
                ],
                "type": "object",
              },
              "strict": false,
              "type": "function",
            },
          ],
        },
        "path": "/v1/responses",
        "query": {},
      }
    `);
  });

  it('xai preset', async () => {
    const [, second] = await twoTurns(createXaiResponses(common()), 'xai:grok-4');
    expect(second).toMatchInlineSnapshot(`
      {
        "auth": "Bearer test-key",
        "body": {
          "include": [
            "reasoning.encrypted_content",
          ],
          "input": [
            {
              "content": [
                {
                  "text": "Weather in Rome?",
                  "type": "input_text",
                },
              ],
              "role": "user",
              "type": "message",
            },
            {
              "encrypted_content": "gAAAA_golden",
              "id": "rs_golden_1",
              "summary": [
                {
                  "text": "Use the tool.",
                  "type": "summary_text",
                },
              ],
              "type": "reasoning",
            },
            {
              "arguments": "{"city":"Rome"}",
              "call_id": "call_golden_1",
              "id": "fc_golden_1",
              "name": "weather",
              "type": "function_call",
            },
            {
              "call_id": "call_golden_1",
              "output": "sunny",
              "type": "function_call_output",
            },
          ],
          "instructions": "Be brief.",
          "max_output_tokens": 512,
          "model": "grok-4",
          "reasoning": {
            "summary": "auto",
          },
          "store": false,
          "tool_choice": "auto",
          "tools": [
            {
              "description": "Weather by city",
              "name": "weather",
              "parameters": {
                "properties": {
                  "city": {
                    "type": "string",
                  },
                },
                "required": [
                  "city",
                ],
                "type": "object",
              },
              "strict": false,
              "type": "function",
            },
          ],
        },
        "path": "/v1/responses",
        "query": {},
      }
    `);
  });

  it('open-responses preset: no reasoning include or summary', async () => {
    const [, second] = await twoTurns(createOpenResponses(common()), 'open-responses:qwen3-8b');
    expect(second).toMatchInlineSnapshot(`
      {
        "auth": "Bearer test-key",
        "body": {
          "input": [
            {
              "content": [
                {
                  "text": "Weather in Rome?",
                  "type": "input_text",
                },
              ],
              "role": "user",
              "type": "message",
            },
            {
              "encrypted_content": "gAAAA_golden",
              "id": "rs_golden_1",
              "summary": [
                {
                  "text": "Use the tool.",
                  "type": "summary_text",
                },
              ],
              "type": "reasoning",
            },
            {
              "arguments": "{"city":"Rome"}",
              "call_id": "call_golden_1",
              "id": "fc_golden_1",
              "name": "weather",
              "type": "function_call",
            },
            {
              "call_id": "call_golden_1",
              "output": "sunny",
              "type": "function_call_output",
            },
          ],
          "instructions": "Be brief.",
          "max_output_tokens": 512,
          "model": "qwen3-8b",
          "reasoning": {
            "effort": "low",
          },
          "store": false,
          "tool_choice": "auto",
          "tools": [
            {
              "description": "Weather by city",
              "name": "weather",
              "parameters": {
                "properties": {
                  "city": {
                    "type": "string",
                  },
                },
                "required": [
                  "city",
                ],
                "type": "object",
              },
              "strict": false,
              "type": "function",
            },
          ],
        },
        "path": "/v1/responses",
        "query": {},
      }
    `);
  });

  it('azure preset: v1 URL, api-key header, api-version, deployment as model', async () => {
    const azure = createAzureOpenAIResponses({
      ...common(),
      baseURL: `${emulator.url}/openai/v1`,
      apiVersion: 'preview',
      // A deployment name matches no OpenAI model row: say what the deployment serves.
      capabilities: { reasoning: true },
    });
    const [first] = await twoTurns(azure, 'azure:my-gpt5-deployment');
    expect(first).toMatchInlineSnapshot(`
      {
        "auth": "api-key: test-key",
        "body": {
          "include": [
            "reasoning.encrypted_content",
          ],
          "input": [
            {
              "content": [
                {
                  "text": "Weather in Rome?",
                  "type": "input_text",
                },
              ],
              "role": "user",
              "type": "message",
            },
          ],
          "instructions": "Be brief.",
          "max_output_tokens": 512,
          "model": "my-gpt5-deployment",
          "reasoning": {
            "effort": "low",
            "summary": "auto",
          },
          "store": false,
          "tool_choice": "auto",
          "tools": [
            {
              "description": "Weather by city",
              "name": "weather",
              "parameters": {
                "properties": {
                  "city": {
                    "type": "string",
                  },
                },
                "required": [
                  "city",
                ],
                "type": "object",
              },
              "strict": false,
              "type": "function",
            },
          ],
        },
        "path": "/openai/v1/responses",
        "query": {
          "api-version": "preview",
        },
      }
    `);
  });
});

describe('providerOptions["openai-responses"]: read by every Responses adapter, whatever its name', () => {
  it('its tools are appended after the function tools and its tool_choice replaces the canonical one; the adapter’s own key merges after', async () => {
    const adapter = createXaiResponses(common());
    const before = emulator.requests.length;
    emulator.enqueue({ type: 'json', body: textAnswer });
    await adapter.complete({
      ...request(opening, 'xai:grok-4'),
      providerOptions: {
        'openai-responses': { tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search' } },
        xai: { tools: [{ type: 'x_search' }] },
      },
    });
    const body = emulator.requests[before]!.body as Record<string, unknown>;
    expect((body.tools as Array<{ type: string }>).map((tool) => tool.type)).toEqual([
      'function',
      'web_search',
      'x_search',
    ]);
    expect(body.tool_choice).toEqual({ type: 'web_search' });
  });
});
