import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ErrorClass } from '../../core/errors/error-class.ts';
import { isAuthError } from '../../core/errors/guards.ts';
import { type Emulator, googleError, startEmulator } from '../../testing/emulator/index.ts';
import { parseErrorBody } from './errors.ts';
import { createGemini } from './index.ts';
import { emulatedGemini, simpleRequest, testApiKey } from './test-support.ts';

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

const apiKeyInvalid = googleError(
  400,
  'API key not valid. Please pass a valid API key.',
  'INVALID_ARGUMENT',
  [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'API_KEY_INVALID',
      domain: 'googleapis.com',
      metadata: { service: 'generativelanguage.googleapis.com' },
    },
  ],
);

async function failureOf(script: Parameters<Emulator['enqueue']>[0]): Promise<Record<string, unknown>> {
  emulator.enqueue(script);
  const { adapter } = emulatedGemini(emulator);
  return adapter.complete(simpleRequest()).then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as Record<string, unknown>,
  );
}

describe('Google error bodies', () => {
  it('reads status, message and RetryInfo.retryDelay', () => {
    const body = JSON.stringify({
      error: {
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        message: 'Quota exceeded',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '13s' }],
      },
    });
    expect(parseErrorBody(body)).toEqual({
      code: 'RESOURCE_EXHAUSTED',
      message: 'Quota exceeded',
      retryAfterSeconds: 13,
    });
  });

  it('reads the array form and prefers the ErrorInfo reason as the code', () => {
    expect(parseErrorBody(JSON.stringify([apiKeyInvalid.body]))).toEqual({
      code: 'API_KEY_INVALID',
      message: 'API key not valid. Please pass a valid API key.',
    });
  });

  it('keeps the text of a body that is not JSON', () => {
    expect(parseErrorBody('<html>Bad Gateway</html>')).toEqual({ message: '<html>Bad Gateway</html>' });
    expect(parseErrorBody('')).toEqual({});
    expect(parseErrorBody('{"unexpected":true}')).toEqual({});
    expect(parseErrorBody('{"error":"Not Found"}')).toEqual({ message: 'Not Found' });
  });
});

describe('classification over the emulator', () => {
  it.each<[string, Parameters<Emulator['enqueue']>[0], ErrorClass, string | undefined]>([
    ['429 RESOURCE_EXHAUSTED', googleError(429, 'Quota exceeded'), 'rate_limit', 'RESOURCE_EXHAUSTED'],
    [
      '400 INVALID_ARGUMENT over the token limit',
      googleError(
        400,
        'The input token count (1290837) exceeds the maximum number of tokens allowed (1048576).',
      ),
      'context_overflow',
      'INVALID_ARGUMENT',
    ],
    ['400 API_KEY_INVALID', apiKeyInvalid, 'auth', 'API_KEY_INVALID'],
    [
      '401 UNAUTHENTICATED',
      googleError(401, 'Request had invalid authentication credentials.'),
      'auth',
      'UNAUTHENTICATED',
    ],
    [
      '403 PERMISSION_DENIED',
      googleError(403, 'The caller does not have permission'),
      'auth',
      'PERMISSION_DENIED',
    ],
    [
      '503 UNAVAILABLE',
      googleError(503, 'The model is overloaded. Please try again later.'),
      'server_error',
      'UNAVAILABLE',
    ],
    ['500 INTERNAL', googleError(500, 'An internal error has occurred.'), 'server_error', 'INTERNAL'],
    ['404 NOT_FOUND', googleError(404, 'models/gemini-9 is not found'), 'invalid_request', 'NOT_FOUND'],
    [
      '400 INVALID_ARGUMENT',
      googleError(400, 'Invalid JSON payload received.'),
      'invalid_request',
      'INVALID_ARGUMENT',
    ],
    ['413 without a body', { type: 'json', status: 413, body: '' }, 'context_overflow', undefined],
    [
      '502 HTML page',
      { type: 'json', status: 502, body: '<html>Bad Gateway</html>' },
      'server_error',
      undefined,
    ],
  ])('%s', async (_name, script, errorClass, providerCode) => {
    const error = await failureOf(script);
    expect(error.errorClass).toBe(errorClass);
    expect(error.providerCode).toBe(providerCode);
  });

  it('RetryInfo.retryDelay is the retry delay', async () => {
    emulator.enqueue(
      googleError(429, 'Quota exceeded', 'RESOURCE_EXHAUSTED', [
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '0.05s' },
      ]),
    );
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
    const { adapter } = emulatedGemini(emulator, { maxRetries: 1 });
    const delays: number[] = [];
    const response = await adapter.complete(simpleRequest(), {
      onRetry: (info) => delays.push(info.delayMs),
    });
    expect(response.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(delays).toEqual([50]);
  });
});

describe('API key handling', () => {
  it('the key travels in x-goog-api-key, never in the URL', async () => {
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'hi' }] });
    const { adapter } = emulatedGemini(emulator);
    await adapter.complete(simpleRequest());
    const request = emulator.requests.at(-1);
    expect(request?.headers['x-goog-api-key']).toBe(testApiKey);
    expect(request?.query).toEqual({});
  });

  it('an auth failure never shows the key in its message, JSON or logs', async () => {
    const echoing = googleError(400, `API key not valid: ${testApiKey}`, 'INVALID_ARGUMENT', [
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' },
    ]);
    emulator.enqueue(echoing);
    const { adapter, logger } = emulatedGemini(emulator);
    const error = await adapter.complete(simpleRequest()).catch((caught: unknown) => caught);
    expect(isAuthError(error)).toBe(true);
    const text = `${(error as Error).message} ${JSON.stringify((error as { toJSON(): unknown }).toJSON())} ${JSON.stringify(logger.entries)}`;
    expect(text).not.toContain(testApiKey);
    expect(text).toContain('[REDACTED]');
  });

  it('reads GEMINI_API_KEY, then GOOGLE_API_KEY', async () => {
    vi.stubEnv('GEMINI_API_KEY', '');
    vi.stubEnv('GOOGLE_API_KEY', 'google-env-key');
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'a' }] });
    await createGemini({ baseURL: `${emulator.url}/v1beta` }).complete(simpleRequest());
    expect(emulator.requests.at(-1)?.headers['x-goog-api-key']).toBe('google-env-key');
    vi.stubEnv('GEMINI_API_KEY', 'gemini-env-key');
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'b' }] });
    await createGemini({ baseURL: `${emulator.url}/v1beta` }).complete(simpleRequest());
    expect(emulator.requests.at(-1)?.headers['x-goog-api-key']).toBe('gemini-env-key');
  });

  it('without any key the call fails with an AuthError from the API', async () => {
    vi.stubEnv('GEMINI_API_KEY', '');
    vi.stubEnv('GOOGLE_API_KEY', '');
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'never' }] });
    const adapter = createGemini({ baseURL: `${emulator.url}/v1beta`, maxRetries: 0 });
    const error = await adapter.complete(simpleRequest()).catch((caught: unknown) => caught);
    expect(isAuthError(error)).toBe(true);
  });
});
