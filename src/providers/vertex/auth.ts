/**
 * Vertex AI credentials, resolved before every request: an express-mode API key
 * (`x-goog-api-key`), else an OAuth access token from `getAccessToken`, else Application Default
 * Credentials (service-account JSON, workload identity, gcloud) through the optional peer
 * `google-auth-library`, imported on first use. Tokens are reused until a minute before expiry, and
 * fetched once for all the calls that need one at the same time; a 401/403 answering a reused token
 * drops it and asks the source once more (`forceRefresh`).
 */
import { AuthError } from '../../core/errors/auth-error.ts';
import { InvalidRequestError } from '../../core/errors/invalid-request-error.ts';
import { registerConfiguredSecrets, registerSecrets } from '../../core/redaction.ts';
import type { Authorization } from '../common/definition.ts';
import { type AccessToken, authPeer, type VertexOptions } from './options.ts';

/** Loads ADC's token function; replaced in tests to simulate a missing peer. */
export type TokenLoader = () => Promise<() => Promise<AccessToken>>;

/** Imports `google-auth-library` (an optional peer) and returns a token function over ADC. */
export const loadDefaultCredentials: TokenLoader = async () => {
  const name = authPeer;
  const library = (await import(name)) as {
    GoogleAuth: new (options: { scopes: string[] }) => {
      getAccessToken(): Promise<string | null | undefined>;
    };
  };
  const auth = new library.GoogleAuth({ scopes: ['https://www.googleapis.com/auth/cloud-platform'] });
  return async () => {
    const token = await auth.getAccessToken();
    if (typeof token !== 'string' || token === '') throw new Error('no access token');
    return token;
  };
};

/** Reuse margin before a token's expiry. */
const expiryMarginMs = 60_000;

/** The per-request credential resolver of one adapter. */
export class VertexAuth {
  private readonly options: VertexOptions;
  private readonly loadPeer: TokenLoader;
  private readonly apiKey: string | undefined;
  private cached: { token: string; expiresAt: number } | undefined;
  private adc: Promise<() => Promise<AccessToken>> | undefined;
  /** The token being fetched, shared by the calls that need one meanwhile (`refresh`: a forced fetch). */
  private fetching: { refresh: boolean; token: Promise<string> } | undefined;
  private readonly now: () => number;
  private readonly problem: string | undefined;

  /** @param problem why the endpoint cannot be named (a malformed project or location): every call is refused. */
  constructor(
    options: VertexOptions,
    apiKey: string | undefined,
    loadPeer: TokenLoader = loadDefaultCredentials,
    now = Date.now,
    problem?: string,
  ) {
    this.options = options;
    this.apiKey = apiKey;
    this.loadPeer = loadPeer;
    this.now = now;
    this.problem = problem;
    // Registered as secrets: an upstream echoing the header back never gets it printed in an error.
    registerConfiguredSecrets(this, [apiKey]);
  }

  async authorize(refresh: boolean): Promise<Authorization> {
    if (this.problem !== undefined)
      throw new InvalidRequestError({
        message: `vertex: ${this.problem}`,
        provider: 'vertex',
        providerCode: 'invalid_endpoint',
      });
    if (this.apiKey !== undefined) return { headers: { 'x-goog-api-key': this.apiKey }, refreshable: false };
    if (refresh) this.cached = undefined;
    if (this.cached !== undefined && this.cached.expiresAt - expiryMarginMs > this.now()) {
      // Registered again with each request that sends it: a token in use stays among the most recent.
      registerSecrets([this.cached.token]);
      return { headers: { authorization: `Bearer ${this.cached.token}` }, refreshable: true };
    }
    const value = await this.fetchToken(refresh);
    // Fresh from the source: a refusal is not a stale token, so it is not refreshed again.
    return { headers: { authorization: `Bearer ${value}` }, refreshable: false };
  }

  /**
   * One fetch at a time: the calls that need a token while one is being fetched share it (ten
   * calls at a cold start ask the source once). A forced refresh shares only a forced fetch: an
   * ordinary one may answer the source's cached token, the one just refused.
   */
  private fetchToken(refresh: boolean): Promise<string> {
    const current = this.fetching;
    if (current !== undefined && (current.refresh || !refresh)) return current.token;
    const token: Promise<string> = this.fetchOnce(refresh).finally(() => {
      if (this.fetching?.token === token) this.fetching = undefined;
    });
    this.fetching = { refresh, token };
    return token;
  }

  /** Asks the token source once; a token with an expiry is kept for reuse. */
  private async fetchOnce(refresh: boolean): Promise<string> {
    const source = this.options.getAccessToken ?? (await this.defaultCredentials());
    let token: AccessToken;
    try {
      token = await source({ forceRefresh: refresh });
    } catch (error) {
      throw new AuthError({
        message: `vertex: could not get an access token (${error instanceof Error ? error.name : 'error'})`,
        provider: 'vertex',
        providerCode: 'not_configured',
      });
    }
    const value = typeof token === 'string' ? token : (token as { token?: unknown } | null)?.token;
    if (typeof value !== 'string' || value === '' || /[^\x21-\x7e]/.test(value))
      throw new AuthError({
        message: 'vertex: the access token is empty or malformed (not shown)',
        provider: 'vertex',
        providerCode: 'invalid_api_key_format',
      });
    registerSecrets([value]);
    const expiresAt =
      typeof token === 'string' ? undefined : (token as { expiresAt?: Date | number }).expiresAt;
    this.cached = expiresAt === undefined ? undefined : { token: value, expiresAt: Number(expiresAt) };
    return value;
  }

  private async defaultCredentials(): Promise<(options: { forceRefresh: boolean }) => Promise<AccessToken>> {
    this.adc ??= this.loadPeer().catch(() => {
      this.adc = undefined;
      throw new AuthError({
        message: `vertex: no credentials: pass apiKey (express mode) or getAccessToken, or install ${authPeer} for Application Default Credentials (npm install ${authPeer})`,
        provider: 'vertex',
        providerCode: 'not_configured',
      });
    });
    return this.adc;
  }
}
