import { describe, expect, it } from 'vitest';
import { normalizeExceptionName, parseErrorBody } from './errors.ts';

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
