/** Error bodies and classification, over the emulator: statuses, retries, retry-after, keys never leaked. */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RetryInfo } from '../../core/adapter.ts';
import {
  isAuthError,
  isContextOverflowError,
  isInvalidRequestError,
  isNetworkError,
  isRateLimitError,
  isServerError,
} from '../../core/errors/guards.ts';
import { anthropicError, type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { parseErrorBody } from './errors.ts';
import { createAnthropic } from './index.ts';
import { collect, createTestAdapter, fixture, textRequest } from './test-support.ts';

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator.close();
});

afterEach(() => {
  emulator.requests.length = 0;
  vi.unstubAllEnvs();
});

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('parseErrorBody', () => {
  it('reads the type and message of an Anthropic error body', () => {
    const body =
      '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}';
    expect(parseErrorBody(body)).toEqual({ code: 'overloaded_error', message: 'Overloaded' });
  });

  it('keeps a trimmed message for bodies that are not JSON, and nothing for empty ones', () => {
    expect(parseErrorBody('<html><body>502 Bad Gateway</body></html>\n')).toEqual({
      message: '<html><body>502 Bad Gateway</body></html>',
    });
    expect(parseErrorBody('  ')).toEqual({});
    expect(parseErrorBody('{"unexpected":true}')).toEqual({ message: '{"unexpected":true}' });
    expect(parseErrorBody('x'.repeat(2000)).message).toHaveLength(500);
  });
});

describe('classification over the emulator', () => {
  const cases: Array<[string, number, string, string, (error: unknown) => boolean, boolean]> = [
    [
      'prompt too long',
      400,
      'invalid_request_error',
      'prompt is too long: 208310 tokens > 200000 maximum',
      isContextOverflowError,
      false,
    ],
    [
      'input plus max_tokens over the context limit',
      400,
      'invalid_request_error',
      'input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again',
      isContextOverflowError,
      false,
    ],
    [
      'a bad parameter',
      400,
      'invalid_request_error',
      'temperature: range: 0..1',
      isInvalidRequestError,
      false,
    ],
    ['an invalid key', 401, 'authentication_error', 'invalid x-api-key', isAuthError, false],
    [
      'a forbidden model',
      403,
      'permission_error',
      'Your API key does not have permission to use the specified resource.',
      isAuthError,
      false,
    ],
    ['an unknown model', 404, 'not_found_error', 'model: claude-nope', isInvalidRequestError, false],
    [
      'a tool input nested too deeply (not a context overflow)',
      400,
      'invalid_request_error',
      'messages.1.content.0.tool_use.input: Input exceeds the maximum nesting depth',
      isInvalidRequestError,
      false,
    ],
    [
      'a request too large',
      413,
      'request_too_large',
      'Request exceeds the maximum allowed number of bytes.',
      isContextOverflowError,
      false,
    ],
    [
      'an exhausted credit balance',
      400,
      'billing_error',
      'Your credit balance is too low to access the Anthropic API.',
      isRateLimitError,
      false,
    ],
    ['an internal error', 500, 'api_error', 'Internal server error', isServerError, true],
    ['an overload', 529, 'overloaded_error', 'Overloaded', isServerError, true],
  ];

  it.each(cases)('%s (%i %s)', async (_name, status, type, message, guard, retryable) => {
    emulator.enqueue(anthropicError(status, type, message));
    const error = await failure(createTestAdapter(emulator).complete(textRequest('hi')));
    expect(guard(error)).toBe(true);
    expect(error).toMatchObject({
      status,
      providerCode: type,
      providerMessage: message,
      retryable,
      provider: 'anthropic',
    });
    expect(emulator.requests).toHaveLength(1);
  });

  it('retries a 529 overload and then succeeds', async () => {
    emulator.enqueue(anthropicError(529, 'overloaded_error', 'Overloaded'));
    emulator.enqueue({ type: 'replay', file: fixture('anthropic-text.json') });
    const retries: RetryInfo[] = [];
    const adapter = createTestAdapter(emulator, { maxRetries: 2 });
    const response = await adapter.complete(textRequest('hi'), { onRetry: (info) => retries.push(info) });
    expect(response.finishReason).toBe('completed');
    expect(retries).toHaveLength(1);
    expect(isServerError(retries[0]?.error)).toBe(true);
    expect(emulator.requests).toHaveLength(2);
  });

  it('honours retry-after on a 429 before retrying', async () => {
    emulator.enqueue(
      anthropicError(
        429,
        'rate_limit_error',
        'Number of request tokens has exceeded your per-minute rate limit',
        { 'retry-after': '0.2' },
      ),
    );
    emulator.enqueue({ type: 'replay', file: fixture('anthropic-text.json') });
    const retries: RetryInfo[] = [];
    const adapter = createTestAdapter(emulator, { maxRetries: 1, retryBaseDelay: 1 });
    const started = performance.now();
    await adapter.complete(textRequest('hi'), { onRetry: (info) => retries.push(info) });
    expect(retries[0]?.delayMs).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(retries[0]?.error).toMatchObject({ retryAfterSeconds: 0.2 });
  });

  it('gives up on a server error after maxRetries, with the retryable flag set', async () => {
    emulator.enqueue(anthropicError(500, 'api_error', 'Internal server error'));
    emulator.enqueue(anthropicError(500, 'api_error', 'Internal server error'));
    const error = await failure(createTestAdapter(emulator, { maxRetries: 1 }).complete(textRequest('hi')));
    expect(isServerError(error)).toBe(true);
    expect(emulator.requests).toHaveLength(2);
  });

  it('classifies a proxy HTML page by its status', async () => {
    emulator.enqueue({
      type: 'json',
      status: 502,
      body: '<html>Bad Gateway</html>',
      headers: { 'content-type': 'text/html' },
    });
    const error = await failure(createTestAdapter(emulator).complete(textRequest('hi')));
    expect(isServerError(error)).toBe(true);
    expect((error as Error).message).toContain('<html>Bad Gateway</html>');
  });

  it('classifies an error object inside a 200 body', async () => {
    emulator.enqueue({
      type: 'json',
      body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    });
    const error = await failure(createTestAdapter(emulator).complete(textRequest('hi')));
    expect(isServerError(error)).toBe(true);
  });
});

