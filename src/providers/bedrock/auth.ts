/**
 * Bedrock credentials and request signing. First match wins, resolved before every request: a
 * bearer token (`apiKey`, `AWS_BEARER_TOKEN_BEDROCK`: no signing), the `credentials` option,
 * `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN` (after the default chain when
 * `AWS_PROFILE` is set and the chain is installed, as the AWS SDK for JavaScript v3 does), then the
 * AWS default chain through the optional peer
 * `@aws-sdk/credential-providers`, imported on first use. SigV4 signing
 * is `aws4fetch`'s (service `bedrock`), at the time of the adapter's {@link SigningClock} (the local
 * clock corrected by what AWS's clock-skew refusals showed).
 */
import { AwsV4Signer } from 'aws4fetch';
import { AdapterError } from '../../core/errors/adapter-error.ts';
import { AuthError } from '../../core/errors/auth-error.ts';
import { InvalidRequestError } from '../../core/errors/invalid-request-error.ts';
import { registerConfiguredSecrets, registerSecrets } from '../../core/redaction.ts';
import type { Authorization, AuthorizeInput } from '../common/definition.ts';
import { amzDateOf, SigningClock } from './clock.ts';
import { isRegion } from './model-id.ts';
import {
  type AwsCredentialProvider,
  type AwsCredentials,
  bearerTokenVariable,
  type BedrockOptions,
  credentialPeer,
  partitionOf,
  placeholderRegion,
} from './options.ts';

/** Where credentials come from, resolved once per request. */
type Resolved = { bearer: string } | { credentials: AwsCredentials; refreshable: boolean };

/** Loads the default chain's provider; replaced in tests to simulate a missing peer. */
export type PeerLoader = () => Promise<AwsCredentialProvider>;

/** Imports `@aws-sdk/credential-providers` (an optional peer) and returns its Node default chain. */
export const loadDefaultChain: PeerLoader = async () => {
  const name = credentialPeer;
  // A variable specifier: bundlers and the type checker leave the optional peer alone.
  const peer = (await import(name)) as { fromNodeProviderChain(): AwsCredentialProvider };
  return peer.fromNodeProviderChain();
};

const nonEmpty = (value: string | undefined) =>
  value === undefined || value.trim() === '' ? undefined : value.trim();

/** The per-request credential resolver of one adapter. */
export class BedrockAuth {
  private readonly options: BedrockOptions;
  private readonly loadPeer: PeerLoader;
  private chain: Promise<AwsCredentialProvider> | undefined;
  /** The time signatures carry: corrected after AWS refuses one for a skewed clock. */
  readonly clock: SigningClock;

  constructor(options: BedrockOptions, loadPeer: PeerLoader = loadDefaultChain, clock = new SigningClock()) {
    this.options = options;
    this.loadPeer = loadPeer;
    this.clock = clock;
    // The key and fixed credentials given are known to every redaction while this resolver lives:
    // the adapter's definition holds it, and so does every call in flight, the adapter dropped or not
    // (those resolved per request are registered as they are sent, among the bounded rotating ones).
    const given = typeof options.credentials === 'object' ? options.credentials : undefined;
    registerConfiguredSecrets(this, [
      options.apiKey,
      given?.accessKeyId,
      given?.secretAccessKey,
      given?.sessionToken,
    ]);
  }

  private get env(): Record<string, string | undefined> {
    return this.options.env ?? process.env;
  }

  /** The region of the adapter: the option, else `AWS_REGION` / `AWS_DEFAULT_REGION`. */
  region(): string | undefined {
    return (
      nonEmpty(this.options.region) ?? nonEmpty(this.env.AWS_REGION) ?? nonEmpty(this.env.AWS_DEFAULT_REGION)
    );
  }

  /**
   * The credentials of one request, checked (strings of printable characters) and registered as
   * secrets, so an upstream that echoes a header back never gets them printed in an error.
   */
  private async resolve(refresh: boolean): Promise<Resolved> {
    const resolved = await this.source(refresh);
    if ('bearer' in resolved) {
      if (/[^\x21-\x7e]/.test(resolved.bearer)) throw malformed('the bearer token');
      registerSecrets([resolved.bearer]);
      return resolved;
    }
    const { accessKeyId, secretAccessKey, sessionToken } = (resolved.credentials ??
      {}) as Partial<AwsCredentials>;
    if (!isPrintable(accessKeyId) || !isPrintable(secretAccessKey)) throw malformed('the AWS access key');
    if (sessionToken !== undefined && !isPrintable(sessionToken)) throw malformed('the AWS session token');
    // The key id too: it names the account's key, and the signed `Credential=` echoes it verbatim.
    registerSecrets([accessKeyId, secretAccessKey, sessionToken]);
    return resolved;
  }

