/** The gateway's limits and refusals, each in the client protocol's error shape. */
import { describe, expect, it } from 'vitest';
import { openaiError } from 'switchyard-ai/testing';
import { chatBody, hello, useServerHarness } from './server-harness.ts';

const { harness, post } = useServerHarness();

describe('limits and refusals', () => {
  it.each([
    ['/v1/chat/completions', (body: Record<string, unknown>) => (body.error as { message: string }).message],
    [
      '/v1/messages',
      (body: Record<string, unknown>) => (body as { type: string; error: { message: string } }).error.message,
    ],
    [
      '/v1beta/models/up-chat:generateContent',
      (body: Record<string, unknown>) => (body.error as { status: string; message: string }).message,
    ],
  ])('malformed JSON to %s is a 400 in that protocol’s shape', async (path, messageOf) => {
    const response = await post(path, '{"model": ');
    expect(response.status).toBe(400);
    expect(messageOf((await response.json()) as Record<string, unknown>)).toMatch(/not valid JSON/);
  });

  it.each([
    [
      '/v1/chat/completions',
      { model: 'up-chat', messages: [{ role: 'tool', tool_call_id: 'call_x', content: 'ok' }] },
      'messages.0.tool_call_id',
    ],
    [
      '/v1/chat/completions',
      {
        model: 'up-chat',
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f' } }] },
          { role: 'user', content: 'and?' },
        ],
      },
      'messages.1.tool_calls.0.id',
    ],
    [
      '/v1/responses',
      { model: 'up-responses', input: [{ type: 'function_call_output', call_id: 'call_x', output: 'ok' }] },
      'input.0.call_id',
    ],
    [
      '/v1/messages',
      {
        model: 'up-chat',
        max_tokens: 5,
        messages: [
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'ok' }] },
        ],
      },
      'messages.0.content.0.tool_use_id',
    ],
    [
      '/v1beta/models/up-gemini:generateContent',
      { contents: [{ role: 'user', parts: [{ functionResponse: { name: 'nope', response: {} } }] }] },
      'contents.0.parts.0.functionResponse',
    ],
  ])(
    '%s: a tool result answering no call, or a call never answered, is a 400 naming the client’s field',
    async (path, body, field) => {
      const upstreamBefore = harness.emulator.requests.length;
      const response = await post(path, JSON.stringify(body));
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(text).toContain(field);
      expect(text).not.toContain('transcript');
      expect(harness.emulator.requests.length).toBe(upstreamBefore);
    },
  );

  it.each([
    ['GET', '/v1/chat/completions', 'POST', (body: { error: { type: string } }) => body.error.type],
    ['DELETE', '/v1/messages', 'POST', (body: { error: { type: string } }) => body.error.type],
    [
      'GET',
      '/v1beta/models/up-gemini:generateContent',
      'POST',
      (body: { error: { status: string } }) => body.error.status,
    ],
    ['POST', '/healthz', 'GET', (body: { error: { type: string } }) => body.error.type],
    ['PUT', '/v1/models', 'GET', (body: { error: { type: string } }) => body.error.type],
    // A model path's `allow` names only what is served there: GET for a model, POST for a Gemini method.
    [
      'PUT',
      '/v1beta/models/up-gemini:generateContent',
      'POST',
      (body: { error: { status: string } }) => body.error.status,
    ],
    ['PUT', '/v1/models/up-chat', 'GET', (body: { error: { type: string } }) => body.error.type],
  ] as const)(
    '%s %s: 405 with allow: %s, in the path’s protocol shape',
    async (method, path, allow, kindOf) => {
      const response = await fetch(`${harness.server.url}${path}`, {
        method,
        headers: { authorization: 'Bearer ops-key-2', 'x-goog-api-key': 'ops-key-2' },
      });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe(allow);
      expect(kindOf((await response.json()) as never)).toBe(
        path.startsWith('/v1beta') ? 'INVALID_ARGUMENT' : 'invalid_request_error',
      );
    },
  );

  it('a wrong method on a keyed path without a key is a 401; HEAD takes a GET route', async () => {
    const keyless = await fetch(`${harness.server.url}/v1/chat/completions`);
    expect(keyless.status).toBe(401);
    const head = await fetch(`${harness.server.url}/healthz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('a body above the limit is a 413', async () => {
    const response = await post('/v1/chat/completions', chatBody({ padding: 'x'.repeat(5000) }));
    expect(response.status).toBe(413);
  });

  it('a chunked body (no declared length) is counted as it arrives: 413 above the limit, served below it', async () => {
    const chunked = (text: string) =>
      fetch(`${harness.server.url}/v1/chat/completions`, {
        method: 'POST',
        body: new ReadableStream({
          start(controller) {
            for (let at = 0; at < text.length; at += 1000)
              controller.enqueue(new TextEncoder().encode(text.slice(at, at + 1000)));
            controller.close();
          },
        }),
        duplex: 'half',
        headers: { 'content-type': 'application/json', authorization: 'Bearer ops-key-2' },
      } as RequestInit);
    expect((await chunked(chatBody({ padding: 'x'.repeat(5000) }))).status).toBe(413);
    harness.emulator.enqueue(hello());
    expect((await chunked(chatBody())).status).toBe(200);
  });

  it.each([
    ['n', { n: 2 }],
    ['logprobs', { logprobs: true }],
    ['modalities', { modalities: ['text', 'audio'] }],
    ['audio', { audio: { voice: 'alloy', format: 'wav' } }],
  ])('%s that cannot be honoured is a 400 naming the field', async (field, extra) => {
    const response = await post('/v1/chat/completions', chatBody(extra));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; param: string } };
    expect(body.error.param).toBe(field);
    expect(body.error.message).toContain(field);
  });

  it.each([
    ['background', { background: true }],
    ['conversation', { conversation: 'conv_1' }],
    ['prompt', { prompt: { id: 'pmpt_1' } }],
  ])('Responses %s that cannot be honoured is a 400 naming the field', async (field, extra) => {
    const before = harness.emulator.requests.length;
    const response = await post('/v1/responses', JSON.stringify({ model: 'up-chat', input: 'Hi', ...extra }));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; param: string } };
    expect(body.error.param).toBe(field);
    expect(body.error.message).toContain(field);
    expect(harness.emulator.requests).toHaveLength(before);
  });

  it('fields a newer SDK adds are ignored, never a 400', async () => {
    harness.emulator.enqueue(hello());
    const response = await post(
      '/v1/chat/completions',
      chatBody({ future_option: { anything: true }, n: 1 }),
    );
    expect(response.status).toBe(200);
  });

  it('an upstream error reaches the client with its reason but without the upstream’s URL or address', async () => {
    harness.emulator.enqueue(openaiError(400, 'the upstream disliked this'));
    const response = await post('/v1/chat/completions', chatBody());
    expect(response.status).toBe(400);
    const { message } = ((await response.json()) as { error: { message: string } }).error;
    expect(message).toContain('the upstream disliked this');
    expect(message).toContain('the upstream request failed with 400');
    const upstream = new URL(harness.emulator.url);
    expect(message).not.toContain(upstream.host);
    expect(message).not.toMatch(/https?:\/\//);
  });

  it('an unknown model is a 404 in the client’s shape', async () => {
    const response = await post('/v1/chat/completions', chatBody({ model: 'no-such-model' }));
    expect(response.status).toBe(404);
  });

  it('an unknown model a key limited by a glob may ask for is a 404 without the registry’s “did you mean” (another tenant’s name)', async () => {
    const ask = async (key: string) => {
      const response = await post('/v1/chat/completions', chatBody({ model: 'up-cnthropic' }), {
        authorization: `Bearer ${key}`,
      });
      expect(response.status).toBe(404);
      return ((await response.json()) as { error: { message: string } }).error.message;
    };
    // A key that may use every model is told the closest name: here one outside `up-c*`.
    expect(await ask('ops-key-2')).toMatch(/did you mean "up-anthropic"/);
    const limited = await ask('glob-key');
    expect(limited).toMatch(/unknown model "up-cnthropic"/);
    expect(limited).not.toMatch(/did you mean|up-anthropic/);
  });
});
