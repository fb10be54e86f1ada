import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AdapterError } from '../../core/errors/adapter-error.ts';
import {
  isAuthError,
  isContextOverflowError,
  isInvalidRequestError,
  isNetworkError,
  isRateLimitError,
  isServerError,
} from '../../core/errors/guards.ts';
import { createMemoryLogger } from '../../core/logger.ts';
import {
  type Emulator,
  type EmulatorScript,
  openaiError,
  startEmulator,
} from '../../testing/emulator/index.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { createOpenAICompatible, presets } from '../openai-compatible/index.ts';
import { createProviderError } from '../common/errors.ts';
import { errorRules, parseErrorBody } from './errors.ts';
import { createOpenAI } from './index.ts';
import { collectStream, textOf, userRequest } from './test-support.ts';

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator.close();
});

afterEach(() => {
  vi.unstubAllEnvs();
});

const secret = 'sk-proj-SECRETabcdefghijklmnop1234567890';

function adapter(maxRetries = 0) {
  return createOpenAI({ apiKey: secret, baseURL: `${emulator.url}/v1`, maxRetries, retryBaseDelay: 1 });
}

async function failure(script: EmulatorScript, retries = 0): Promise<AdapterError> {
  emulator.enqueue(script);
  return adapter(retries)
    .complete(userRequest('Hi'))
    .then(
      () => {
        throw new Error('expected a failure');
      },
      (error: AdapterError) => error,
    );
}

describe('parseErrorBody', () => {
  it('reads a "try again in" hint as the retry delay', () => {
    const hint = (text: string) =>
      parseErrorBody(JSON.stringify({ error: { message: text } })).retryAfterSeconds;
    expect(hint('Please try again in 7.66s.')).toBe(7.66);
    expect(hint('Please try again in 250ms.')).toBe(0.25);
    expect(hint('Please try again in 28m48s.')).toBe(1728);
    expect(hint('Please try again in a moment.')).toBeUndefined();
  });

  it('reads OpenAI {error:{message,type,code,param}}, preferring code over type; the string code alone as upstreamCode', () => {
    const body = JSON.stringify({
      error: { message: 'Too long', type: 'invalid_request_error', code: 'context_length_exceeded' },
    });
    expect(parseErrorBody(body)).toEqual({
      code: 'context_length_exceeded',
      upstreamCode: 'context_length_exceeded',
      message: 'Too long',
    });
    const typeOnly = JSON.stringify({ error: { message: 'Bad', type: 'invalid_request_error', code: null } });
    expect(parseErrorBody(typeOnly)).toEqual({ code: 'invalid_request_error', message: 'Bad' });
  });

  it('reads OpenRouter numeric codes as no code (the status carries them)', () => {
    const body = JSON.stringify({ error: { code: 402, message: 'Insufficient credits', metadata: {} } });
    expect(parseErrorBody(body)).toEqual({ message: 'Insufficient credits' });
  });

  it('reads Ollama string errors, bare objects, FastAPI detail and plain text', () => {
    expect(parseErrorBody('{"error":"model \\"x\\" not found"}')).toEqual({ message: 'model "x" not found' });
    expect(parseErrorBody('{"message":"Rate limited","type":"rate_limit_error"}')).toEqual({
      code: 'rate_limit_error',
      message: 'Rate limited',
    });
    expect(parseErrorBody('{"detail":[{"msg":"field required"}]}')).toEqual({
      message: '[{"msg":"field required"}]',
    });
    expect(parseErrorBody('upstream connect error')).toEqual({ message: 'upstream connect error' });
    expect(parseErrorBody('')).toEqual({});
  });
});

