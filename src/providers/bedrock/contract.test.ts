/**
 * What only Bedrock and Vertex show: golden request bodies (inline snapshots) of Converse, of Claude
 * through InvokeModel and of Vertex's two publishers, and the paths they go to.
 */
import { describe, expect, it } from 'vitest';
import { toolCallId } from '../../core/ids.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { Item } from '../../core/transcript.ts';
import { provenanceFields } from '../common/projection.ts';
import { capabilitiesFor as vertexCapabilities } from '../vertex/capabilities.ts';
import { createVertexDefinition } from '../vertex/definition.ts';
import { buildRequest as buildVertexRequest } from '../vertex/request.ts';
import { capabilitiesFor, familyOf, invokeCapabilities } from './capabilities.ts';
import { createBedrockDefinition } from './definition.ts';
import { buildRequest as buildInvokeRequest } from './invoke.ts';
import { buildRequest } from './request.ts';
import { createTestContext } from './test-support.ts';

const call = toolCallId('tu_01JWEATHERPARIS0000000000');
const transcript: Item[] = [
  { kind: 'system', parts: [{ type: 'text', text: 'You are terse.' }] },
  { kind: 'user', parts: [{ type: 'text', text: 'Weather in Paris?' }] },
  {
    kind: 'assistant',
    parts: [
      { type: 'reasoning', text: 'Look it up.', signature: 'sig-1', provider: 'bedrock' },
      { type: 'reasoning', text: 'Foreign thought.', signature: 'sig-x', provider: 'openai' },
      { type: 'tool-call', id: call, name: 'get_weather', input: { city: 'Paris' } },
    ],
  },
  {
    kind: 'tool',
    parts: [{ type: 'tool-result', callId: call, output: { type: 'text', text: 'rain' }, isError: false }],
  },
];
const tools = [
  { name: 'get_weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } },
];

function request(model: string, overrides: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return { model, transcript, tools, maxOutputTokens: 4096, ...overrides };
}

describe('Bedrock Converse request', () => {
  it('tools, own signed reasoning back, reasoning budget, cache points; the id one encoded segment', () => {
    const model = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
    const context = createTestContext('bedrock', model, capabilitiesFor(model), true);
    const canonical = request(`bedrock:${model}`, {
      reasoning: { effort: 'low' },
      cache: {},
      temperature: 1,
    });
    const wire = buildRequest(canonical, context);
    expect(wire.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream');
    expect(JSON.stringify(wire.body)).toContain('tu_01JWEATHERPARIS0000000000');
    expect(wire.body).toMatchInlineSnapshot(`
      {
        "additionalModelRequestFields": {
          "thinking": {
            "budget_tokens": 2048,
            "type": "enabled",
          },
        },
        "inferenceConfig": {
          "maxTokens": 4096,
          "temperature": 1,
        },
        "messages": [
          {
            "content": [
              {
                "text": "Weather in Paris?",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "reasoningContent": {
                  "reasoningText": {
                    "signature": "sig-1",
                    "text": "Look it up.",
                  },
                },
              },
              {
                "toolUse": {
                  "input": {
                    "city": "Paris",
                  },
                  "name": "get_weather",
                  "toolUseId": "tu_01JWEATHERPARIS0000000000",
                },
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "toolResult": {
                  "content": [
                    {
                      "text": "rain",
                    },
                  ],
                  "toolUseId": "tu_01JWEATHERPARIS0000000000",
                },
              },
              {
                "cachePoint": {
                  "type": "default",
                },
              },
            ],
            "role": "user",
          },
        ],
        "system": [
          {
            "text": "You are terse.",
          },
          {
            "cachePoint": {
              "type": "default",
            },
          },
        ],
        "toolConfig": {
          "tools": [
            {
              "toolSpec": {
                "inputSchema": {
                  "json": {
                    "properties": {
                      "city": {
                        "type": "string",
                      },
                    },
                    "type": "object",
                  },
                },
                "name": "get_weather",
              },
            },
          ],
        },
      }
    `);
    expect(context.logger.entries.map((entry) => entry.fields?.blockType)).toEqual(['reasoning']);
  });
});

describe('Claude through InvokeModel', () => {
  it('the Anthropic body without model and stream, with anthropic_version bedrock-2023-05-31', () => {
    const model = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
    const context = createTestContext('bedrock', model, invokeCapabilities(model), true);
    const wire = buildInvokeRequest(request(`bedrock:${model}`), context);
    expect(wire.path).toBe('/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream');
    expect(wire.body).toMatchInlineSnapshot(`
      {
        "anthropic_version": "bedrock-2023-05-31",
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
                "signature": "sig-1",
                "thinking": "Look it up.",
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
                "content": "rain",
                "tool_use_id": "tu_01JWEATHERPARIS0000000000",
                "type": "tool_result",
              },
            ],
            "role": "user",
          },
        ],
        "system": "You are terse.",
        "tools": [
          {
            "input_schema": {
              "properties": {
                "city": {
                  "type": "string",
                },
              },
              "type": "object",
            },
            "name": "get_weather",
          },
        ],
      }
    `);
  });
});

describe('Vertex requests', () => {
  it('Claude: rawPredict path, anthropic_version vertex-2023-10-16, no model, stream kept', () => {
    const model = 'claude-sonnet-4-5@20250929';
    const context = createTestContext('vertex', model, vertexCapabilities(model), true);
    const wire = buildVertexRequest(request(`vertex:${model}`), context);
    expect(wire.path).toBe('/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict');
    expect(wire.body).toMatchObject({
      anthropic_version: 'vertex-2023-10-16',
      stream: true,
      max_tokens: 4096,
    });
    expect(wire.body).not.toHaveProperty('model');
  });

  it('Gemini: the Gemini body at the publisher path', () => {
    const model = 'gemini-2.5-flash';
    const context = createTestContext('vertex', model, vertexCapabilities(model), false);
    const wire = buildVertexRequest(request(`vertex:${model}`), context);
    expect(wire.path).toBe('/publishers/google/models/gemini-2.5-flash:generateContent');
    expect(wire.body).toHaveProperty('contents');
    expect(wire.body).toHaveProperty('systemInstruction');
  });
});

describe('model families: the provenance of a call on a host that serves several', () => {
  it('Bedrock: the vendor after any region prefix, an ARN by its model, an application profile by its own id', () => {
    expect(familyOf('us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe('anthropic');
    expect(familyOf('global.anthropic.claude-opus-4-5-20251101-v1:0')).toBe('anthropic');
    expect(familyOf('amazon.nova-2-lite-v1:0')).toBe('amazon');
    expect(familyOf('us.meta.llama3-3-70b-instruct-v1:0')).toBe('meta');
    expect(familyOf('deepseek.r1-v1:0')).toBe('deepseek');
    expect(
      familyOf('arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0'),
    ).toBe('anthropic');
    expect(familyOf('arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4')).toBe(
      'a1b2c3d4',
    );
  });

  it('Bedrock tags bedrock/<vendor> and owns bare bedrock parts for Claude only (the one family that signed)', () => {
    const definition = createBedrockDefinition({ region: 'us-east-1', env: {} });
    expect(provenanceFields(definition, 'us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toEqual({
      provenance: 'bedrock/anthropic',
      ownsBareTag: true,
    });
    expect(provenanceFields(definition, 'us.amazon.nova-2-lite-v1:0')).toEqual({
      provenance: 'bedrock/amazon',
    });
  });

  it('Vertex tags vertex/anthropic and vertex/google, and owns no bare vertex part (either family could have made it)', () => {
    const definition = createVertexDefinition({ env: {} });
    expect(provenanceFields(definition, 'claude-sonnet-4-5@20250929')).toEqual({
      provenance: 'vertex/anthropic',
    });
    expect(provenanceFields(definition, 'gemini-3-pro-preview')).toEqual({ provenance: 'vertex/google' });
  });
});
