/** Golden request bodies (inline snapshots) for the canonical → Messages API translation. */
import { describe, expect, it } from 'vitest';
import { createSession } from '../../core/adapter.ts';
import { type ToolCallId, toolCallId } from '../../core/ids.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { ToolIdMap } from '../../core/tool-id-map.ts';
import type { ToolSpec } from '../../core/tools.ts';
import type { Item } from '../../core/transcript.ts';
import { buildRequest } from './request.ts';
import { createTestContext } from './test-support.ts';

const weatherTool: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const timeTool: ToolSpec = {
  name: 'get_time',
  inputSchema: { type: 'object', properties: { zone: { type: 'string' } } },
};

const callParis: ToolCallId = toolCallId('tu_01JWEATHERPARIS0000000000');
const callTokyo: ToolCallId = toolCallId('tu_01JTIMETOKYO00000000000000');

function request(transcript: Item[], overrides: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return { model: 'anthropic:claude-sonnet-4-5', transcript, maxOutputTokens: 1024, ...overrides };
}

function body(canonical: CanonicalRequest, stream = false) {
  const context = createTestContext({ model: 'claude-sonnet-4-5', stream });
  const wire = buildRequest(canonical, context);
  return { body: wire.body, headers: wire.headers, warnings: context.logger.entries, context };
}

