/**
 * SigV4 signing checked against AWS's published test suite (test/fixtures/sigv4, service `service`,
 * region us-east-1, 2015-08-30) and against a Bedrock request whose model id holds `:` and `/`,
 * double-encoded in the canonical request; and the credential order, first match wins.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AwsV4Signer } from 'aws4fetch';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../../test/support/fixtures.ts';
import { BedrockAuth, signRequest } from './auth.ts';
import { modelPath } from './model-id.ts';

const suite = join(repoRoot, 'test/fixtures/sigv4');
const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
const datetime = '20150830T123600Z';

interface Vector {
  method: string;
  url: string;
  headers: Array<[string, string]>;
  body: string;
}

/** Parses a `.req` file: request line, headers, blank line, body. */
function parseRequest(text: string): Vector {
  const [head = '', body = ''] = text.split(/\n\n/);
  const [requestLine = '', ...headerLines] = head.split('\n');
  const [method = 'GET', target = '/'] = requestLine.split(' ');
  const headers = headerLines.map((line): [string, string] => {
    const colon = line.indexOf(':');
    return [line.slice(0, colon), line.slice(colon + 1)];
  });
  const host = headers.find(([name]) => name.toLowerCase() === 'host')?.[1] ?? '';
  return { method, url: `https://${host}${target}`, headers, body };
}

const names = readdirSync(suite)
  .filter((file) => file.endsWith('.req'))
  .map((file) => file.slice(0, -4))
  // Fetch's `Headers` joins a repeated header with ", " where the suite's canonical form wants ","; no
  // Bedrock request repeats a header, so those two cases are left out.
  .filter((name) => name !== 'get-header-key-duplicate');

describe('SigV4 against the AWS test suite', () => {
  it('holds the GET/POST vanilla, query, header and UTF-8 cases', () => {
    for (const required of [
      'get-vanilla',
      'post-vanilla',
      'get-vanilla-query-order-key-case',
      'post-vanilla-query',
      'get-header-value-trim',
      'post-header-key-sort',
      'get-utf8',
      'get-vanilla-utf8-query',
    ])
      expect(names).toContain(required);
  });

  it.each(names)('%s: canonical request and authorization header', async (name) => {
    const vector = parseRequest(readFileSync(join(suite, `${name}.req`), 'utf8'));
    const headers = Object.fromEntries(
      vector.headers.filter(([header]) => !/^(host|content-length)$/i.test(header)),
    );
    const input = {
      method: vector.method,
      url: vector.url,
      headers,
      body: vector.body === '' ? undefined : vector.body,
    };
    const settings = { datetime, service: 'service', singleEncode: true, allHeaders: true };
    const signed = await signRequest(input, credentials, 'us-east-1', settings);
    expect(signed.authorization).toBe(readFileSync(join(suite, `${name}.authz`), 'utf8').trim());
    // This case's .creq signs content-length while its .authz (matched above) does not: the two
    // files of the published suite disagree, so only the signature is compared.
    if (name === 'post-x-www-form-urlencoded') return;
    const signer = new AwsV4Signer({ ...input, ...credentials, region: 'us-east-1', ...settings });
    expect(await signer.canonicalString()).toBe(readFileSync(join(suite, `${name}.creq`), 'utf8').trim());
  });
});

describe('SigV4 of a Bedrock request', () => {
  it('encodes an ARN model id (with : and /) once in the URL and twice in the canonical request', async () => {
    const model = 'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4:0';
    const path = `/model/${modelPath(model, { provider: 'bedrock' })}/converse`;
    expect(path).toBe(
      '/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Aapplication-inference-profile%2Fa1b2c3d4%3A0/converse',
    );
    const input = {
      method: 'POST',
      url: `https://bedrock-runtime.us-east-1.amazonaws.com${path}`,
      headers: { 'content-type': 'application/json' },
      body: '{"messages":[]}',
    };
    const signer = new AwsV4Signer({
      ...input,
      ...credentials,
      region: 'us-east-1',
      service: 'bedrock',
      datetime,
    });
    const canonicalPath = (await signer.canonicalString()).split('\n')[1];
    expect(canonicalPath).toBe(
      '/model/arn%253Aaws%253Abedrock%253Aus-east-1%253A123456789012%253Aapplication-inference-profile%252Fa1b2c3d4%253A0/converse',
    );
    const signed = await signRequest(input, credentials, 'us-east-1', { datetime });
    expect(signed.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20150830\/us-east-1\/bedrock\/aws4_request, SignedHeaders=host;x-amz-date, Signature=[0-9a-f]{64}$/,
    );
    expect(signed.authorization).toBe(
      `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=${await signer.signature()}`,
    );
    expect(signed['x-amz-date']).toBe(datetime);
  });

  it('adds x-amz-security-token for session credentials', async () => {
    const input = {
      method: 'POST',
      url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse',
      headers: {},
      body: '{}',
    };
    const signed = await signRequest(input, { ...credentials, sessionToken: 'session-token' }, 'us-east-1');
    expect(signed['x-amz-security-token']).toBe('session-token');
    expect(signed.authorization).toContain('x-amz-security-token');
  });
});

