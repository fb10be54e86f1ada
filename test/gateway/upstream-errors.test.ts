/**
 * An upstream's refusal reaches the client with the status that says the most: its own 404, 409
 * or 422 (a model the upstream does not know was a 400 before), else 400; and a 402 (out of
 * credit) is a 429 `insufficient_quota` with `x-should-retry: false`, as OpenAI says it — before,
 * its body read `rate_limit_exceeded`, which invites another try. An OpenAI upstream's own `code`
 * (`invalid_value`, `invalid_prompt`) reaches Chat Completions and Responses clients (before, null).
 */
import OpenAI from 'openai';
import { googleError, openaiError } from 'switchyard-ai/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => harness.emulator.clear());
afterAll(() => harness.close());

const post = (path: string, body: string) =>
  fetch(`${harness.server.url}${path}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
  });
/** A key of Google's shape, joined at run time: the source holds nothing shaped like a real key. */
const googleShapedKey = ['AIza', 'SyAbCdEfGhIjKlMnOpQrStUvWxYz0123456'].join('');
const chatBody = () => JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }] });

describe('upstream refusals', () => {
  it.each([
    [404, 'The model `gpt-9` does not exist', 'model_not_found', 404],
    [409, 'conflict', null, 409],
    [422, 'unprocessable', null, 422],
    [418, 'odd', null, 400],
  ])(
    'an upstream %i refusing the request (%s, code %s) reaches the client as %i (its own status where it says more than 400)',
    async (upstream, message, code, client) => {
      harness.emulator.enqueue(openaiError(upstream, message, { code }));
      const response = await post('/v1/chat/completions', chatBody());
      expect(response.status).toBe(client);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain(message);
    },
  );

  it('an upstream 402 (out of credit) is a 429 insufficient_quota the SDKs will not send again', async () => {
    harness.emulator.enqueue(openaiError(402, 'Insufficient balance'));
    const response = await post('/v1/chat/completions', chatBody());
    expect(response.status).toBe(429);
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect(((await response.json()) as { error: unknown }).error).toMatchObject({
      type: 'insufficient_quota',
      code: 'insufficient_quota',
    });
  });

  it('a 429 the upstream says not to retry, but not for credit, stays a rate limit', async () => {
    harness.emulator.enqueue(openaiError(429, 'Slow down', { headers: { 'x-should-retry': 'false' } }));
    const response = await post('/v1/chat/completions', chatBody());
    expect(response.status).toBe(429);
    expect(((await response.json()) as { error: unknown }).error).toMatchObject({
      code: 'rate_limit_exceeded',
    });
  });
});

describe('an OpenAI upstream’s own error code', () => {
  const refusals = [
    ["Invalid value for 'temperature': must be between 0 and 2.", 'invalid_value', 'temperature'],
    [
      "Unsupported parameter: 'max_tokens' is not supported with this model.",
      'unsupported_parameter',
      'max_tokens',
    ],
    [
      'Invalid prompt: your prompt was flagged as potentially violating our usage policy.',
      'invalid_prompt',
      null,
    ],
  ] as const;
  /** What the OpenAI SDK reports of a refused call: status, type, code and param. */
  const refusal = async (call: Promise<unknown>) => {
    const error = await call.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const { status, type, code, param } = error as InstanceType<typeof OpenAI.APIError>;
    return { status, type, code, param };
  };

  it.each(refusals)(
    'reaches a Chat Completions client through the OpenAI SDK (%s: code %s); its param (%s) does not',
    async (message, code, param) => {
      harness.emulator.enqueue(openaiError(400, message, { type: 'invalid_request_error', code, param }));
      const { openai } = createClients(harness.server.url);
      const call = openai.chat.completions.create({
        model: 'up-chat',
        messages: [{ role: 'user', content: 'Hi' }],
      });
      expect(await refusal(call)).toEqual({ status: 400, type: 'invalid_request_error', code, param: null });
    },
  );

  it.each([
    ['a Responses upstream', 'up-responses'],
    ['a Chat Completions upstream', 'up-chat'],
  ])('from %s, reaches a Responses client too', async (_, model) => {
    harness.emulator.enqueue(
      openaiError(400, "Invalid value for 'temperature'.", { code: 'invalid_value', param: 'temperature' }),
    );
    const { openai } = createClients(harness.server.url);
    const call = openai.responses.create({ model, input: 'Hi' });
    expect(await refusal(call)).toMatchObject({ status: 400, code: 'invalid_value' });
  });

  it('an upstream error without a code (only its type) leaves the class’s: null', async () => {
    harness.emulator.enqueue(openaiError(400, 'Bad request.', { type: 'invalid_request_error' }));
    const { openai } = createClients(harness.server.url);
    const call = openai.chat.completions.create({
      model: 'up-chat',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(await refusal(call)).toMatchObject({ status: 400, code: null });
  });

  it.each([
    [
      'vLLM’s bare error (type BadRequestError, a numeric code)',
      {
        object: 'error',
        message: 'max_tokens must be at least 1, got -1.',
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
    ],
    [
      'a host’s own type beside code null',
      { error: { message: 'Invalid model', type: 'invalid_model_error', code: null } },
    ],
  ])('a compatible host’s error with no string code leaves the class’s too: %s', async (_, body) => {
    harness.emulator.enqueue({ type: 'json', status: 400, body });
    const { openai } = createClients(harness.server.url);
    const call = openai.chat.completions.create({
      model: 'up-chat',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(await refusal(call)).toMatchObject({ status: 400, type: 'invalid_request_error', code: null });
  });

  it('another protocol’s code is not passed as OpenAI’s (a Gemini ErrorInfo reason)', async () => {
    harness.emulator.enqueue(
      googleError(400, 'Bad value.', 'INVALID_ARGUMENT', [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'BAD_VALUE' },
      ]),
    );
    const { openai } = createClients(harness.server.url);
    const call = openai.chat.completions.create({
      model: 'up-gemini',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(await refusal(call)).toMatchObject({ status: 400, code: null });
  });
});

describe('an upstream 3xx with nothing to follow', () => {
  it.each([304, 300, 399])(
    'an upstream %i without a location is a 502 the model’s fallback then serves, never the gateway’s own 500',
    async (status) => {
      harness.emulator.enqueue({ type: 'json', status, body: { error: { message: 'moved?' } } });
      const direct = await post(
        '/v1/chat/completions',
        JSON.stringify({ model: 'up-anthropic', messages: [{ role: 'user', content: 'Hi' }] }),
      );
      expect(direct.status).toBe(502);
      expect(await direct.text()).toContain(`${status}`);
      harness.emulator.enqueue({ type: 'json', status, body: { error: { message: 'moved?' } } });
      harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'From the fallback.' }] });
      const routed = await post(
        '/v1/chat/completions',
        JSON.stringify({ model: 'up-fallback', messages: [{ role: 'user', content: 'Hi' }] }),
      );
      expect(routed.status).toBe(200);
      expect(await routed.text()).toContain('From the fallback.');
    },
  );
});

describe('a model failure’s own words', () => {
  it.each([
    ['the configured upstream key', 'upstream-secret-key'],
    ['a Google-shaped key', googleShapedKey],
  ])('a Gemini finishMessage echoing %s reaches the client redacted', async (_, key) => {
    const finish = {
      candidates: [
        {
          content: { role: 'model', parts: [] },
          finishReason: 'MALFORMED_FUNCTION_CALL',
          finishMessage: `Malformed function call: key=${key} print(x)`,
        },
      ],
      usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 0, totalTokenCount: 5 },
    };
    harness.emulator.enqueue({ type: 'json', body: finish });
    const response = await post(
      '/v1/chat/completions',
      JSON.stringify({ model: 'up-gemini', messages: [{ role: 'user', content: 'Hi' }] }),
    );
    const text = await response.text();
    expect(response.status).toBe(502);
    expect(text).toContain('MALFORMED_FUNCTION_CALL');
    expect(text).toContain('[REDACTED]');
    expect(text).not.toContain(key);
    expect(JSON.stringify(harness.logger.entries)).not.toContain(key);
  });
});

describe('a Gemini finishMessage on a reply that is served', () => {
  it.each(['STOP', 'SAFETY'])(
    'echoing the upstream key (finish %s), it reaches a native stream client redacted in the finish metadata',
    async (reason) => {
      const key = googleShapedKey;
      harness.emulator.enqueue({
        type: 'json',
        body: {
          candidates: [
            {
              content: { role: 'model', parts: [{ text: 'ok' }] },
              finishReason: reason,
              finishMessage: `Stopped: key=${key} upstream-secret-key`,
            },
          ],
          usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 1, totalTokenCount: 6 },
        },
      });
      const response = await post(
        '/switchyard/v1/stream',
        JSON.stringify({
          model: 'up-gemini',
          transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
        }),
      );
      const text = await response.text();
      expect(text).toContain('gemini.finishMessage');
      expect(text).toContain('Stopped: key=[REDACTED]');
      expect(text).not.toContain(key);
      expect(text).not.toContain('upstream-secret-key');
    },
  );
});