  private async source(refresh: boolean): Promise<Resolved> {
    const bearer = nonEmpty(this.options.apiKey) ?? nonEmpty(this.env[bearerTokenVariable]);
    if (bearer !== undefined) return { bearer };
    const given = this.options.credentials;
    if (typeof given === 'function') {
      try {
        return { credentials: await given({ forceRefresh: refresh }), refreshable: true };
      } catch (error) {
        throw new AuthError({
          message: `bedrock: the credentials function failed (${error instanceof Error ? error.name : 'error'})`,
          provider: 'bedrock',
          providerCode: 'not_configured',
        });
      }
    }
    if (given !== undefined) return { credentials: given, refreshable: false };
    const fromEnv = this.environmentKeys();
    // With AWS_PROFILE set, the profile's identity first, as the AWS SDK for JavaScript v3 chooses
    // ("AWS_PROFILE is set, skipping fromEnv provider"); botocore (the AWS CLI, boto3) takes the
    // environment keys first. Without the chain installed, the environment keys still sign.
    const profile = fromEnv !== undefined && nonEmpty(this.env.AWS_PROFILE) !== undefined;
    if (fromEnv !== undefined && !profile) return { credentials: fromEnv, refreshable: false };
    let provider: AwsCredentialProvider;
    try {
      provider = await this.defaultChain();
    } catch (error) {
      if (profile) return { credentials: fromEnv!, refreshable: false };
      throw error;
    }
    try {
      return { credentials: await provider({ forceRefresh: refresh }), refreshable: true };
    } catch (error) {
      throw new AuthError({
        message: `bedrock: the AWS default credential chain found no credentials (${error instanceof Error ? error.name : 'error'})`,
        provider: 'bedrock',
        providerCode: 'not_configured',
      });
    }
  }

  /** `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN`, when both keys are set. */
  private environmentKeys(): AwsCredentials | undefined {
    const accessKeyId = nonEmpty(this.env.AWS_ACCESS_KEY_ID);
    const secretAccessKey = nonEmpty(this.env.AWS_SECRET_ACCESS_KEY);
    if (accessKeyId === undefined || secretAccessKey === undefined) return undefined;
    const sessionToken = nonEmpty(this.env.AWS_SESSION_TOKEN);
    return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
  }

  private defaultChain(): Promise<AwsCredentialProvider> {
    this.chain ??= this.loadPeer().catch(() => {
      this.chain = undefined;
      throw new AuthError({
        message: `bedrock: no AWS credentials: set ${bearerTokenVariable}, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, pass credentials, or install ${credentialPeer} for the AWS default chain (npm install ${credentialPeer})`,
        provider: 'bedrock',
        providerCode: 'not_configured',
      });
    });
    return this.chain;
  }

  /**
   * Headers for one attempt: `authorization: Bearer …`, or the SigV4 headers of the request with
   * the time they were signed at (`signedAt`, which a clock-skew refusal of the attempt is judged against).
   * `host` is the region the URL's AWS host names (`bedrock-runtime.{region}.amazonaws.com`, China's
   * `.amazonaws.com.cn`), or
   * undefined for another host (a proxy, a VPC endpoint, the emulator).
   */
  async authorize(input: AuthorizeInput, refresh: boolean, host: string | undefined): Promise<Authorization> {
    // First, whatever the credentials: the configured region is also the runtime host's name, and
    // one that is not a region name (`x@evil.example/`) would send a bearer token to another host.
    const configured = this.region();
    if (configured !== undefined && !isRegion(configured)) throw invalidRegion(configured);
    // An AWS host whose region label is no region (the placeholder of an adapter without a region)
    // is never sent a credential: nothing answers there but a DNS failure, retried as a network one.
    if (host !== undefined && !isRegion(host))
      throw host === placeholderRegion && configured === undefined ? missingRegion() : invalidRegion(host);
    const resolved = await this.resolve(refresh);
    if ('bearer' in resolved)
      return { headers: { authorization: `Bearer ${resolved.bearer}` }, refreshable: false };
    // The signing scope names the region: the host's, else the adapter's.
    const region = host ?? configured;
    if (region === undefined) throw missingRegion();
    try {
      const signedAt = this.clock.now();
      const headers = await signRequest(input, resolved.credentials, region, {
        datetime: amzDateOf(signedAt),
      });
      return { headers, refreshable: resolved.refreshable, signedAt };
    } catch (error) {
      throw signingFailed(error);
    }
  }
}

