/** Vertex credentials: express key, `getAccessToken` with expiry-aware reuse, and the optional ADC peer. */
import { describe, expect, it } from 'vitest';
import { VertexAuth } from './auth.ts';
import { resolveSetup } from './definition.ts';

const peerMissing = () => Promise.reject(new Error("Cannot find package 'google-auth-library'"));

describe('Vertex credentials', () => {
  it('an express-mode API key is sent as x-goog-api-key and never refreshed', async () => {
    const auth = new VertexAuth({}, 'AIzaExpressKey', peerMissing);
    expect(await auth.authorize(false)).toEqual({
      headers: { 'x-goog-api-key': 'AIzaExpressKey' },
      refreshable: false,
    });
  });

  it('a token with an expiry is reused until a minute before it, then fetched again', async () => {
    let now = 1_000_000;
    let calls = 0;
    const getAccessToken = async () => ({ token: `ya29.t${++calls}`, expiresAt: now + 120_000 });
    const auth = new VertexAuth({ getAccessToken }, undefined, peerMissing, () => now);
    expect((await auth.authorize(false)).headers.authorization).toBe('Bearer ya29.t1');
    now += 30_000;
    expect(await auth.authorize(false)).toEqual({
      headers: { authorization: 'Bearer ya29.t1' },
      refreshable: true,
    });
    now += 40_000; // 50 s before expiry: inside the one-minute margin
    expect((await auth.authorize(false)).headers.authorization).toBe('Bearer ya29.t2');
    expect((await auth.authorize(true)).headers.authorization).toBe('Bearer ya29.t3');
  });

  it('calls that need a token at the same time share one fetch; a forced refresh does not share an ordinary one', async () => {
    const asked: boolean[] = [];
    const pending: Array<() => void> = [];
    const getAccessToken = async (options?: { forceRefresh?: boolean }) => {
      const fetch = asked.push(options?.forceRefresh === true);
      await new Promise<void>((resolve) => pending.push(resolve));
      return { token: `ya29.t${fetch}`, expiresAt: Date.now() + 3_600_000 };
    };
    const auth = new VertexAuth({ getAccessToken }, undefined, peerMissing);
    const cold = Array.from({ length: 10 }, () => auth.authorize(false));
    await new Promise((resolve) => setImmediate(resolve));
    const forced = auth.authorize(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toEqual([false, true]);
    for (const release of pending) release();
    const headers = (await Promise.all(cold)).map((answer) => answer.headers.authorization);
    expect(new Set(headers)).toEqual(new Set(['Bearer ya29.t1']));
    expect((await forced).headers.authorization).toBe('Bearer ya29.t2');
  });

  it('a failed shared fetch fails every call that waited on it, and the next call asks again', async () => {
    let calls = 0;
    const getAccessToken = async () => {
      calls++;
      await new Promise((resolve) => setImmediate(resolve));
      if (calls === 1) throw new Error('metadata server down');
      return 'ya29.later';
    };
    const auth = new VertexAuth({ getAccessToken }, undefined, peerMissing);
    const failed = await Promise.allSettled([auth.authorize(false), auth.authorize(false)]);
    expect(failed.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(1);
    expect((await auth.authorize(false)).headers.authorization).toBe('Bearer ya29.later');
  });

  it('without a key, a token function or the optional peer: not_configured naming the package (no import crash)', async () => {
    const error = await new VertexAuth({}, undefined, peerMissing)
      .authorize(false)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorClass: 'auth', providerCode: 'not_configured' });
    expect((error as Error).message).toContain('npm install google-auth-library');
  });

  it('a token source that fails is not_configured, its error not quoted', async () => {
    const getAccessToken = () => Promise.reject(new Error('refresh token ya29.secret revoked'));
    const error = await new VertexAuth({ getAccessToken }, undefined, peerMissing)
      .authorize(false)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorClass: 'auth', providerCode: 'not_configured' });
    expect((error as Error).message).not.toContain('ya29.secret');
  });

  it('the endpoint: a project and location, the global host, or express mode without a project', () => {
    expect(resolveSetup({ project: 'p', location: 'us-east5', env: {} }).baseURL).toBe(
      'https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5',
    );
    expect(resolveSetup({ env: { GOOGLE_CLOUD_PROJECT: 'q' } }).baseURL).toBe(
      'https://aiplatform.googleapis.com/v1/projects/q/locations/global',
    );
    expect(resolveSetup({ env: { GOOGLE_VERTEX_API_KEY: 'AIzaKey' } })).toEqual({
      baseURL: 'https://aiplatform.googleapis.com/v1',
      apiKey: 'AIzaKey',
      express: true,
    });
  });
});
