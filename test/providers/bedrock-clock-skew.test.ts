/**
 * Bedrock with a local clock that is off: a loopback server keeps its own clock (an hour ahead of
 * or behind ours), checks each request's SigV4 signature and its `X-Amz-Date` against that clock as
 * AWS does (five minutes either way), and refuses the rest with AWS's 403
 * `InvalidSignatureException` ("Signature expired" / "Signature not yet current") and its `Date`.
 * The adapter corrects its signing clock from that `Date`, signs the attempt again and sends it
 * once more (not one of `maxRetries`), and signs every later call at the corrected time; a refusal
 * that is not about the clock, or one that keeps coming, is the classified `auth` error at once.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.ts';
import { BedrockAuth, signRequest } from '../../src/providers/bedrock/auth.ts';
import {
  amzDateOf as signingDateOf,
  parseHttpDate,
  SigningClock,
} from '../../src/providers/bedrock/clock.ts';
import { createBedrock } from '../../src/providers/bedrock/index.ts';
import type { AwsCredentials } from '../../src/providers/bedrock/options.ts';

const credentials: AwsCredentials = {
  accessKeyId: 'AKIDCLOCKSKEWTEST0001',
  secretAccessKey: 'clockskew/secret+K7MDENGbPxRfiCY',
};
const hour = 60 * 60_000;
const window = 5 * 60_000;

/**
 * What the server does: its clock's distance from ours, whether it refuses every request, a `Date`
 * header of its own choosing (a broken or hostile one) instead of its clock's, and how many
 * requests it holds its answers for until they have all arrived (calls in flight together).
 */
let server: { skewMs: number; refuse?: 'always' | 'access-denied'; date?: string; gather?: number };
/** Answers held back until `server.gather` requests have arrived. */
const held: Array<() => void> = [];
/** Each request the server saw: its `X-Amz-Date`, the server's time, and the answer's status. */
let seen: Array<{ amzDate: string; serverTime: number; status: number }>;
let http: Server;
let baseURL: string;

/** `20260101T000000Z` → milliseconds. */
function parseAmzDate(value: string): number {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (match === null) return Number.NaN;
  const [, year, month, day, hours, minutes, seconds] = match.map(Number) as number[];
  return Date.UTC(year!, month! - 1, day!, hours, minutes, seconds);
}

const amzDateOf = (time: number) => new Date(time).toISOString().replace(/[:-]|\.\d{3}/g, '');

/** Whether the request's signature is the one its own `X-Amz-Date` and the test keys make. */
async function signatureHolds(request: IncomingMessage, body: string): Promise<boolean> {
  const authorization = String(request.headers.authorization ?? '');
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';') ?? [];
  const headers: Record<string, string> = {};
  for (const name of signedHeaders)
    if (name !== 'host' && name !== 'x-amz-date') headers[name] = String(request.headers[name]);
  const expected = await signRequest(
    { method: request.method!, url: `http://${request.headers.host}${request.url}`, headers, body },
    credentials,
    'us-east-1',
    { datetime: String(request.headers['x-amz-date']) },
  );
  return expected.authorization === authorization;
}

function refusal(amzDate: string, serverTime: number) {
  const now = amzDateOf(serverTime);
  const requestTime = parseAmzDate(amzDate);
  const message =
    requestTime < serverTime
      ? `Signature expired: ${amzDate} is now earlier than ${amzDateOf(serverTime - window)} (${now} - 5 min.)`
      : `Signature not yet current: ${amzDate} is still later than ${amzDateOf(serverTime + window)} (${now} + 5 min.)`;
  return { exception: 'InvalidSignatureException', message };
}

beforeAll(async () => {
  http = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        const serverTime = Date.now() + server.skewMs;
        const amzDate = String(request.headers['x-amz-date'] ?? '');
        const inWindow = Math.abs(parseAmzDate(amzDate) - serverTime) <= window;
        const valid = await signatureHolds(request, Buffer.concat(chunks).toString('utf8'));
        let answer: { exception: string; message: string } | undefined;
        if (server.refuse === 'access-denied')
          answer = { exception: 'AccessDeniedException', message: "You don't have access to the model." };
        else if (!valid || server.refuse === 'always')
          answer = {
            exception: 'InvalidSignatureException',
            message: 'The request signature we calculated does not match the signature you provided.',
          };
        else if (!inWindow) answer = refusal(amzDate, serverTime);
        const status = answer === undefined ? 200 : 403;
        seen.push({ amzDate, serverTime, status });
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          date: server.date ?? new Date(serverTime).toUTCString(),
        };
        if (answer !== undefined)
          headers['x-amzn-errortype'] =
            `${answer.exception}:http://internal.amazon.com/coral/com.amazon.coral.service/`;
        const body = JSON.stringify(
          answer === undefined
            ? {
                output: { message: { role: 'assistant', content: [{ text: 'On time.' }] } },
                stopReason: 'end_turn',
                usage: { inputTokens: 5, outputTokens: 3, totalTokens: 8 },
                metrics: { latencyMs: 12 },
              }
            : { message: answer.message },
        );
        held.push(() => response.writeHead(status, headers).end(body));
        if (held.length < (server.gather ?? 1)) return;
        server.gather = undefined;
        for (const send of held.splice(0)) send();
      })();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));