describe('API keys', () => {
  const key = 'sk-ant-api03_SECRET_secret_SECRET_0123456789';

  it('never puts the key in an auth failure’s message or JSON, even when the body echoes it', async () => {
    emulator.enqueue(anthropicError(401, 'authentication_error', `invalid x-api-key: ${key}`));
    const adapter = createTestAdapter(emulator, { apiKey: key });
    const error = await failure(
      adapter.complete(
        textRequest('hi', {
          transcript: [
            { kind: 'user', parts: [{ type: 'text', text: 'hi' }] },
            { kind: 'assistant', parts: [{ type: 'reasoning', text: 'unsigned' }] },
          ],
        }),
      ),
    );
    expect(adapter.logger.entries).toHaveLength(1);
    expect(JSON.stringify(adapter.logger.entries)).not.toContain(key);
    expect(isAuthError(error)).toBe(true);
    expect(emulator.requests[0]?.headers['x-api-key']).toBe(key);
    expect((error as Error).message).not.toContain(key);
    expect(JSON.stringify(error)).not.toContain(key);
    expect((error as Error).message).toContain('invalid x-api-key: [REDACTED]');
  });

  it('fails with an AuthError naming ANTHROPIC_API_KEY before any HTTP call when no key is set', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', '');
    const adapter = createAnthropic({ baseURL: `${emulator.url}/v1`, maxRetries: 0 });
    const error = await failure(adapter.complete(textRequest('hi')));
    expect(isAuthError(error)).toBe(true);
    expect((error as Error).message).toContain('ANTHROPIC_API_KEY');
    const streamed = await collect(adapter.stream(textRequest('hi')));
    expect(isAuthError(streamed.error)).toBe(true);
    expect(streamed.response?.finishReason).toBe('error');
    expect(emulator.requests).toHaveLength(0);
  });

  it('reads the key from ANTHROPIC_API_KEY and sends the version and beta headers', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', 'env-key-123');
    emulator.enqueue({ type: 'replay', file: fixture('anthropic-text.json') });
    const adapter = createAnthropic({
      baseURL: `${emulator.url}/v1`,
      betas: ['context-1m-2025-08-07', 'interleaved-thinking-2025-05-14'],
    });
    await adapter.complete(textRequest('hi'));
    expect(emulator.requests[0]).toMatchObject({
      path: '/v1/messages',
      headers: {
        'x-api-key': 'env-key-123',
        'anthropic-version': '2023-06-01',
        'anthropic-beta': 'context-1m-2025-08-07,interleaved-thinking-2025-05-14',
      },
    });
  });
});