/**
 * A failure to sign (a time SigV4 cannot spell, the signer's own error) as the `auth` error
 * `signing_failed`, never an unclassified `RangeError`: nothing was sent. Only the error's name is
 * kept from a foreign error: the signer's inputs include the secret key.
 */
function signingFailed(error: unknown): unknown {
  if (AdapterError.isInstance(error)) return error;
  return new AuthError({
    message: `bedrock: could not sign the request (${error instanceof Error ? error.name : 'error'})`,
    provider: 'bedrock',
    providerCode: 'signing_failed',
  });
}

/** A region written where one is read (the option, `AWS_REGION`, an ARN's) that is not a region name. */
export function invalidRegion(region: string): InvalidRequestError {
  return new InvalidRequestError({
    message: `bedrock: ${JSON.stringify(region.slice(0, 40))} is not an AWS region name (e.g. us-east-1)`,
    provider: 'bedrock',
    providerCode: 'invalid_region',
  });
}

/**
 * An ARN whose partition is not its region's (`arn:aws:bedrock:cn-north-1:…`) or not one served
 * (`aws-iso`): its endpoint's DNS suffix is unknown, so nothing is sent.
 */
export function foreignPartition(partition: string, region: string): InvalidRequestError {
  return new InvalidRequestError({
    message: `bedrock: the ARN's partition ${JSON.stringify(partition.slice(0, 40))} is not region ${region}'s (${partitionOf(region)}); Bedrock is called in aws, aws-cn (cn-*) and aws-us-gov (us-gov-*)`,
    provider: 'bedrock',
    providerCode: 'invalid_region',
  });
}

/**
 * No region anywhere: not the option, `AWS_REGION` / `AWS_DEFAULT_REGION`, nor the call's ARN. A
 * configuration mistake, refused before any credential is sent and never retried (the AWS SDKs'
 * "Region is missing").
 */
export function missingRegion(): AuthError {
  return new AuthError({
    message:
      'bedrock: no AWS region: set the region option or AWS_REGION (or AWS_DEFAULT_REGION), or name the model by an ARN that carries its region; nothing was sent',
    provider: 'bedrock',
    providerCode: 'not_configured',
  });
}

const isPrintable = (value: unknown): value is string =>
  typeof value === 'string' && value !== '' && !/[^\x21-\x7e]/.test(value);

function malformed(what: string): AuthError {
  return new AuthError({
    message: `bedrock: ${what} is empty, not a string, or contains whitespace or non-printable characters (not shown)`,
    provider: 'bedrock',
    providerCode: 'invalid_api_key_format',
  });
}

/** How {@link signRequest} signs: defaults are Bedrock's (service `bedrock`, the path encoded twice, now). */
export interface SigningSettings {
  /** `YYYYMMDDTHHMMSSZ`; default now. */
  datetime?: string;
  service?: string;
  /** Encode the path once for the canonical request (S3, and AWS's generic test suite); default false. */
  singleEncode?: boolean;
  /** Sign every header given, `content-type` included (aws4fetch leaves it out by default). */
  allHeaders?: boolean;
}

/**
 * SigV4 headers (`authorization`, `x-amz-date`, `x-amz-security-token`) for `input`, service
 * `bedrock`. The path is taken as sent (already encoded per segment) and encoded again for the
 * canonical request, as every AWS service but S3 requires.
 */
export async function signRequest(
  input: AuthorizeInput,
  credentials: AwsCredentials,
  region: string,
  settings: SigningSettings = {},
): Promise<Record<string, string>> {
  const { datetime, service = 'bedrock', singleEncode = false, allHeaders = false } = settings;
  const signer = new AwsV4Signer({
    method: input.method,
    url: input.url,
    headers: input.headers,
    body: input.body,
    accessKeyId: credentials.accessKeyId,
    secretAccessKey: credentials.secretAccessKey,
    sessionToken: credentials.sessionToken,
    service,
    region,
    singleEncode,
    allHeaders,
    ...(datetime === undefined ? {} : { datetime }),
  });
  const signed = await signer.sign();
  const headers: Record<string, string> = {};
  for (const name of ['authorization', 'x-amz-date', 'x-amz-security-token', 'x-amz-content-sha256']) {
    const value = signed.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return headers;
}