beforeEach(() => {
  seen = [];
});

const request = {
  model: 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  transcript: [{ kind: 'user' as const, parts: [{ type: 'text' as const, text: 'What time is it?' }] }],
  maxOutputTokens: 64,
};

/** An adapter with no retries of its own (the resend is part of the attempt) and a credentials function that records `forceRefresh`. */
/**
 * An adapter on the test server: by default with a credentials function that records each call's
 * `forceRefresh`; `auth` gives static credentials or a bearer token instead.
 */
function adapter(auth?: { credentials: typeof credentials } | { apiKey: string }) {
  const refreshes: boolean[] = [];
  const bedrock = createBedrock({
    region: 'us-east-1',
    ...(auth ?? {
      credentials: async (options) => (refreshes.push(options?.forceRefresh === true), credentials),
    }),
    env: {},
    baseURL,
    maxRetries: 0,
    logger: silentLogger,
  });
  return { bedrock, refreshes };
}

async function failure(bedrock: ReturnType<typeof createBedrock>) {
  return bedrock.complete(request).then(
    () => undefined,
    (error: unknown) => error as Error & { errorClass?: string; providerCode?: string; status?: number },
  );
}

describe('a local clock that is off', () => {
  it.each([
    ['an hour ahead of ours: "Signature expired"', hour],
    ['an hour behind ours: "Signature not yet current"', -hour],
  ])(
    "AWS's clock %s: re-signed at AWS's time and sent once more, then every call signs at it",
    async (_name, skewMs) => {
      server = { skewMs };
      const { bedrock, refreshes } = adapter();
      const first = await bedrock.complete(request);
      expect(first.finishReason).toBe('completed');
      expect(seen.map((entry) => entry.status)).toEqual([403, 200]);
      // The resend carries AWS's time (the Date header has whole seconds), the refusal ours.
      expect(Math.abs(parseAmzDate(seen[0]!.amzDate) - seen[0]!.serverTime)).toBeGreaterThan(window);
      expect(Math.abs(parseAmzDate(seen[1]!.amzDate) - seen[1]!.serverTime)).toBeLessThan(5_000);
      // The same credentials signed again: a clock is not a credential to refresh.
      expect(refreshes).toEqual([false, false]);

      const second = await bedrock.complete(request);
      expect(second.finishReason).toBe('completed');
      expect(seen.map((entry) => entry.status)).toEqual([403, 200, 200]);
      expect(Math.abs(parseAmzDate(seen[2]!.amzDate) - seen[2]!.serverTime)).toBeLessThan(5_000);
    },
  );

  it('a clock that agrees with AWS signs as before: one request, no correction', async () => {
    server = { skewMs: 0 };
    const { bedrock } = adapter();
    await bedrock.complete(request);
    expect(seen.map((entry) => entry.status)).toEqual([200]);
  });

  it('a refusal that keeps coming: one re-signed resend, then the classified auth error, no loop, no key in it', async () => {
    server = { skewMs: hour, refuse: 'always' };
    const { bedrock, refreshes } = adapter();
    const error = await failure(bedrock);
    expect(error).toMatchObject({ errorClass: 'auth', status: 403 });
    expect(seen).toHaveLength(2);
    expect(refreshes).toEqual([false, false]);
    expect(error!.message).not.toContain(credentials.secretAccessKey);
    expect(error!.message).not.toContain(credentials.accessKeyId);
    expect(JSON.stringify(error)).not.toContain(credentials.secretAccessKey);
    // The clock now agrees with AWS's, so the next refusal is about the signature itself: sent once
    // more only as the credential refresh a provider function gets.
    const again = await failure(bedrock);
    expect(again).toMatchObject({ errorClass: 'auth', status: 403 });
    expect(seen).toHaveLength(4);
    expect(refreshes).toEqual([false, false, false, true]);
  });

  it('a bad signature from a clock that agrees with AWS (a wrong key) is not re-signed for the clock', async () => {
    server = { skewMs: 0, refuse: 'always' };
    const { bedrock } = adapter({ credentials });
    expect(await failure(bedrock)).toMatchObject({ errorClass: 'auth', status: 403 });
    expect(seen).toHaveLength(1);
  });

  it('a refusal that is not about the signature (AccessDeniedException) leaves the clock alone, even with a skewed Date', async () => {
    server = { skewMs: hour, refuse: 'access-denied' };
    const { bedrock } = adapter();
    expect(await failure(bedrock)).toMatchObject({ errorClass: 'auth', status: 403 });
    expect(seen).toHaveLength(1);
    server = { skewMs: hour };
    await bedrock.complete(request);
    expect(seen.map((entry) => entry.status)).toEqual([403, 403, 200]);
  });

  it.each([
    ['static credentials', false],
    ['a credentials function', true],
  ])(
    'calls in flight when the clock is corrected (%s): each refusal judged by its own signing time, re-signed and sent once more, no refresh',
    async (_name, asFunction) => {
      server = { skewMs: hour, gather: 4 };
      const { bedrock, refreshes } = adapter(asFunction ? undefined : { credentials });
      // All four are signed at our time before the first refusal corrects the clock.
      const results = await Promise.allSettled(Array.from({ length: 4 }, () => bedrock.complete(request)));
      expect(results.map((result) => result.status)).toEqual(Array(4).fill('fulfilled'));
      expect(seen.map((entry) => entry.status)).toEqual([403, 403, 403, 403, 200, 200, 200, 200]);
      for (const entry of seen.slice(4))
        expect(Math.abs(parseAmzDate(entry.amzDate) - entry.serverTime)).toBeLessThan(5_000);
      // A clock is not a credential: nothing refreshed.
      expect(refreshes).not.toContain(true);
    },
  );

  it('a bearer token (apiKey) signs nothing: a clock-skew refusal is the auth error at once, not resent', async () => {
    server = { skewMs: hour };
    const { bedrock } = adapter({ apiKey: 'ABSKbearerTokenClockSkew0001' });
    // No signature to hold: the server answers InvalidSignatureException with its Date an hour ahead.
    expect(await failure(bedrock)).toMatchObject({ errorClass: 'auth', status: 403 });
    expect(seen).toHaveLength(1);
    expect(await failure(bedrock)).toMatchObject({ errorClass: 'auth', status: 403 });
    expect(seen).toHaveLength(2);
  });

  it.each([
    ["the largest Date there is, which SigV4's date cannot spell", '+275760-09-13T00:00:00.000Z'],
    ['the year 10000', 'Sat, 01 Jan 10000 00:00:00 GMT'],
    ['a bare number', '0'],
    ['a bare year', '2040'],
    ['words around a year', 'foo 2001'],
    ['ISO 8601, not an HTTP date', new Date(Date.now() + hour).toISOString()],
    [
      'a real HTTP date three days away (beyond the one-day bound)',
      new Date(Date.now() + 72 * hour).toUTCString(),
    ],
  ])(
    'a refusal whose Date is %s is not adopted: the auth error, nothing resent, and the adapter still signs',
    async (_name, date) => {
      server = { skewMs: 0, refuse: 'always', date };
      const { bedrock } = adapter({ credentials });
      expect(await failure(bedrock)).toMatchObject({ errorClass: 'auth', status: 403 });
      expect(seen).toHaveLength(1);
      server = { skewMs: 0 };
      expect((await bedrock.complete(request)).finishReason).toBe('completed');
      expect(seen.map((entry) => entry.status)).toEqual([403, 200]);
      expect(Math.abs(parseAmzDate(seen[1]!.amzDate) - seen[1]!.serverTime)).toBeLessThan(5_000);
    },
  );
});

