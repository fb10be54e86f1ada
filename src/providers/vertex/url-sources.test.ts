/**
 * Claude on Vertex fetches no http(s) URL ("URL sources are not supported", langchain-google#1088):
 * an image or document given by one is left out with the projection WARN, as toward Bedrock (Converse
 * and InvokeModel), never
 * sent as a `url` source the host refuses; the Anthropic API itself still gets the URL.
 */
import { describe, expect, it } from 'vitest';
import { toolCallId } from '../../core/ids.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { Item, Part } from '../../core/transcript.ts';
import { anthropicCapabilities } from '../anthropic/capabilities.ts';
import { buildRequest as buildAnthropicRequest } from '../anthropic/request.ts';
import { invokeCapabilities } from '../bedrock/capabilities.ts';
import { buildRequest as buildInvokeRequest } from '../bedrock/invoke.ts';
import { createTestContext } from '../bedrock/test-support.ts';
import { droppedPartMessage } from '../common/projection.ts';
import { checkVertexAnthropicRequest } from '../../testing/emulator/rules/vertex.ts';
import type { RecordedRequest } from '../../testing/emulator/types.ts';
import { capabilitiesFor } from './capabilities.ts';
import { buildRequest } from './request.ts';

const claude = 'claude-sonnet-4-5@20250929';
const call = toolCallId('tu_01JURLSOURCE00000000000000');
const image: Part = {
  type: 'media',
  modality: 'image',
  mimeType: 'image/png',
  data: { type: 'uri', uri: 'https://example.com/cat.png' },
};
const pdf: Part = {
  type: 'file',
  mimeType: 'application/pdf',
  data: { type: 'uri', uri: 'https://example.com/a.pdf?token=secret' },
};
const transcript: Item[] = [
  { kind: 'user', parts: [{ type: 'text', text: 'what?' }, image, pdf] },
  { kind: 'assistant', parts: [{ type: 'tool-call', id: call, name: 'look', input: {} }] },
  {
    kind: 'tool',
    parts: [
      {
        type: 'tool-result',
        callId: call,
        isError: false,
        output: { type: 'parts', parts: [{ type: 'text', text: 'seen' }, { ...image }] },
      },
    ],
  },
];
const request: CanonicalRequest = {
  model: `vertex:${claude}`,
  transcript,
  maxOutputTokens: 64,
  tools: [{ name: 'look', inputSchema: { type: 'object' } }],
};

describe('Claude on Vertex: http(s) URL media left out with a WARN', () => {
  it('no url source reaches the body; one WARN per part, naming the part and not the URL', () => {
    const context = createTestContext('vertex', claude, capabilitiesFor(claude));
    const body = buildRequest(request, context).body;
    expect(JSON.stringify(body)).not.toContain('"url"');
    const messages = body.messages as Array<{ content: unknown[] }>;
    expect(messages[0]?.content).toEqual([{ type: 'text', text: 'what?' }]);
    const drops = context.logger.entries.filter((entry) => entry.message === droppedPartMessage);
    expect(
      drops.map((entry) => [entry.fields.blockType, entry.fields.itemIndex, entry.fields.partIndex]),
    ).toEqual([
      ['media', 0, 1],
      ['file', 0, 2],
      ['media', 2, 0],
    ]);
    expect(String(drops[0]?.fields.reason)).toMatch(/https: URL.*Vertex/);
    expect(JSON.stringify(drops)).not.toContain('example.com');
  });

  it('Claude on Bedrock InvokeModel leaves them out the same way (Bedrock fetches no URL)', () => {
    const model = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
    const context = createTestContext('bedrock', model, invokeCapabilities(model));
    const body = buildInvokeRequest({ ...request, model: `bedrock:${model}` }, context).body;
    expect(JSON.stringify(body)).not.toContain('"url"');
    const drops = context.logger.entries.filter((entry) => entry.message === droppedPartMessage);
    expect(drops).toHaveLength(3);
    expect(String(drops[0]?.fields.reason)).toMatch(/https: URL.*Bedrock/);
    expect(JSON.stringify(drops)).not.toContain('example.com');
  });

  it('the Anthropic API itself still fetches them', () => {
    const model = 'claude-sonnet-4-5-20250929';
    const context = createTestContext('anthropic', model, anthropicCapabilities(model));
    const body = buildAnthropicRequest({ ...request, model: `anthropic:${model}` }, context).body;
    expect(JSON.stringify(body)).toContain('"type":"url"');
  });
});

describe('the emulator’s Vertex Claude route refuses URL sources', () => {
  const raw = (content: unknown[]): RecordedRequest => ({
    method: 'POST',
    path: `/v1/projects/p/locations/global/publishers/anthropic/models/${claude}:rawPredict`,
    query: {},
    headers: { authorization: 'Bearer ya29.test' },
    body: {
      anthropic_version: 'vertex-2023-10-16',
      max_tokens: 64,
      messages: [{ role: 'user', content }],
    },
    protocol: 'vertex-anthropic',
  });
  const status = (content: unknown[]) =>
    (checkVertexAnthropicRequest(raw(content)) as { status?: number } | undefined)?.status;

  it('an image or document url source is a 400; base64 passes', () => {
    const url = { type: 'url', url: 'https://example.com/cat.png' };
    expect(
      status([
        { type: 'image', source: url },
        { type: 'text', text: 'q' },
      ]),
    ).toBe(400);
    expect(
      status([
        { type: 'document', source: url },
        { type: 'text', text: 'q' },
      ]),
    ).toBe(400);
    const inline = { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' };
    expect(
      status([
        { type: 'image', source: inline },
        { type: 'text', text: 'q' },
      ]),
    ).toBeUndefined();
  });
});
