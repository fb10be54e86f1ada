/**
 * Client requests changed in one to three places (fast-check; a fixed seed, so a failure replays):
 * whatever arrives, each inbound protocol answers with a reply or a refusal in its own shape —
 * never a 500, never a JavaScript error's text, never a stream that stops as if complete.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  anthropicClient,
  type GatewayHarness,
  scriptedText,
  startGatewayHarness,
  upstreams,
} from './harness.ts';
import {
  endsAsItsProtocolDoes,
  internalFault,
  mutate,
  mutations,
  propertyOptions,
  scriptedCall,
} from './mutations.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

const png =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const schema = {
  type: 'object',
  properties: { a: { type: 'string' }, n: { type: 'array', items: { type: 'number' } } },
  required: ['a'],
  additionalProperties: false,
};

/** One request per route, using most of what each protocol can say (tools, reasoning, images, history). */
function requests(model: string): Array<{ path: string; body: Record<string, unknown>; headers?: object }> {
  return [
    {
      path: '/v1/chat/completions',
      body: {
        model,
        max_tokens: 50,
        stop: ['END'],
        reasoning_effort: 'low',
        messages: [
          { role: 'developer', content: 'be brief' },
          { role: 'system', content: [{ type: 'text', text: 'sys' }] },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'hi' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${png}`, detail: 'low' } },
            ],
          },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'get', arguments: '{"a":"x"}' } },
              { id: 'call_2', type: 'function', function: { name: 'get', arguments: '{}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'r1' },
          { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: 'r2' }] },
          { role: 'user', content: 'go' },
        ],
        tools: [{ type: 'function', function: { name: 'get', parameters: schema, strict: true } }],
        tool_choice: 'auto',
        response_format: { type: 'json_schema', json_schema: { name: 'out', schema, strict: true } },
        stream_options: { include_usage: true },
      },
    },
    {
      path: '/v1/responses',
      body: {
        model,
        store: false,
        instructions: 'be brief',
        max_output_tokens: 100,
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'hi' },
              { type: 'input_image', image_url: `data:image/png;base64,${png}` },
            ],
          },
          {
            type: 'reasoning',
            id: 'rs_1',
            summary: [{ type: 'summary_text', text: 't' }],
            encrypted_content: 'abc',
          },
          { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get', arguments: '{"a":"x"}' },
          { type: 'function_call_output', call_id: 'call_1', output: 'r1' },
          { role: 'user', content: 'go' },
        ],
        tools: [{ type: 'function', name: 'get', parameters: schema, strict: true }],
        reasoning: { effort: 'low', summary: 'auto' },
        text: { format: { type: 'json_schema', name: 'out', schema, strict: true } },
      },
    },
    {
      path: '/v1/messages',
      headers: anthropicClient,
      body: {
        model,
        max_tokens: 2000,
        system: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }],
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'hi' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
              { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'doc' } },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'hmm', signature: 'sig' },
              { type: 'tool_use', id: 'toolu_1', name: 'get', input: { a: 'x' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'r1' }] },
              { type: 'text', text: 'go' },
            ],
          },
        ],
        tools: [{ name: 'get', input_schema: schema }],
        tool_choice: { type: 'auto' },
      },
    },
    {
      path: `/v1beta/models/${model}:generateContent`,
      headers: { 'x-goog-api-key': 'k' },
      body: {
        systemInstruction: { parts: [{ text: 'sys' }] },
        contents: [
          { role: 'user', parts: [{ text: 'hi' }, { inlineData: { mimeType: 'image/png', data: png } }] },
          {
            role: 'model',
            parts: [
              { text: 't', thought: true, thoughtSignature: 'c2ln' },
              { functionCall: { name: 'get', args: { a: 'x' } }, thoughtSignature: 'c2ln' },
            ],
          },
          { role: 'user', parts: [{ functionResponse: { name: 'get', response: { result: 'r1' } } }] },
        ],
        tools: [{ functionDeclarations: [{ name: 'get', parameters: { type: 'OBJECT', properties: {} } }] }],
        generationConfig: {
          maxOutputTokens: 100,
          thinkingConfig: { thinkingBudget: 512, includeThoughts: true },
        },
      },
    },
    {
      path: '/switchyard/v1/stream',
      body: {
        model,
        transcript: [
          { kind: 'user', parts: [{ type: 'text', text: 'hi' }] },
          { kind: 'assistant', parts: [{ type: 'tool-call', id: 'call_1', name: 'get', input: { a: 'x' } }] },
          {
            kind: 'tool',
            parts: [
              { type: 'tool-result', callId: 'call_1', output: { type: 'text', text: 'r1' }, isError: false },
            ],
          },
        ],
        tools: [{ name: 'get', inputSchema: schema }],
      },
    },
    {
      path: '/v1/messages/count_tokens',
      headers: anthropicClient,
      body: {
        model,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ name: 'get', input_schema: schema }],
      },
    },
    { path: '/v1/responses/input_tokens', body: { model, input: 'hi', instructions: 'x' } },
  ];
}

const models = Object.values(upstreams).map(({ alias }) => alias);

it.each(models)('every unchanged request to %s is served', async (model) => {
  for (const seed of requests(model)) {
    harness.emulator.clear();
    harness.emulator.enqueue(scriptedText('Hi.'));
    const response = await harness.post(seed.path, JSON.stringify(seed.body), {
      authorization: 'Bearer k',
      ...seed.headers,
    });
    expect(response.status, `${seed.path}: ${await response.clone().text()}`).toBe(200);
    await response.text();
  }
});

it('a changed request gets a reply or a refusal in its protocol, never an internal fault', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...models),
      fc.nat(6),
      fc.boolean(),
      mutations,
      async (model, route, stream, changes) => {
        const seed = requests(model)[route]!;
        const streamable = ['/v1/chat/completions', '/v1/responses', '/v1/messages'].includes(seed.path);
        const body = mutate(stream && streamable ? { ...seed.body, stream: true } : seed.body, changes);
        // What the changed body asks for (a change may have taken `stream` out).
        const streams = streamable && (body as { stream?: unknown } | null)?.stream === true;
        harness.emulator.clear();
        harness.emulator.enqueue(scriptedCall);
        const response = await harness.post(seed.path, JSON.stringify(body), {
          authorization: 'Bearer k',
          ...seed.headers,
        });
        const text = await response.text();
        const where = `${seed.path} ${response.status}: ${text.slice(0, 300)}`;
        expect(response.status, where).not.toBeGreaterThanOrEqual(500);
        expect(text, where).not.toMatch(internalFault);
        if (response.status === 200 && (streams || seed.path === '/switchyard/v1/stream'))
          expect(endsAsItsProtocolDoes(seed.path, text), where).toBe(true);
      },
    ),
    propertyOptions(300),
  );
}, 600_000);