const request = {
  method: 'POST',
  url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse',
  headers: {},
  body: '{}',
};
const peerMissing = () => Promise.reject(new Error("Cannot find package '@aws-sdk/credential-providers'"));

describe('Bedrock credentials, first match wins', () => {
  it('a bearer token wins over every other credential and is not signed', async () => {
    const env = {
      AWS_BEARER_TOKEN_BEDROCK: 'bedrock-api-key',
      AWS_ACCESS_KEY_ID: 'AKIDENV',
      AWS_SECRET_ACCESS_KEY: 'x',
    };
    const auth = new BedrockAuth({ env, credentials }, peerMissing);
    expect((await auth.authorize(request, false, 'us-east-1')).headers).toEqual({
      authorization: 'Bearer bedrock-api-key',
    });
  });

  it('explicit credentials before the environment keys, the environment keys before the chain', async () => {
    const env = { AWS_ACCESS_KEY_ID: 'AKIDENVIRONMENT', AWS_SECRET_ACCESS_KEY: 'secret' };
    const explicit = await new BedrockAuth({ env, credentials }, peerMissing).authorize(
      request,
      false,
      'us-east-1',
    );
    expect(explicit.headers.authorization).toContain('Credential=AKIDEXAMPLE/');
    let chainCalls = 0;
    const chain = async () => async () => (chainCalls++, { accessKeyId: 'AKIDCHAIN', secretAccessKey: 's' });
    const fromEnv = await new BedrockAuth({ env }, chain).authorize(request, false, 'us-east-1');
    expect(fromEnv.headers.authorization).toContain('Credential=AKIDENVIRONMENT/');
    const fromChain = await new BedrockAuth({ env: {} }, chain).authorize(request, false, 'us-east-1');
    expect(fromChain.headers.authorization).toContain('Credential=AKIDCHAIN/');
    expect(fromChain.refreshable).toBe(true);
    expect(chainCalls).toBe(1);
  });

  it('AWS_PROFILE set: the profile of the default chain signs before the environment keys (the AWS SDK for JavaScript v3); without the chain installed, the environment keys still do', async () => {
    const env = { AWS_PROFILE: 'prod', AWS_ACCESS_KEY_ID: 'AKIDSTALEENV', AWS_SECRET_ACCESS_KEY: 'stale' };
    const chain = async () => async () => ({ accessKeyId: 'AKIDFROMPROFILE', secretAccessKey: 's' });
    const signed = await new BedrockAuth({ env }, chain).authorize(request, false, 'us-east-1');
    expect(signed.headers.authorization).toContain('Credential=AKIDFROMPROFILE/');
    const withoutChain = await new BedrockAuth({ env }, peerMissing).authorize(request, false, 'us-east-1');
    expect(withoutChain.headers.authorization).toContain('Credential=AKIDSTALEENV/');
  });

  it('a credentials function is asked before every request (rotated keys are used at once)', async () => {
    const keys = ['AKIDFIRST', 'AKIDSECOND'];
    const auth = new BedrockAuth({
      env: {},
      credentials: async () => ({ accessKeyId: keys.shift()!, secretAccessKey: 's' }),
    });
    expect((await auth.authorize(request, false, 'us-east-1')).headers.authorization).toContain('AKIDFIRST');
    expect((await auth.authorize(request, false, 'us-east-1')).headers.authorization).toContain('AKIDSECOND');
  });

  it('without credentials and without the optional peer: not_configured naming the package (no import crash)', async () => {
    const error = await new BedrockAuth({ env: {} })
      .authorize(request, false, 'us-east-1')
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorClass: 'auth', providerCode: 'not_configured' });
    expect((error as Error).message).toContain('npm install @aws-sdk/credential-providers');
    expect((error as Error).message).toContain('AWS_BEARER_TOKEN_BEDROCK');
  });

  it('a region that is not a region name is an invalid request before any signing', async () => {
    const error = await new BedrockAuth({ env: {}, credentials })
      .authorize(request, false, 'mars-1')
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorClass: 'invalid_request', providerCode: 'invalid_region' });
  });
});
