/** Options of `createVertex`: project, location, credentials (API key, access-token function, or Application Default Credentials). */
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { AdapterOptions, CredentialSource } from '../common/options.ts';
import { providerTable } from '../common/provider-table.ts';

/** The optional peer that provides Application Default Credentials. */
export const authPeer = 'google-auth-library';

/** Variables read for the project, in order. */
export const projectVariables = ['GOOGLE_CLOUD_PROJECT', 'GCLOUD_PROJECT', 'GOOGLE_VERTEX_PROJECT'] as const;

/** Variables read for the location, in order (default `global`). */
export const locationVariables = ['GOOGLE_CLOUD_LOCATION', 'GOOGLE_VERTEX_LOCATION'] as const;

/** The express-mode API key variable. */
export const apiKeyVariable = providerTable.vertex.keyVariables[0];

/** An access token, with its expiry when known (tokens are reused until a minute before it). */
export type AccessToken = string | { token: string; expiresAt?: Date | number };

/** Options of `createVertex`. */
export interface VertexOptions extends AdapterOptions {
  /**
   * Express-mode API key (`x-goog-api-key`); default `GOOGLE_VERTEX_API_KEY`. Gemini models only:
   * without a project (and no `baseURL` of your own), a model of another publisher (Claude,
   * Mistral, the MaaS open models) is refused before any request (`invalid_request`
   * `unsupported_model`).
   */
  apiKey?: string;
  /** Google Cloud project; default `GOOGLE_CLOUD_PROJECT`. */
  project?: string;
  /** Region (`us-east5`, `europe-west1`) or `global` (default; `GOOGLE_CLOUD_LOCATION`). */
  location?: string;
  /**
   * Returns an OAuth access token; called when no unexpired token is cached. Without it (and no
   * API key), Application Default Credentials through the optional peer `google-auth-library`.
   */
  getAccessToken?: (options: { forceRefresh: boolean }) => Promise<AccessToken>;
  /** Environment read for project, location and key (default `process.env`). */
  env?: Record<string, string | undefined>;
}

/**
 * What `request.providerOptions.vertex` may carry: `body`, fields merged into the request body last
 * (e.g. `labels`, `safetySettings`). Gemini options also come from `providerOptions.gemini`.
 */
export interface VertexProviderOptions {
  body?: JsonObject;
}

/** Reads `request.providerOptions.vertex`, keeping only well-typed fields. */
export function readProviderOptions(request: CanonicalRequest): VertexProviderOptions {
  const raw = request.providerOptions?.vertex;
  if (!isJsonObject(raw)) return {};
  return isJsonObject(raw.body) ? { body: raw.body as JsonObject } : {};
}

/** The runtime reads no key itself: credentials are resolved per request by `authorize`. */
export const vertexCredentials: CredentialSource = {
  apiKeyVariables: [],
  apiKeyRequired: false,
  baseURLVariables: [{ name: 'VERTEX_BASE_URL' }],
};

/** The endpoint of a project and location: `https://{location}-aiplatform.googleapis.com/v1/projects/{p}/locations/{l}`. */
export function endpointOf(project: string, location: string): string {
  const host = location === 'global' ? 'aiplatform.googleapis.com' : `${location}-aiplatform.googleapis.com`;
  return `https://${host}/v1/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(location)}`;
}

/** The express-mode endpoint (API key, no project). */
export const expressEndpoint = 'https://aiplatform.googleapis.com/v1';
