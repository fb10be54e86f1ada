/**
 * `switchyard-ai/bedrock`: the AWS Bedrock adapter (`bedrock:<model id or ARN>`). Like every
 * provider entry it exports the factory, its options type and the per-request
 * `providerOptions.bedrock` type, nothing else.
 */
import type { Adapter } from '../../core/adapter.ts';
import { createHttpAdapter } from '../common/http-adapter.ts';
import { createBedrockDefinition } from './definition.ts';
import { type BedrockOptions, bedrockCredentials } from './options.ts';

export type { BedrockOptions, BedrockProviderOptions } from './options.ts';

/**
 * Creates the Bedrock adapter (never throws for missing credentials). Credentials are resolved
 * before every request, first match wins: `apiKey` / `AWS_BEARER_TOKEN_BEDROCK` (bearer), the
 * `credentials` option, `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN` (after
 * the chain's profile when `AWS_PROFILE` is set and the chain is installed, as the AWS SDK for
 * JavaScript v3 does), then the AWS default chain (optional peer `@aws-sdk/credential-providers`); without any, a call fails
 * with an `AuthError` (`not_configured`) naming them, before any HTTP call — as does a call with no
 * region (`region`, `AWS_REGION` / `AWS_DEFAULT_REGION`, nor its ARN's). Requests are SigV4-signed
 * (service `bedrock`) unless a bearer token is used. `protocol: 'invoke'` sends Claude models through
 * InvokeModel with the Anthropic Messages body.
 *
 * @example
 * const bedrock = createBedrock({ region: 'us-east-1' });
 * const response = await bedrock.complete({
 *   model: 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0',
 *   transcript: [userText('Hello')],
 *   maxOutputTokens: 1024,
 * });
 */
export function createBedrock(options: BedrockOptions = {}): Adapter {
  // The key and fixed credentials given here are kept for redaction by the definition's
  // `BedrockAuth`, which every call in flight holds (`auth.ts`).
  return createHttpAdapter(createBedrockDefinition(options), {
    ...options,
    apiKey: undefined,
    credentials: bedrockCredentials,
  });
}