describe('stream failures over the emulator', () => {
  const events = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: 'msg_1',
          model: 'claude-sonnet-4-5',
          content: [],
          usage: { input_tokens: 9, output_tokens: 1 },
        },
      },
    },
    {
      event: 'content_block_start',
      data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    },
    {
      event: 'content_block_delta',
      data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Partial answ' } },
    },
  ];

  it('an overloaded_error event ends the stream with finish error, the partial text, then a ServerError', async () => {
    emulator.enqueue({
      type: 'sse',
      events: [
        ...events,
        {
          event: 'error',
          data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
        },
      ],
    });
    const result = await collect(createTestAdapter(emulator, { maxRetries: 2 }).stream(textRequest('hi')));
    assertStreamInvariants(result.events);
    expect(isServerError(result.error)).toBe(true);
    expect(result.response?.finishReason).toBe('error');
    expect(result.response?.content).toEqual([{ type: 'text', text: 'Partial answ', incomplete: true }]);
    expect(emulator.requests).toHaveLength(1);
  });

  it('malformed JSON in the stream is a ServerError invalid_stream, keeping what arrived', async () => {
    emulator.enqueue({
      type: 'replay',
      file: fixture('anthropic-text.chunks.txt'),
      fault: { malformedAtEvent: 6 },
    });
    const result = await collect(createTestAdapter(emulator).stream(textRequest('hi')));
    assertStreamInvariants(result.events);
    expect(result.error).toMatchObject({ name: 'ServerError', providerCode: 'invalid_stream' });
    expect(result.response?.content).toEqual([{ type: 'text', text: 'Hello! I', incomplete: true }]);
  });

  it('a connection cut mid-stream is a NetworkError with the partial content kept', async () => {
    emulator.enqueue({
      type: 'replay',
      file: fixture('anthropic-text.chunks.txt'),
      fault: { disconnectAfterEvents: 5 },
    });
    const result = await collect(createTestAdapter(emulator).stream(textRequest('hi')));
    assertStreamInvariants(result.events);
    expect(isNetworkError(result.error)).toBe(true);
    expect(result.error).toMatchObject({ providerCode: 'stream_truncated', retryable: true });
    expect(result.response?.finishReason).toBe('error');
    expect(result.response?.content).toEqual([{ type: 'text', text: 'Hello! I', incomplete: true }]);
  });

  it('a body that ends cleanly before message_stop is stream_truncated', async () => {
    emulator.enqueue({ type: 'sse', events });
    const result = await collect(createTestAdapter(emulator).stream(textRequest('hi')));
    expect(result.error).toMatchObject({ name: 'NetworkError', providerCode: 'stream_truncated' });
    expect(result.response?.content).toEqual([{ type: 'text', text: 'Partial answ', incomplete: true }]);
  });
});
