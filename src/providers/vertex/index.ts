/**
 * `switchyard-ai/vertex`: the Google Vertex AI adapter (`vertex:<model>`): Gemini models in Google's
 * `generateContent` protocol, Claude models in Anthropic's Messages protocol (`:rawPredict`), and
 * Mistral AI (`:rawPredict`) and the MaaS open models (`meta/llama-…`, the OpenAI-compatible
 * endpoint) in Chat Completions, each through Switchyard's own codec (the table: `publishers.ts`). Like every provider entry it exports the factory, its options
 * type and the per-request `providerOptions.vertex` type, nothing else.
 */
import type { Adapter } from '../../core/adapter.ts';
import { createHttpAdapter } from '../common/http-adapter.ts';
import { createVertexDefinition } from './definition.ts';
import { type VertexOptions, vertexCredentials } from './options.ts';

export type { VertexOptions, VertexProviderOptions } from './options.ts';

/**
 * Creates the Vertex adapter (never throws for missing credentials). The endpoint comes from
 * `project` / `location` (`GOOGLE_CLOUD_PROJECT`, `GOOGLE_CLOUD_LOCATION`, default `global`), or
 * `baseURL`. Credentials, resolved before every request: `apiKey` / `GOOGLE_VERTEX_API_KEY`
 * (express mode), else `getAccessToken()`, else Application Default Credentials through the
 * optional peer `google-auth-library`; without any, a call fails with an `AuthError`
 * (`not_configured`) naming the package. A 401/403 refreshes the token once, then fails `auth`.
 *
 * @example
 * const vertex = createVertex({ project: 'my-project', location: 'us-east5' });
 * const response = await vertex.complete({
 *   model: 'vertex:claude-sonnet-4-5@20250929',
 *   transcript: [userText('Hello')],
 *   maxOutputTokens: 1024,
 * });
 */
export function createVertex(options: VertexOptions = {}): Adapter {
  const definition = createVertexDefinition(options);
  return createHttpAdapter(definition, { ...options, apiKey: undefined, credentials: vertexCredentials });
}