describe('an overload told only in words', () => {
  const site = { provider: 'openai', method: 'POST', url: 'https://api.openai.com/v1/chat/completions' };
  const classified = (status: number | undefined, message: string) => {
    const error = createProviderError({
      site,
      status,
      body: { code: 'server_error', message },
      rules: errorRules,
    });
    return { errorClass: error.errorClass, overloaded: error.overloaded };
  };

  it.each([
    'The engine is currently overloaded, please try again later.',
    'That model is currently overloaded with other requests. You can retry your request.',
    'The model is overloaded. Please try again later.',
    'Overloaded',
  ])('%s: an overload (server_error)', (message) => {
    expect(classified(undefined, message)).toEqual({ errorClass: 'server_error', overloaded: true });
  });

  it('a message only holding the word is no overload: a server error in-band, a 429 stays a rate limit', () => {
    const message = 'Internal error while the service was not overloaded';
    expect(classified(undefined, message)).toEqual({ errorClass: 'server_error', overloaded: false });
    expect(classified(429, message)).toEqual({ errorClass: 'rate_limit', overloaded: false });
  });

  it.each([
    'Internal error; the service is not currently overloaded',
    'Upstream failed although the model is not temporarily overloaded',
    "The system isn't overloaded, an internal error occurred",
    'The engine is no longer overloaded; an internal error occurred',
    'Internal error (server overloaded: false)',
    'Internal error {"server overloaded": false}',
  ])('%s: words denying an overload are no overload (before: server_error + overload)', (message) => {
    expect(classified(undefined, message)).toEqual({ errorClass: 'server_error', overloaded: false });
    expect(classified(503, message)).toEqual({ errorClass: 'server_error', overloaded: false });
  });

  it('a 4xx other than 429 is never an overload by its words; a 429 or a 5xx is', () => {
    const declaredTwice = "Invalid 'tools': function name 'search' is overloaded (declared twice)";
    // Before: server_error + overload, a client's own mistake retried and failed over.
    expect(classified(400, declaredTwice)).toEqual({ errorClass: 'invalid_request', overloaded: false });
    expect(classified(404, 'The model is overloaded')).toEqual({
      errorClass: 'invalid_request',
      overloaded: false,
    });
    const busy = 'The engine is currently overloaded, please try again later.';
    expect(classified(429, busy)).toEqual({ errorClass: 'server_error', overloaded: true });
    expect(classified(503, busy)).toEqual({ errorClass: 'server_error', overloaded: true });
  });
});

