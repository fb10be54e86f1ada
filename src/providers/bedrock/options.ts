/** Options of `createBedrock`, the AWS credential shapes and the per-request `providerOptions.bedrock`. */
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { AdapterOptions, CredentialSource } from '../common/options.ts';
import { isRegion } from './model-id.ts';
import { providerTable } from '../common/provider-table.ts';

/** The bearer-token variable (Bedrock API keys): sent as `authorization: Bearer`, no signing. */
export const bearerTokenVariable = providerTable.bedrock.keyVariables[0];

/** Region variables, in order. */
export const regionVariables = ['AWS_REGION', 'AWS_DEFAULT_REGION'] as const;

/** The optional peer that provides the AWS default credential chain. */
export const credentialPeer = '@aws-sdk/credential-providers';

/** Static AWS credentials. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** A source of credentials, asked before every request (so rotated credentials work). */
export type AwsCredentialProvider = (options?: { forceRefresh?: boolean }) => Promise<AwsCredentials>;

/** Options of `createBedrock`. */
export interface BedrockOptions extends AdapterOptions {
  /**
   * A Bedrock API key (bearer token); default `AWS_BEARER_TOKEN_BEDROCK`. Wins over every other
   * credential: requests are then not signed.
   */
  apiKey?: string;
  /** AWS region; default `AWS_REGION`, else `AWS_DEFAULT_REGION`, else the region of an ARN model id. */
  region?: string;
  /**
   * Credentials for SigV4 signing (after a bearer token): static keys or a provider function.
   * Without them: `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN` (after the chain's
   * profile when `AWS_PROFILE` is set and the chain is installed, as the AWS SDK for JavaScript v3), then the AWS default chain through the optional peer
   * `@aws-sdk/credential-providers`.
   */
  credentials?: AwsCredentials | AwsCredentialProvider;
  /**
   * `converse` (default): Converse / ConverseStream for every model. `invoke`: InvokeModel /
   * `invoke-with-response-stream` with the native Anthropic Messages body (Claude models only).
   */
  protocol?: 'converse' | 'invoke';
  /** Environment read for credentials and region (default `process.env`), per request. */
  env?: Record<string, string | undefined>;
}

/**
 * What `request.providerOptions.bedrock` may carry: `body`, fields merged into the Converse body
 * last (`guardrailConfig`, `performanceConfig`, `requestMetadata`, `promptVariables`,
 * `additionalModelResponseFieldPaths`).
 */
export interface BedrockProviderOptions {
  body?: JsonObject;
}

/** Reads `request.providerOptions.bedrock`, keeping only well-typed fields. */
export function readProviderOptions(request: CanonicalRequest): BedrockProviderOptions {
  const raw = request.providerOptions?.bedrock;
  if (!isJsonObject(raw)) return {};
  return isJsonObject(raw.body) ? { body: raw.body as JsonObject } : {};
}

/** The runtime reads no key itself: credentials are resolved per request by `authorize`. */
export const bedrockCredentials: CredentialSource = {
  apiKeyVariables: [],
  apiKeyRequired: false,
  baseURLVariables: [{ name: 'BEDROCK_BASE_URL' }],
};

/** The host label standing for a region that is missing or not a region name: never sent anything. */
export const placeholderRegion = 'invalid-region';

/** The AWS partitions whose endpoints Bedrock calls are sent to. */
export type Partition = 'aws' | 'aws-cn' | 'aws-us-gov';

/** The partition of a region name: China's `cn-*`, GovCloud's `us-gov-*`, the others `aws`. */
export function partitionOf(region: string): Partition {
  if (region.startsWith('cn-')) return 'aws-cn';
  return region.startsWith('us-gov-') ? 'aws-us-gov' : 'aws';
}

/** The DNS suffix of a partition's endpoints (AWS's partition table: only China's differs). */
const dnsSuffixes: Readonly<Record<Partition, string>> = {
  aws: 'amazonaws.com',
  'aws-cn': 'amazonaws.com.cn',
  'aws-us-gov': 'amazonaws.com',
};

/**
 * The Bedrock runtime endpoint of a region, under its partition's DNS suffix
 * (`bedrock-runtime.cn-north-1.amazonaws.com.cn`). A value that is not a region name never becomes
 * a host (`x@evil.example/` would): it names AWS's domain only, and the call is refused before it
 * is sent (`BedrockAuth.authorize`); the suffix is one of the table's, never the caller's text.
 */
export function endpointOf(region: string): string {
  const name = isRegion(region) ? region : placeholderRegion;
  return `https://bedrock-runtime.${name}.${dnsSuffixes[partitionOf(name)]}`;
}
