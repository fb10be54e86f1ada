import { describe, expect, it } from 'vitest';
import { createAdapterError } from '../core/errors/create-error.ts';
import { toWireError, withoutUpstreamAddresses } from './errors.ts';

describe('withoutUpstreamAddresses', () => {
  it.each([
    [
      'anthropic: POST http://10.0.0.7:8443/v1/messages failed with 400: bad',
      'anthropic: the upstream request failed with 400: bad',
    ],
    ['connect ECONNREFUSED 10.0.0.7:8443', 'connect ECONNREFUSED'],
    ['redirect (to https://other.example/x) refused', 'redirect (to <upstream URL>) refused'],
    ['Your headers: {"host":"127.0.0.1:47801"}', 'Your headers: {"host":"<upstream host>"}'],
    [
      'upstream [::1]:8080 and localhost:4000 said no',
      'upstream <upstream host> and <upstream host> said no',
    ],
    ['version 1.2.3 at 12:30 costs 0.5', 'version 1.2.3 at 12:30 costs 0.5'],
  ])('%s', (message, shown) => {
    expect(withoutUpstreamAddresses(message)).toBe(shown);
  });
});

describe('toWireError', () => {
  it('passes an upstream retry-after on, at most a day', () => {
    const far = createAdapterError('rate_limit', { message: 'slow down', retryAfterSeconds: 99_999_999_999 });
    expect(toWireError(far)).toMatchObject({ status: 429, retryAfterSeconds: 86_400 });
    const near = createAdapterError('rate_limit', { message: 'slow down', retryAfterSeconds: 7 });
    expect(toWireError(near).retryAfterSeconds).toBe(7);
  });
});
