import { describe, expect, it } from 'vitest';
import { sentMedia } from '../codecs/common.ts';
import type { Item } from '../core/transcript.ts';
import { createAdapterError } from '../core/errors/create-error.ts';
import { inClientTerms, toWireError, withoutUpstreamAddresses } from './errors.ts';

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
    [
      'backend vllm-01.corp.internal:8000; peer 10.9.8.7 (via proxy.local:3128)',
      'backend <upstream host>; peer <upstream host> (via <upstream host>)',
    ],
    [
      'version 1.2.3 at 12:30 costs 0.5, model gpt-4.1 at 2.5:1',
      'version 1.2.3 at 12:30 costs 0.5, model gpt-4.1 at 2.5:1',
    ],
    [
      'Rate limit reached for gpt-4.1-mini in organization org-Abc123XyZ on tokens per min (TPM): Limit 200000, Used 199500, Requested 2100.',
      'Rate limit reached for gpt-4.1-mini in organization <account id> on tokens per min (TPM): Limit 200000, Used <left out>, Requested 2100.',
    ],
    ['project proj_AbC123dEf has no access', 'project <account id> has no access'],
    [
      'the rate limit for your organization (5a1b2c3d-0000-4000-8000-abcdefabcdef) of 400,000 input tokens',
      'the rate limit for your organization (<account id>) of 400,000 input tokens',
    ],
    [
      'tool call 5a1b2c3d-0000-4000-8000-abcdefabcdef failed; org-chart is fine',
      'tool call 5a1b2c3d-0000-4000-8000-abcdefabcdef failed; org-chart is fine',
    ],
    [
      'The model ft:gpt-4.1-mini-2025-04-14:acme-org-research1::BxY12 does not exist; org-chartroom; Used 12 tools',
      'The model ft:gpt-4.1-mini-2025-04-14:acme-org-research1::BxY12 does not exist; org-chartroom; Used 12 tools',
    ],
  ])('%s', (message, shown) => {
    expect(withoutUpstreamAddresses(message)).toBe(shown);
  });

  it('a long message is cut to its first 2,000 characters; a run of name characters is scanned once', () => {
    const long = `${'a-'.repeat(40_000)}b.example:80`;
    const shown = withoutUpstreamAddresses(long);
    expect(shown).toHaveLength(2001);
    expect(shown.endsWith('…')).toBe(true);
    // The dotted-name pattern alone, on the whole run (its lookbehind keeps it linear).
    expect(withoutUpstreamAddresses(`x ${'a-'.repeat(900)}host.internal:8000`)).toBe('x <upstream host>');
  });
});

describe('toWireError', () => {
  it('passes an upstream retry-after on, at most a day', () => {
    const far = createAdapterError('rate_limit', { message: 'slow down', retryAfterSeconds: 99_999_999_999 });
    expect(toWireError(far)).toMatchObject({ status: 429, retryAfterSeconds: 86_400 });
    const near = createAdapterError('rate_limit', { message: 'slow down', retryAfterSeconds: 7 });
    expect(toWireError(near).retryAfterSeconds).toBe(7);
  });

  it('an upstream that refused the account access (no model access, a missing permission) says so, not that the key is bad', () => {
    for (const providerCode of ['accessDeniedException', 'permission_error']) {
      const denied = createAdapterError('auth', {
        message: 'no access',
        status: 403,
        provider: 'bedrock',
        providerCode,
      });
      const wire = toWireError(denied);
      expect(wire).toMatchObject({ status: 502, errorClass: 'server_error', retryable: false });
      expect(wire.message).toMatch(/denied the gateway access \(bedrock\).*permissions/);
      expect(wire.message).not.toMatch(/provider key/);
    }
    const key = createAdapterError('auth', {
      message: 'bad token',
      status: 403,
      provider: 'bedrock',
      providerCode: 'unrecognizedClientException',
    });
    expect(toWireError(key).message).toMatch(/refused the gateway's credentials \(bedrock\).*provider key/);
  });

  it.each([
    ['server_error', 'overloaded_error', false, 529],
    ['server_error', 'server_error', true, 529],
    ['server_error', 'server_error', false, 502],
    ['server_error', 'timeout_error', false, 504],
    ['invalid_request', 'not_found_error', false, 404],
    ['server_error', 'api_error', false, 502],
    ['rate_limit', 'rate_limit_error', false, 429],
  ] as const)(
    'an in-band %s (%s, classified an overload: %s; no HTTP status) has the status its kind has over HTTP: %i',
    (errorClass, providerCode, overloaded, status) => {
      const inBand = createAdapterError(errorClass, {
        message: 'failed with an in-band error',
        provider: 'anthropic',
        providerCode,
        // The message alone decides nothing here: the adapter's rules classified it.
        providerMessage: 'The model is overloaded, try later',
        overloaded,
      });
      expect(toWireError(inBand).status).toBe(status);
    },
  );
});

describe('inClientTerms', () => {
  it('names every canonical part path the client sent by its own field; param is the first', () => {
    const image = sentMedia(
      { type: 'media', modality: 'image', mimeType: 'image/tiff', data: { type: 'base64', data: 'AA' } },
      'messages.0.content.1',
    );
    const audio = sentMedia(
      { type: 'media', modality: 'audio', mimeType: 'audio/wav', data: { type: 'base64', data: 'AA' } },
      'messages.2.content.0',
    );
    const transcript: Item[] = [
      { kind: 'user', parts: [{ type: 'text', text: 'a' }, image] },
      { kind: 'assistant', parts: [{ type: 'text', text: 'b' }] },
      { kind: 'user', parts: [audio] },
    ];
    const wire = inClientTerms(
      {
        status: 400,
        errorClass: 'invalid_request',
        message:
          'x: does not support images (transcript[0].parts[1]), audio (transcript[2].parts[0]), y (transcript[1].parts[0])',
      },
      transcript,
    );
    expect(wire.message).toBe(
      'x: does not support images (messages.0.content.1), audio (messages.2.content.0), y (transcript[1].parts[0])',
    );
    expect(wire.param).toBe('messages.0.content.1');
  });
});