describe('the signing clock', () => {
  const skewed = (status: number, errorType: string | undefined, date: string) => ({
    get: (name: string) =>
      name === 'x-amzn-errortype' ? (errorType ?? null) : name === 'date' ? date : null,
  });

  it('takes the offset from a skew refusal five minutes or more away, as the AWS SDKs do', () => {
    const local = Date.UTC(2026, 0, 1, 0, 0, 0);
    const clock = new SigningClock(() => local);
    expect(clock.datetime()).toBe('20260101T000000Z');
    const aws = new Date(local + 4 * 60_000).toUTCString();
    expect(clock.correct(403, skewed(403, 'InvalidSignatureException', aws), local)).toBe(false);
    const far = new Date(local + 6 * 60_000).toUTCString();
    expect(clock.correct(400, skewed(400, 'InvalidSignatureException', far), local)).toBe(false);
    expect(clock.correct(403, skewed(403, undefined, far), local)).toBe(false);
    expect(clock.correct(403, skewed(403, 'InvalidSignatureException', 'not a date'), local)).toBe(false);
    expect(clock.datetime()).toBe('20260101T000000Z');
    expect(clock.correct(403, skewed(403, 'RequestTimeTooSkewed', far), local)).toBe(true);
    expect(clock.datetime()).toBe('20260101T000600Z');
    // A request signed at the corrected time and refused again was not refused for the clock.
    expect(clock.correct(403, skewed(403, 'RequestTimeTooSkewed', far), local + 6 * 60_000)).toBe(false);
  });

  it('judges a refusal by the time its request was signed at: one signed before the correction is re-signed, the offset kept', () => {
    const local = Date.UTC(2026, 0, 1, 0, 0, 0);
    const clock = new SigningClock(() => local);
    const aws = new Date(local + hour).toUTCString();
    expect(clock.correct(403, skewed(403, 'InvalidSignatureException', aws), local)).toBe(true);
    expect(clock.datetime()).toBe('20260101T010000Z');
    // Another call, signed at the local time before that correction, refused by the same clock.
    expect(clock.correct(403, skewed(403, 'InvalidSignatureException', aws), local)).toBe(true);
    expect(clock.datetime()).toBe('20260101T010000Z');
    // Refused by a clock that moved again since: the offset follows it.
    const later = new Date(local + 2 * hour).toUTCString();
    expect(clock.correct(403, skewed(403, 'InvalidSignatureException', later), local)).toBe(true);
    expect(clock.datetime()).toBe('20260101T020000Z');
  });

  it('takes an offset of up to a day, no more, and only from an HTTP date', () => {
    const local = Date.UTC(2026, 0, 1, 0, 0, 0);
    const clock = new SigningClock(() => local);
    const refusal = (date: string) =>
      clock.correct(403, skewed(403, 'InvalidSignatureException', date), local);
    expect(refusal(new Date(local + 25 * hour).toUTCString())).toBe(false);
    expect(refusal(new Date(local - 25 * hour).toUTCString())).toBe(false);
    expect(refusal(new Date(local + hour).toISOString())).toBe(false);
    expect(clock.datetime()).toBe('20260101T000000Z');
    expect(refusal(new Date(local - 23 * hour).toUTCString())).toBe(true);
    expect(clock.datetime()).toBe('20251231T010000Z');
  });
});

