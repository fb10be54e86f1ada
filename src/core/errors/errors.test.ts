import { describe, expect, it } from 'vitest';
import { AdapterError } from './adapter-error.ts';
import { createAdapterError } from './create-error.ts';
import { errorClasses } from './error-class.ts';
import { isAdapterError, isAuthError, isRateLimitError } from './guards.ts';
import { classifyError, mapStatusToErrorClass } from './status-map.ts';

describe('error classes', () => {
  it('creates the most specific subclass for every class, carrying the fields', () => {
    for (const errorClass of errorClasses) {
      const error = createAdapterError(errorClass, {
        message: 'm',
        status: 500,
        providerMessage: 'p',
        retryable: true,
        retryAfterSeconds: 2,
        requestId: 'r',
        provider: 'x',
        cause: 'c',
      });
      expect(error).toBeInstanceOf(AdapterError);
      expect(error.errorClass).toBe(errorClass);
      expect(error).toMatchObject({
        status: 500,
        providerMessage: 'p',
        retryable: true,
        retryAfterSeconds: 2,
        requestId: 'r',
        provider: 'x',
      });
      expect(error.cause).toBe('c');
    }
  });

  it('guards recognise errors from a second copy of the package', async () => {
    // A query string makes the module loader evaluate a second, independent copy of the class.
    // @ts-expect-error -- the type checker does not resolve query-suffixed specifiers; vitest does.
    const copy = (await import('./adapter-error.ts?copy')) as typeof import('./adapter-error.ts');
    const foreign = new copy.AdapterError({ message: 'slow down', errorClass: 'rate_limit' });
    expect(copy.AdapterError).not.toBe(AdapterError);
    expect(foreign instanceof AdapterError).toBe(false);
    expect(isAdapterError(foreign)).toBe(true);
    expect(isRateLimitError(foreign)).toBe(true);
    expect(isAuthError(foreign)).toBe(false);
    expect(isAdapterError(new Error('plain'))).toBe(false);
  });
});

describe('status mapping (docs/contract.md §6.2)', () => {
  it.each([
    [401, 'auth'],
    [403, 'auth'],
    [408, 'network'],
    [413, 'context_overflow'],
    [429, 'rate_limit'],
    [500, 'server_error'],
    [503, 'server_error'],
    [529, 'server_error'],
    [400, 'invalid_request'],
    [404, 'invalid_request'],
    [302, 'other'],
  ])('%i → %s', (status, errorClass) => {
    expect(mapStatusToErrorClass(status)).toBe(errorClass);
  });

  it('body rules adjust the class before the table; first match wins', () => {
    const rules = [
      { code: 'overloaded_error', errorClass: 'rate_limit' as const },
      { status: 400, message: /prompt is too long/, errorClass: 'context_overflow' as const },
      { code: 'insufficient_quota', errorClass: 'rate_limit' as const, retryable: false },
    ];
    expect(classifyError(529, { code: 'overloaded_error' }, rules)).toEqual({
      errorClass: 'rate_limit',
      retryable: undefined,
      overload: false,
    });
    expect(classifyError(400, { message: 'prompt is too long: 210000 tokens' }, rules).errorClass).toBe(
      'context_overflow',
    );
    expect(classifyError(429, { code: 'insufficient_quota' }, rules)).toEqual({
      errorClass: 'rate_limit',
      retryable: false,
      overload: false,
    });
    expect(classifyError(404, { message: 'prompt is too long' }, rules).errorClass).toBe('invalid_request');
  });

  it.each([
    [503, 'server_error'],
    [500, 'server_error'],
    [429, 'rate_limit'],
    [401, 'auth'],
    [403, 'auth'],
    [400, 'invalid_request'],
    [0, 'invalid_request'],
  ] as const)('a body typed as an invalid request with status %i classifies as %s', (status, errorClass) => {
    const rules = [{ code: 'invalid_request_error', errorClass: 'invalid_request' as const }];
    expect(classifyError(status, { code: 'invalid_request_error', message: 'x' }, rules).errorClass).toBe(
      errorClass,
    );
  });
});