describe('HTTP errors over the emulator', () => {
  it('classifies invalid_api_key as auth and never leaks the key', async () => {
    const error = await failure(
      openaiError(401, `Incorrect API key provided: ${secret}. You can find your API key at …`, {
        code: 'invalid_api_key',
      }),
    );
    expect(isAuthError(error)).toBe(true);
    expect(error).toMatchObject({ status: 401, providerCode: 'invalid_api_key', retryable: false });
    expect(error.message).not.toContain(secret);
    expect(JSON.stringify(error.toJSON())).not.toContain(secret);
    expect(error.providerMessage).toContain('[REDACTED]');
    expect(error.message).toContain(`POST ${emulator.url}/v1/chat/completions`);
  });

  it('classifies context_length_exceeded (400) as context_overflow', async () => {
    const message =
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.";
    const error = await failure(
      openaiError(400, message, { code: 'context_length_exceeded', param: 'messages' }),
    );
    expect(isContextOverflowError(error)).toBe(true);
  });

  it('classifies an overflow told only in the message (Groq, Mistral) as context_overflow', async () => {
    const groq = await failure(openaiError(400, 'Please reduce the length of the messages or completion.'));
    expect(isContextOverflowError(groq)).toBe(true);
    const mistral = await failure({
      type: 'json',
      status: 400,
      body: {
        object: 'error',
        message: 'Prompt contains 40000 tokens, too large for model with 32768 maximum context length',
        type: 'invalid_request_error',
        code: '3051',
      },
    });
    expect(isContextOverflowError(mistral)).toBe(true);
  });

  it('does not retry insufficient_quota (a rate limit that waiting cannot fix)', async () => {
    const before = emulator.requests.length;
    const error = await failure(
      openaiError(429, 'You exceeded your current quota.', {
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      }),
      2,
    );
    expect(isRateLimitError(error)).toBe(true);
    expect(error.retryable).toBe(false);
    expect(emulator.requests.length - before).toBe(1);
  });

  it('does not retry a 402 out-of-balance (DeepSeek, OpenRouter)', async () => {
    const before = emulator.requests.length;
    const error = await failure(
      { type: 'json', status: 402, body: { error: { code: 402, message: 'Insufficient credits' } } },
      2,
    );
    expect(isRateLimitError(error)).toBe(true);
    expect(error.retryable).toBe(false);
    expect(emulator.requests.length - before).toBe(1);
  });

  it('classifies a Groq 413 tokens-per-minute limit as a rate limit, not retried without a hint', async () => {
    const before = emulator.requests.length;
    const message =
      'Request too large for model `llama-3.3-70b-versatile` in organization `org_x` service tier `on_demand` on tokens per minute (TPM): Limit 6000, Requested 14810, please reduce your message size and try again.';
    const error = await failure(
      openaiError(413, message, { type: 'tokens', code: 'rate_limit_exceeded' }),
      2,
    );
    expect(isRateLimitError(error)).toBe(true);
    expect(isContextOverflowError(error)).toBe(false);
    expect(error.retryable).toBe(false);
    expect(emulator.requests.length - before).toBe(1);
  });

  it('keeps a tokens-per-minute limit retryable when the body says when to try again', async () => {
    const message =
      'Rate limit reached for model `llama-3.3-70b-versatile` on tokens per minute (TPM): Limit 6000, Used 5000, Requested 2000. Please try again in 1m7.5s.';
    const error = await failure(openaiError(429, message, { type: 'tokens', code: 'rate_limit_exceeded' }));
    expect(isRateLimitError(error)).toBe(true);
    expect(error.retryable).toBe(true);
    expect(error.retryAfterSeconds).toBe(67.5);
  });

  it('retries rate_limit_exceeded and reports the x-ratelimit-reset hint', async () => {
    emulator.enqueue(
      openaiError(429, 'Rate limit reached for requests', {
        type: 'requests',
        code: 'rate_limit_exceeded',
        headers: { 'x-ratelimit-reset-requests': '20ms' },
      }),
    );
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
    const retries: number[] = [];
    const response = await adapter(1).complete(userRequest('Hi'), {
      onRetry: (info) => retries.push(info.delayMs),
    });
    expect(textOf(response)).toBe('ok');
    expect(retries).toEqual([20]);
  });

  it('classifies 403 as auth, 404 as invalid request, 500 and 503 as retryable server errors', async () => {
    expect(isAuthError(await failure(openaiError(403, 'Project does not have access')))).toBe(true);
    expect(
      isInvalidRequestError(
        await failure(openaiError(404, 'The model `gpt-9` does not exist', { code: 'model_not_found' })),
      ),
    ).toBe(true);
    const server = await failure(openaiError(500, 'The server had an error'));
    expect(isServerError(server)).toBe(true);
    expect(server.retryable).toBe(true);
    expect(isServerError(await failure(openaiError(503, 'Overloaded')))).toBe(true);
  });

  it('classifies an error object inside a 200 body by its code', async () => {
    const inBody = await failure({
      type: 'json',
      body: { error: { message: 'Rate limit', type: 'rate_limit_error', code: null } },
    });
    expect(isRateLimitError(inBody)).toBe(true);
    expect(inBody.status).toBeUndefined();
    const openrouter = await failure({
      type: 'json',
      body: { error: { code: 502, message: 'Provider returned error' } },
    });
    expect(isServerError(openrouter)).toBe(true);
    expect(openrouter.status).toBe(502);
  });

  it('fails a 200 body without choices as a retryable invalid_response', async () => {
    const error = await failure({ type: 'json', body: { id: 'x', object: 'chat.completion' } });
    expect(isServerError(error)).toBe(true);
    expect(error).toMatchObject({ providerCode: 'invalid_response', retryable: true });
  });

  it('fails a body that is not JSON as a retryable invalid_response', async () => {
    const error = await failure({ type: 'json', body: '<html>Bad gateway</html>' });
    expect(error).toMatchObject({ errorClass: 'server_error', providerCode: 'invalid_response' });
  });
});

