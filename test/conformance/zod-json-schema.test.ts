/** Tool and output schemas from `z.toJSONSchema` (exclusive bounds, records, tuples, recursion) on every provider. */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Adapter } from '../../src/core/adapter.ts';
import type { JsonObject } from '../../src/core/json.ts';
import type { CanonicalRequest } from '../../src/core/request.ts';
import { userText } from '../../src/core/transcript.ts';
import { createAnthropic } from '../../src/providers/anthropic/index.ts';
import { createGemini } from '../../src/providers/gemini/index.ts';
import { createOpenAI } from '../../src/providers/openai-chat/index.ts';

const TreeNode: z.ZodType<{ name: string; children: unknown[] }> = z.object({
  name: z.string(),
  get children() {
    return z.array(TreeNode);
  },
});
const inputSchema = z.toJSONSchema(
  z.object({
    count: z.number().positive(),
    tags: z.record(z.string(), z.number()),
    point: z.tuple([z.number(), z.number()]),
    tree: TreeNode,
  }),
) as JsonObject;

/** Minimal successful bodies per API, so `complete()` resolves. */
const answers: Record<string, JsonObject> = {
  anthropic: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text: 'ok' }],
    stop_reason: 'end_turn',
    usage: { input_tokens: 1, output_tokens: 1 },
  },
  openai: {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    model: 'gpt-4o',
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  },
  gemini: {
    candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1 },
  },
};

let server: Server;
let url: string;
const bodies: JsonObject[] = [];
beforeAll(async () => {
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      bodies.push(JSON.parse(text) as JsonObject);
      const api = request.url?.includes('/messages')
        ? 'anthropic'
        : request.url?.includes('/chat/completions')
          ? 'openai'
          : 'gemini';
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answers[api]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function requestFor(model: string): CanonicalRequest {
  return {
    model,
    transcript: [userText('Use the tool.')],
    maxOutputTokens: 64,
    tools: [{ name: 'plot', description: 'Plots a tree', inputSchema }],
  };
}

async function lastBodyOf(adapter: Adapter, request: CanonicalRequest): Promise<JsonObject> {
  const before = bodies.length;
  const response = await adapter.complete(request);
  expect(response.content).toEqual([{ type: 'text', text: 'ok' }]);
  expect(bodies.length).toBe(before + 1);
  return bodies.at(-1) as JsonObject;
}

const { $schema: _dialect, ...withoutDialect } = inputSchema;

describe('z.toJSONSchema schemas work on every provider', () => {
  it('Anthropic sends the schema as input_schema, as is', async () => {
    const adapter = createAnthropic({ apiKey: 'sk-ant-test', baseURL: `${url}/v1` });
    const body = await lastBodyOf(adapter, requestFor('anthropic:claude-sonnet-4-5'));
    expect((body.tools as JsonObject[])[0]?.input_schema).toEqual(inputSchema);
  });

  it('OpenAI sends the schema as function parameters, as is', async () => {
    const adapter = createOpenAI({ apiKey: 'sk-test', baseURL: `${url}/v1` });
    const body = await lastBodyOf(adapter, requestFor('openai:gpt-4o'));
    expect(((body.tools as JsonObject[])[0]?.function as JsonObject).parameters).toEqual(inputSchema);
  });

  it('Gemini 2.5+ sends JSON Schema as is in parametersJsonSchema (no conversion)', async () => {
    const adapter = createGemini({ apiKey: 'g-test', baseURL: `${url}/v1beta` });
    const body = await lastBodyOf(adapter, requestFor('gemini:gemini-2.5-flash'));
    const declaration = ((body.tools as JsonObject[])[0]?.functionDeclarations as JsonObject[])[0];
    expect(declaration?.parametersJsonSchema).toEqual(withoutDialect);
    expect(declaration).not.toHaveProperty('parameters');
  });

  it('Gemini output schemas go out as responseJsonSchema on models that take JSON Schema', async () => {
    const adapter = createGemini({ apiKey: 'g-test', baseURL: `${url}/v1beta` });
    const body = await lastBodyOf(adapter, {
      ...requestFor('gemini:gemini-3-pro-preview'),
      tools: undefined,
      outputSchema: { name: 'plot', schema: inputSchema },
    });
    expect((body.generationConfig as JsonObject).responseJsonSchema).toEqual(withoutDialect);
  });

  it('older Gemini models fall back to the converter, which names what the subset cannot express', async () => {
    const adapter = createGemini({ apiKey: 'g-test', baseURL: `${url}/v1beta`, maxRetries: 0 });
    const before = bodies.length;
    await expect(adapter.complete(requestFor('gemini:gemini-2.0-flash'))).rejects.toMatchObject({
      errorClass: 'invalid_request',
      providerCode: 'unsupported_schema',
    });
    expect(bodies.length).toBe(before); // rejected before any request
    const simple = { type: 'object', properties: { term: { type: 'string' } }, required: ['term'] };
    const body = await lastBodyOf(adapter, {
      ...requestFor('gemini:gemini-2.0-flash'),
      tools: [{ name: 'lookup', inputSchema: simple }],
    });
    const declaration = ((body.tools as JsonObject[])[0]?.functionDeclarations as JsonObject[])[0];
    expect(declaration?.parameters).toMatchObject({
      type: 'OBJECT',
      properties: { term: { type: 'STRING' } },
    });
  });

  it('a /v1 base URL (no JSON Schema fields there) uses the converter unless useJsonSchema is forced', async () => {
    const converted = createGemini({ apiKey: 'g-test', baseURL: `${url}/v1`, maxRetries: 0 });
    await expect(converted.complete(requestFor('gemini:gemini-2.5-flash'))).rejects.toMatchObject({
      providerCode: 'unsupported_schema',
    });
    const forced = createGemini({ apiKey: 'g-test', baseURL: `${url}/v1`, useJsonSchema: true });
    const body = await lastBodyOf(forced, requestFor('gemini:gemini-2.5-flash'));
    const declaration = ((body.tools as JsonObject[])[0]?.functionDeclarations as JsonObject[])[0];
    expect(declaration?.parametersJsonSchema).toEqual(withoutDialect);
  });
});
