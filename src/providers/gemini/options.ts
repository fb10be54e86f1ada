/** Options of `createGemini` and the per-request `providerOptions.gemini` pass-through. */
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { AdapterOptions, CredentialSource } from '../common/options.ts';
import { providerTable } from '../common/provider-table.ts';

/** The Gemini API endpoint (Google AI Studio keys). */
export const defaultBaseURL = providerTable.gemini.baseURL;

/** Environment variables read for the API key, in order. */
export const apiKeyVariables = providerTable.gemini.keyVariables;

/** Options of `createGemini`. */
export interface GeminiOptions extends AdapterOptions {
  /**
   * How tool and output schemas are sent. `'auto'` (default): verbatim as full JSON Schema
   * (`parametersJsonSchema`, `responseJsonSchema`) to the models that take it (Gemini 2.5 and later,
   * on the `v1beta` API), so `z.toJSONSchema` output (exclusive bounds, records, tuples, recursion)
   * works as is; converted to the OpenAPI 3.0 subset (`parameters`, `responseSchema`) for older
   * models and for a `/v1` base URL. `true` / `false` force one way. On the converter path a keyword
   * the subset cannot express fails the call with an `InvalidRequestError` before any request.
   */
  useJsonSchema?: boolean | 'auto';
}

/**
 * What `request.providerOptions.gemini` may carry; each field is sent as is:
 * `safetySettings` (top-level), `generationConfig` (merged over the generated one), `tools`
 * (appended, e.g. `{ googleSearch: {} }` or `{ codeExecution: {} }`), and `functionCallingMode:
 * 'VALIDATED'` (the mode sent where the request's tool choice is `auto`).
 */
export interface GeminiProviderOptions {
  safetySettings?: JsonValue[];
  generationConfig?: JsonObject;
  tools?: JsonObject[];
  functionCallingMode?: 'VALIDATED';
}

/** Reads `request.providerOptions.gemini`, keeping only well-typed fields. */
export function readProviderOptions(request: CanonicalRequest): GeminiProviderOptions {
  const raw = request.providerOptions?.gemini;
  if (!isJsonObject(raw)) return {};
  const options: GeminiProviderOptions = {};
  if (Array.isArray(raw.safetySettings)) options.safetySettings = raw.safetySettings;
  if (isJsonObject(raw.generationConfig)) options.generationConfig = raw.generationConfig as JsonObject;
  if (Array.isArray(raw.tools)) options.tools = raw.tools.filter(isJsonObject) as JsonObject[];
  if (raw.functionCallingMode === 'VALIDATED') options.functionCallingMode = 'VALIDATED';
  return options;
}

/**
 * Where the key and endpoint come from: `GEMINI_API_KEY`, else `GOOGLE_API_KEY`; `GEMINI_BASE_URL`,
 * else `GOOGLE_GEMINI_BASE_URL` (Google's SDK convention: the host, `/v1beta` is appended).
 */
export const geminiCredentials: CredentialSource = {
  apiKeyVariables: apiKeyVariables,
  apiKeyRequired: true,
  baseURLVariables: providerTable.gemini.baseURLVariables,
};