describe('stream errors over the emulator', () => {
  const streamed = (text: string) => ({
    type: 'scripted' as const,
    content: [{ type: 'text' as const, text }],
    chunkSize: 4,
  });

  it('turns an SSE `data: {"error": …}` event into finish error, then the classified error', async () => {
    emulator.enqueue({
      type: 'sse',
      events: [
        { data: { id: 'c1', model: 'gpt-4.1', choices: [{ index: 0, delta: { content: 'Hel' } }] } },
        { data: { error: { message: 'The server had an error', type: 'server_error', code: null } } },
      ],
    });
    const { events, response, error } = await collectStream(adapter().stream(userRequest('Hi')));
    assertStreamInvariants(events);
    expect(isServerError(error)).toBe(true);
    expect(response?.finishReason).toBe('error');
    expect(textOf(response)).toBe('Hel');
  });

  it('maps malformed JSON in the stream to ServerError invalid_stream', async () => {
    emulator.enqueue({ ...streamed('Hello there'), fault: { malformedAtEvent: 3 } });
    const { events, error } = await collectStream(adapter().stream(userRequest('Hi')));
    assertStreamInvariants(events);
    expect(error).toMatchObject({ errorClass: 'server_error', providerCode: 'invalid_stream' });
  });

  it('fails a stream that ends cleanly before any finish reason with stream_truncated', async () => {
    emulator.enqueue({
      type: 'sse',
      events: [{ data: { id: 'c', model: 'm', choices: [{ index: 0, delta: { content: 'cut' } }] } }],
    });
    const { response, error } = await collectStream(adapter().stream(userRequest('Hi')));
    expect(isNetworkError(error)).toBe(true);
    expect(error).toMatchObject({ providerCode: 'stream_truncated', retryable: true });
    expect(textOf(response)).toBe('cut');
  });

  it('completes a stream that has a finish reason but no [DONE]', async () => {
    emulator.enqueue({
      type: 'sse',
      events: [
        {
          data: {
            id: 'c',
            model: 'm',
            choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: 'stop' }],
          },
        },
      ],
    });
    const { response, error } = await collectStream(adapter().stream(userRequest('Hi')));
    expect(error).toBeUndefined();
    expect(response?.finishReason).toBe('completed');
  });

  it('retries a stream cut before its first event, and not after', async () => {
    emulator.enqueue({ ...streamed('Hello'), fault: { disconnectAfterEvents: 0 } });
    emulator.enqueue(streamed('Hello'));
    const first = await collectStream(adapter(1).stream(userRequest('Hi')));
    expect(first.error).toBeUndefined();
    expect(textOf(first.response)).toBe('Hello');
    emulator.enqueue({ ...streamed('Hello world'), fault: { disconnectAfterEvents: 2 } });
    const second = await collectStream(adapter(1).stream(userRequest('Hi')));
    expect(isNetworkError(second.error)).toBe(true);
    expect(second.response?.finishReason).toBe('error');
  });
});

describe('API keys', () => {
  it('reads OPENAI_API_KEY when no key is passed', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-environment');
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
    await createOpenAI({ baseURL: `${emulator.url}/v1` }).complete(userRequest('Hi'));
    expect(emulator.requests.at(-1)?.headers.authorization).toBe('Bearer sk-from-environment');
  });

  it('creation never throws without a key; a call fails before HTTP with not_configured naming the variable', async () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    vi.stubEnv('GROQ_API_KEY', '');
    const before = emulator.requests.length;
    const openai = createOpenAI({ baseURL: `${emulator.url}/v1` });
    await expect(openai.complete(userRequest('Hi'))).rejects.toMatchObject({
      errorClass: 'auth',
      providerCode: 'not_configured',
      message: expect.stringContaining('OPENAI_API_KEY'),
    });
    const groq = createOpenAICompatible(presets.groq, { baseURL: `${emulator.url}/v1` });
    await expect(groq.complete(userRequest('Hi'))).rejects.toThrow(/GROQ_API_KEY/);
    expect(emulator.requests).toHaveLength(before);
  });

  it('sends OpenAI-Organization and OpenAI-Project headers', async () => {
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
    const openai = createOpenAI({
      apiKey: 'k',
      baseURL: `${emulator.url}/v1`,
      organization: 'org-1',
      project: 'proj-1',
    });
    await openai.complete(userRequest('Hi'));
    expect(emulator.requests.at(-1)?.headers).toMatchObject({
      'openai-organization': 'org-1',
      'openai-project': 'proj-1',
      authorization: 'Bearer k',
    });
  });

  it('keeps the key out of lossy-projection warnings', async () => {
    const logger = createMemoryLogger();
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
    const openai = createOpenAI({ apiKey: secret, baseURL: `${emulator.url}/v1`, logger });
    await openai.complete({
      ...userRequest('Hi'),
      transcript: [
        {
          kind: 'assistant',
          parts: [
            { type: 'reasoning', text: 'x', provider: 'anthropic' },
            { type: 'text', text: 'y' },
          ],
        },
        { kind: 'user', parts: [{ type: 'text', text: 'z' }] },
      ],
    });
    expect(logger.entries).toHaveLength(1);
    expect(JSON.stringify(logger.entries)).not.toContain(secret);
  });
});