describe('HTTP dates and SigV4 times', () => {
  // RFC 9110 §5.6.7's example, in its three forms.
  const example = Date.UTC(1994, 10, 6, 8, 49, 37);
  const now = Date.UTC(2026, 0, 1);

  it("reads an HTTP date in RFC 9110's three forms, and nothing else", () => {
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT', now)).toBe(example);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', now)).toBe(example);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994', now)).toBe(example);
    // An RFC 850 year more than 50 years ahead is the last past one with those digits.
    expect(parseHttpDate('Friday, 01-Jan-76 00:00:00 GMT', now)).toBe(Date.UTC(2076, 0, 1));
    expect(parseHttpDate('Thursday, 01-Jan-77 00:00:00 GMT', now)).toBe(Date.UTC(1977, 0, 1));
    for (const value of [
      '',
      '0',
      '1',
      '2040',
      'foo 2001',
      'Tue, 1 Jan 2008',
      '1994-11-06T08:49:37Z',
      '+275760-09-13T00:00:00.000Z',
      'Sat, 01 Jan 10000 00:00:00 GMT',
      'sun, 06 nov 1994 08:49:37 gmt',
      'Sun, 06 Nov 1994 08:49:37 UTC',
      'Sun, 06 Nov 1994 08:49:37 +0000',
      ' Sun, 06 Nov 1994 08:49:37 GMT',
      'Sun, 31 Feb 1994 08:49:37 GMT',
      'Sun, 00 Nov 1994 08:49:37 GMT',
      'Sun, 06 Nov 1994 24:00:00 GMT',
      'Sun, 06 Nov 1994 08:60:00 GMT',
    ])
      expect(parseHttpDate(value, now), value).toBeUndefined();
  });

  it('spells a time SigV4 cannot (beyond the year 9999, invalid) as the auth error signing_failed', () => {
    expect(signingDateOf(Date.UTC(9999, 11, 31, 23, 59, 59))).toBe('99991231T235959Z');
    for (const time of [Date.UTC(10000, 0, 1), -1e14, 8.64e15, 8.64e15 + 1, Number.NaN])
      expect(() => signingDateOf(time)).toThrow(
        expect.objectContaining({ errorClass: 'auth', providerCode: 'signing_failed' }),
      );
  });

  it('a signing failure is the classified auth error, before anything is sent, never a RangeError', async () => {
    const auth = new BedrockAuth({ credentials, env: {} }, undefined, new SigningClock(() => 8.64e15 + 1));
    const input = {
      method: 'POST',
      url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse',
      headers: {},
      body: '{}',
    };
    const error = await auth.authorize(input, false, 'us-east-1').catch((reason: unknown) => reason);
    expect(error).not.toBeInstanceOf(RangeError);
    expect(error).toMatchObject({ errorClass: 'auth', providerCode: 'signing_failed' });
  });
});
