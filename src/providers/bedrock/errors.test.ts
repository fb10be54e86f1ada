import { describe, expect, it } from 'vitest';
import { isRetryableClass } from '../../core/errors/error-class.ts';
import { classifyError } from '../../core/errors/status-map.ts';
import { errorRules, normalizeExceptionName, parseErrorBody } from './errors.ts';

const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? null });
const errortype = (value: string) => headers({ 'x-amzn-errortype': value });

describe('parseErrorBody: the exception name where the SDK looks (header, body code, __type)', () => {
  it('takes the x-amzn-errortype header before the body, trimmed at its ":"', () => {
    const body = '{"message":"Model has timed out","__type":"InternalServerException"}';
    expect(
      parseErrorBody(body, errortype('ModelTimeoutException:http://internal.amazon.com/coral/')),
    ).toEqual({
      code: 'modelTimeoutException',
      message: 'Model has timed out',
    });
  });

  it('without the header, the body code, then __type (namespace dropped)', () => {
    const both = '{"code":"ThrottlingException","__type":"com.amazon#ValidationException","message":"m"}';
    expect(parseErrorBody(both, headers({}))).toEqual({ code: 'throttlingException', message: 'm' });
    expect(parseErrorBody('{"__type":"com.amazon.coral#ValidationException"}', headers({}))).toEqual({
      code: 'validationException',
    });
  });

  it('a body that is not JSON, or none, keeps the header name', () => {
    const named = errortype('ServiceUnavailableException:http://internal.amazon.com/coral/');
    expect(parseErrorBody('<html>503</html>', named)).toEqual({
      code: 'serviceUnavailableException',
      message: '<html>503</html>',
    });
    expect(parseErrorBody('', named)).toEqual({ code: 'serviceUnavailableException' });
    expect(parseErrorBody('', headers({}))).toEqual({});
  });

  it('normalizes names as the SDK sanitizes them (before "," and ":", after "#")', () => {
    expect(normalizeExceptionName('aws.protocols#ThrottlingException:http://x/y,Other')).toBe(
      'throttlingException',
    );
    expect(normalizeExceptionName('ValidationException')).toBe('validationException');
  });
});

describe('errorRules: Bedrock exceptions by what a retry can do', () => {
  const classify = (status: number, exception: string, message = 'm') =>
    classifyError(status, parseErrorBody(JSON.stringify({ message }), errortype(exception)), errorRules);

  it('a 429 ModelNotReadyException is a retryable rate limit (the model is loading), not a 502 outage', () => {
    const result = classify(429, 'ModelNotReadyException', 'Model is not ready for inference.');
    expect(result.errorClass).toBe('rate_limit');
    expect(result.retryable ?? isRetryableClass(result.errorClass)).toBe(true);
    // In a stream's exception frame there is no status: the name alone decides.
    expect(classifyError(0, { code: 'modelNotReadyException' }, errorRules).errorClass).toBe('rate_limit');
  });

  it('a 403 AccessDeniedException is auth, as Anthropic permission_error and Gemini PERMISSION_DENIED: not retried', () => {
    const result = classify(403, 'AccessDeniedException', "You don't have access to the model.");
    expect(result.errorClass).toBe('auth');
    expect(result.retryable ?? isRetryableClass(result.errorClass)).toBe(false);
  });

  it.each([
    [503, 'ServiceUnavailableException'],
    [408, 'ModelTimeoutException'],
    [424, 'ModelErrorException'],
    [500, 'InternalServerException'],
  ])('a %i %s is a retryable server error', (status, exception) => {
    const result = classify(status, exception);
    expect(result.errorClass).toBe('server_error');
    expect(result.retryable ?? isRetryableClass(result.errorClass)).toBe(true);
  });
});