describe('golden request bodies', () => {
  it('plain text with a system prompt', () => {
    const { body: wire, warnings } = body(
      request([
        { kind: 'system', parts: [{ type: 'text', text: 'You are terse.' }] },
        { kind: 'user', parts: [{ type: 'text', text: 'Hello, how are you?' }] },
      ]),
      true,
    );
    expect(wire).toMatchInlineSnapshot(`
      {
        "max_tokens": 1024,
        "messages": [
          {
            "content": [
              {
                "text": "Hello, how are you?",
                "type": "text",
              },
            ],
            "role": "user",
          },
        ],
        "model": "claude-sonnet-4-5",
        "stream": true,
        "system": "You are terse.",
      }
    `);
    expect(warnings).toEqual([]);
  });

  it('multi-turn with parallel tool calls and their results', () => {
    const { body: wire } = body(
      request(
        [
          { kind: 'user', parts: [{ type: 'text', text: 'Weather in Paris and time in Tokyo?' }] },
          {
            kind: 'assistant',
            parts: [
              { type: 'text', text: 'Checking both.' },
              { type: 'tool-call', id: callParis, name: 'get_weather', input: { city: 'Paris' } },
              { type: 'tool-call', id: callTokyo, name: 'get_time', input: { zone: 'Asia/Tokyo' } },
            ],
          },
          {
            kind: 'tool',
            parts: [
              {
                type: 'tool-result',
                callId: callParis,
                output: { type: 'text', text: '18°C, cloudy' },
                isError: false,
              },
              {
                type: 'tool-result',
                callId: callTokyo,
                output: { type: 'json', value: { error: 'zone service down' } },
                isError: true,
              },
            ],
          },
          { kind: 'user', parts: [{ type: 'text', text: 'Retry the time, please.' }] },
        ],
        {
          tools: [weatherTool, timeTool],
          toolChoice: 'auto',
          parallelToolCalls: false,
          stopSequences: ['\n\nHuman:'],
          temperature: 0.2,
        },
      ),
    );
    expect(wire).toMatchInlineSnapshot(`
      {
        "max_tokens": 1024,
        "messages": [
          {
            "content": [
              {
                "text": "Weather in Paris and time in Tokyo?",
                "type": "text",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "text": "Checking both.",
                "type": "text",
              },
              {
                "id": "tu_01JWEATHERPARIS0000000000",
                "input": {
                  "city": "Paris",
                },
                "name": "get_weather",
                "type": "tool_use",
              },
              {
                "id": "tu_01JTIMETOKYO00000000000000",
                "input": {
                  "zone": "Asia/Tokyo",
                },
                "name": "get_time",
                "type": "tool_use",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "content": "18°C, cloudy",
                "tool_use_id": "tu_01JWEATHERPARIS0000000000",
                "type": "tool_result",
              },
              {
                "content": "{"error":"zone service down"}",
                "is_error": true,
                "tool_use_id": "tu_01JTIMETOKYO00000000000000",
                "type": "tool_result",
              },
              {
                "text": "Retry the time, please.",
                "type": "text",
              },
            ],
            "role": "user",
          },
        ],
        "model": "claude-sonnet-4-5",
        "stop_sequences": [
          "

      Human:",
        ],
        "temperature": 0.2,
        "tool_choice": {
          "disable_parallel_tool_use": true,
          "type": "auto",
        },
        "tools": [
          {
            "description": "Current weather for a city",
            "input_schema": {
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
            "name": "get_weather",
          },
          {
            "input_schema": {
              "properties": {
                "zone": {
                  "type": "string",
                },
              },
              "type": "object",
            },
            "name": "get_time",
          },
        ],
      }
    `);
  });

  it('thinking round-trip with its signature', () => {
    const { body: wire, warnings } = body(
      request(
        [
          { kind: 'user', parts: [{ type: 'text', text: 'Weather in Paris?' }] },
          {
            kind: 'assistant',
            parts: [
              {
                type: 'reasoning',
                text: 'The user wants the weather; call the tool.',
                signature: 'EqQBCkgIBxABGAIiQL2sig',
                provider: 'anthropic',
              },
              {
                type: 'tool-call',
                id: callParis,
                name: 'get_weather',
                input: { city: 'Paris' },
                provider: 'anthropic',
              },
            ],
          },
          {
            kind: 'tool',
            parts: [
              {
                type: 'tool-result',
                callId: callParis,
                output: { type: 'text', text: '18°C' },
                isError: false,
              },
            ],
          },
        ],
        { tools: [weatherTool], reasoning: { budgetTokens: 2048 }, maxOutputTokens: 4096 },
      ),
    );
    expect(wire).toMatchInlineSnapshot(`
      {
        "max_tokens": 4096,
        "messages": [
          {
            "content": [
              {
                "text": "Weather in Paris?",
                "type": "text",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "signature": "EqQBCkgIBxABGAIiQL2sig",
                "thinking": "The user wants the weather; call the tool.",
                "type": "thinking",
              },
              {
                "id": "tu_01JWEATHERPARIS0000000000",
                "input": {
                  "city": "Paris",
                },
                "name": "get_weather",
                "type": "tool_use",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "content": "18°C",
                "tool_use_id": "tu_01JWEATHERPARIS0000000000",
                "type": "tool_result",
              },
            ],
            "role": "user",
          },
        ],
        "model": "claude-sonnet-4-5",
        "thinking": {
          "budget_tokens": 2048,
          "type": "enabled",
        },
        "tools": [
          {
            "description": "Current weather for a city",
            "input_schema": {
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
            "name": "get_weather",
          },
        ],
      }
    `);
    expect(warnings).toEqual([]);
  });

  it('redacted thinking goes back as redacted_thinking with its data', () => {
    const { body: wire } = body(
      request([
        { kind: 'user', parts: [{ type: 'text', text: 'Explain.' }] },
        {
          kind: 'assistant',
          parts: [
            {
              type: 'reasoning',
              text: '',
              redacted: true,
              data: 'EmwKAhgBEgy3va3pzix',
              provider: 'anthropic',
            },
            { type: 'text', text: 'Here is the answer.' },
          ],
        },
        { kind: 'user', parts: [{ type: 'text', text: 'Thanks. More?' }] },
      ]),
    );
    expect(wire).toMatchInlineSnapshot(`
      {
        "max_tokens": 1024,
        "messages": [
          {
            "content": [
              {
                "text": "Explain.",
                "type": "text",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "data": "EmwKAhgBEgy3va3pzix",
                "type": "redacted_thinking",
              },
              {
                "text": "Here is the answer.",
                "type": "text",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "text": "Thanks. More?",
                "type": "text",
              },
            ],
            "role": "user",
          },
        ],
        "model": "claude-sonnet-4-5",
      }
    `);
  });

  it('images from base64, a URL and raw bytes', () => {
    const { body: wire } = body(
      request([
        {
          kind: 'user',
          parts: [
            { type: 'text', text: 'Compare these.' },
            {
              type: 'media',
              modality: 'image',
              mimeType: 'image/png',
              data: { type: 'base64', data: 'iVBORw0KGgo=' },
            },
            {
              type: 'media',
              modality: 'image',
              mimeType: 'image/jpeg',
              data: { type: 'uri', uri: 'https://example.com/cat.jpg' },
            },
            {
              type: 'media',
              modality: 'image',
              mimeType: 'image/gif',
              data: { type: 'bytes', bytes: new Uint8Array([71, 73, 70, 56, 57, 97]) },
            },
          ],
        },
      ]),
    );
    expect(wire).toMatchInlineSnapshot(`
      {
        "max_tokens": 1024,
        "messages": [
          {
            "content": [
              {
                "text": "Compare these.",
                "type": "text",
              },
              {
                "source": {
                  "data": "iVBORw0KGgo=",
                  "media_type": "image/png",
                  "type": "base64",
                },
                "type": "image",
              },
              {
                "source": {
                  "type": "url",
                  "url": "https://example.com/cat.jpg",
                },
                "type": "image",
              },
              {
                "source": {
                  "data": "R0lGODlh",
                  "media_type": "image/gif",
                  "type": "base64",
                },
                "type": "image",
              },
            ],
            "role": "user",
          },
        ],
        "model": "claude-sonnet-4-5",
      }
    `);
  });

  it('PDF documents (base64 and URL) and a plain-text document', () => {
    const { body: wire } = body(
      request([
        {
          kind: 'user',
          parts: [
            {
              type: 'file',
              mimeType: 'application/pdf',
              filename: 'report.pdf',
              data: { type: 'base64', data: 'JVBERi0xLjQK' },
            },
            {
              type: 'file',
              mimeType: 'application/pdf',
              data: { type: 'uri', uri: 'https://example.com/paper.pdf' },
            },
            {
              type: 'file',
              mimeType: 'text/plain',
              filename: 'notes.txt',
              data: { type: 'base64', data: Buffer.from('Line one.\nLine two.').toString('base64') },
            },
            { type: 'text', text: 'Summarize all three.' },
          ],
        },
      ]),
    );
    expect(wire).toMatchInlineSnapshot(`
      {
        "max_tokens": 1024,
        "messages": [
          {
            "content": [
              {
                "source": {
                  "data": "JVBERi0xLjQK",
                  "media_type": "application/pdf",
                  "type": "base64",
                },
                "title": "report.pdf",
                "type": "document",
              },
              {
                "source": {
                  "type": "url",
                  "url": "https://example.com/paper.pdf",
                },
                "type": "document",
              },
              {
                "source": {
                  "data": "Line one.
      Line two.",
                  "media_type": "text/plain",
                  "type": "text",
                },
                "title": "notes.txt",
                "type": "document",
              },
              {
                "text": "Summarize all three.",
                "type": "text",
              },
            ],
            "role": "user",
          },
        ],
        "model": "claude-sonnet-4-5",
      }
    `);
  });

  it('cache breakpoints on the tools, the system prompt and the last user message', () => {
    const { body: wire } = body(
      request(
        [
          { kind: 'system', parts: [{ type: 'text', text: 'You are a weather bot.' }] },
          { kind: 'context', parts: [{ type: 'text', text: 'Units: metric.' }] },
          { kind: 'user', parts: [{ type: 'text', text: 'Paris?' }] },
          { kind: 'assistant', parts: [{ type: 'text', text: '18°C.' }] },
          { kind: 'user', parts: [{ type: 'text', text: 'And Rome?' }] },
        ],
        { tools: [weatherTool, timeTool], cache: { ttl: '1h' } },
      ),
    );
    expect(wire).toMatchInlineSnapshot(`
      {
        "max_tokens": 1024,
        "messages": [
          {
            "content": [
              {
                "text": "Paris?",
                "type": "text",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "text": "18°C.",
                "type": "text",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "cache_control": {
                  "ttl": "1h",
                  "type": "ephemeral",
                },
                "text": "And Rome?",
                "type": "text",
              },
            ],
            "role": "user",
          },
        ],
        "model": "claude-sonnet-4-5",
        "system": [
          {
            "cache_control": {
              "ttl": "1h",
              "type": "ephemeral",
            },
            "text": "You are a weather bot.

      Units: metric.",
            "type": "text",
          },
        ],
        "tools": [
          {
            "description": "Current weather for a city",
            "input_schema": {
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
            "name": "get_weather",
          },
          {
            "cache_control": {
              "ttl": "1h",
              "type": "ephemeral",
            },
            "input_schema": {
              "properties": {
                "zone": {
                  "type": "string",
                },
              },
              "type": "object",
            },
            "name": "get_time",
          },
        ],
      }
    `);
  });

  it('structured output through output_config.format', () => {
    const { body: wire } = body(
      request([{ kind: 'user', parts: [{ type: 'text', text: 'Give me a lasagna recipe.' }] }], {
        outputSchema: {
          name: 'recipe',
          schema: {
            type: 'object',
            properties: { name: { type: 'string' }, steps: { type: 'array', items: { type: 'string' } } },
            required: ['name', 'steps'],
            additionalProperties: false,
          },
        },
      }),
    );
    expect(wire).toMatchInlineSnapshot(`
      {
        "max_tokens": 1024,
        "messages": [
          {
            "content": [
              {
                "text": "Give me a lasagna recipe.",
                "type": "text",
              },
            ],
            "role": "user",
          },
        ],
        "model": "claude-sonnet-4-5",
        "output_config": {
          "format": {
            "schema": {
              "additionalProperties": false,
              "properties": {
                "name": {
                  "type": "string",
                },
                "steps": {
                  "items": {
                    "type": "string",
                  },
                  "type": "array",
                },
              },
              "required": [
                "name",
                "steps",
              ],
              "type": "object",
            },
            "type": "json_schema",
          },
        },
      }
    `);
  });

  it('a transcript from another provider: foreign reasoning dropped with a WARN, tool ids rewritten', () => {
    // The OpenAI adapter saw this call first: its canonical id maps to OpenAI's `call_…` id.
    const first = toolCallId('tu_01JCALLFROMOPENAI00000000');
    const session = createSession(ToolIdMap.fromJSON([['openai', first, 'call_Xk2pQ9wLm3']]));
    const context = createTestContext({ model: 'claude-sonnet-4-5', session });
    const imported = toolCallId('call_7f|fc_68b1'); // an id imported verbatim, invalid for Anthropic
    const wire = buildRequest(
      request([
        { kind: 'developer', parts: [{ type: 'text', text: 'Answer in French.' }] },
        { kind: 'user', parts: [{ type: 'text', text: 'Weather in Paris and Lyon?' }] },
        {
          kind: 'assistant',
          parts: [
            { type: 'reasoning', text: 'Two lookups.', data: 'gAAAAABencrypted', provider: 'openai' },
            {
              type: 'tool-call',
              id: first,
              name: 'get_weather',
              input: { city: 'Paris' },
              provider: 'openai',
            },
            {
              type: 'tool-call',
              id: imported,
              name: 'get_weather',
              input: { city: 'Lyon' },
              provider: 'openai',
            },
          ],
        },
        {
          kind: 'tool',
          parts: [
            { type: 'tool-result', callId: first, output: { type: 'text', text: '18°C' }, isError: false },
            { type: 'tool-result', callId: imported, output: { type: 'text', text: '21°C' }, isError: false },
          ],
        },
      ]),
      context,
    ).body;
    const messages = wire.messages as Array<{ content: Array<{ id?: string; tool_use_id?: string }> }>;
    const uses = messages[1]?.content ?? [];
    expect(uses.map((block) => block.id)).toEqual([first, 'call_7f_fc_68b1']);
    expect(messages[2]?.content.map((block) => block.tool_use_id)).toEqual([first, 'call_7f_fc_68b1']);
    expect(session.toolIds.toProvider('anthropic', imported)).toBe('call_7f_fc_68b1');
    expect(wire).toMatchInlineSnapshot(`
      {
        "max_tokens": 1024,
        "messages": [
          {
            "content": [
              {
                "text": "Weather in Paris and Lyon?",
                "type": "text",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "id": "tu_01JCALLFROMOPENAI00000000",
                "input": {
                  "city": "Paris",
                },
                "name": "get_weather",
                "type": "tool_use",
              },
              {
                "id": "call_7f_fc_68b1",
                "input": {
                  "city": "Lyon",
                },
                "name": "get_weather",
                "type": "tool_use",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "content": "18°C",
                "tool_use_id": "tu_01JCALLFROMOPENAI00000000",
                "type": "tool_result",
              },
              {
                "content": "21°C",
                "tool_use_id": "call_7f_fc_68b1",
                "type": "tool_result",
              },
            ],
            "role": "user",
          },
        ],
        "model": "claude-sonnet-4-5",
        "system": "Answer in French.",
      }
    `);
    expect(context.logger.entries).toMatchObject([
      {
        message: 'dropped a part the provider cannot take',
        fields: {
          adapter: 'anthropic',
          requestId: 'req_test',
          sessionId: session.id,
          itemIndex: 2,
          partIndex: 0,
          blockType: 'reasoning',
          reason: 'reasoning produced by openai cannot be verified by anthropic',
        },
      },
    ]);
  });
});
