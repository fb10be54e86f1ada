/**
 * The Vertex AI ProviderDefinition: Gemini, Claude, Mistral AI and the MaaS open models, each in its
 * publisher's protocol at its publisher's endpoint (`publishers.ts`), with per-request OAuth.
 */
import type { ModelInfo } from '../../core/adapter.ts';
import type { ProviderDefinition } from '../common/definition.ts';
import { resolveBaseURL } from '../common/options.ts';
import { VertexAuth, type TokenLoader } from './auth.ts';
import { capabilitiesFor } from './capabilities.ts';
import { errorRules, parseErrorBody } from './errors.ts';
import { publisherOf } from './model-id.ts';
import {
  apiKeyVariable,
  endpointOf,
  expressEndpoint,
  locationVariables,
  projectVariables,
  type VertexOptions,
  vertexCredentials,
} from './options.ts';
import { expressRefusal, findModel } from './publishers.ts';
import { buildRequest } from './request.ts';
import { parseResponse } from './response.ts';
import { createStreamParser } from './stream.ts';
import { estimateInputTokens } from './tokens.ts';
import { buildCountRequest, parseTokenCount } from './count-tokens.ts';

const nonEmpty = (value: string | undefined) =>
  value === undefined || value.trim() === '' ? undefined : value.trim();

function firstOf(env: Record<string, string | undefined>, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = nonEmpty(env[name]);
    if (value !== undefined) return value;
  }
  return undefined;
}

/**
 * Where `publishers.models.list` lives: it has no project or location in its path and exists in
 * v1beta1 only (`GET /v1beta1/publishers/google/models`), so a Google endpoint
 * (`…aiplatform.googleapis.com/v1[/projects/{p}/locations/{l}]`) becomes its `/v1beta1` root; any
 * other base URL (a proxy, the emulator) stays as it is.
 */
export function modelListBaseOf(baseURL: string): string {
  return baseURL.replace(
    /^(https:\/\/(?:[a-z0-9-]+-)?aiplatform\.googleapis\.com)\/v1(?:\/projects\/[^/]+\/locations\/[^/]+)?$/,
    '$1/v1beta1',
  );
}

/** `GET /v1beta1/publishers/google/models` → model infos (`vertex:<name>`). */
export function parseModelList(body: unknown): ModelInfo[] {
  const models = (body as { publisherModels?: unknown } | null)?.publisherModels;
  if (!Array.isArray(models)) return [];
  return models.flatMap((model): ModelInfo[] => {
    const name = (model as { name?: unknown } | null)?.name;
    if (typeof name !== 'string') return [];
    const short = name.split('/').at(-1) ?? name;
    return [{ id: `vertex:${short}`, name: short }];
  });
}

/** Where one adapter sends its calls and how it authenticates. */
export interface VertexSetup {
  baseURL: string;
  apiKey: string | undefined;
  /**
   * Express mode: an API key, no project, and Google's express endpoint (no base URL of the
   * user's): Gemini only, other publishers are refused. A base URL the user chose (an option or
   * `VERTEX_BASE_URL`: a proxy, a project endpoint) is theirs to route, as the runtime lets it.
   */
  express: boolean;
  /** Why the project or location cannot name an endpoint (every call is refused with it). */
  problem?: string;
}

/** A project id or number (legacy `example.com:id` ones too); never `.` or `..` (a path step). */
const projectPattern = /^[a-z0-9][a-z0-9.:_-]{0,99}$/i;
/** A location is one DNS label (`global`, `us-east5`, `europe-west1`): no dot, colon or slash. */
const locationPattern = /^[a-z][a-z0-9-]{0,62}$/;

/**
 * The endpoint: `{location}-aiplatform.googleapis.com/v1/projects/{p}/locations/{l}` with a project,
 * else the express-mode endpoint (API key, Gemini only: `express` when a key is set and the user
 * chose no base URL).
 */
export function resolveSetup(options: VertexOptions): VertexSetup {
  const env = options.env ?? process.env;
  const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(env[apiKeyVariable]);
  const project = nonEmpty(options.project) ?? firstOf(env, projectVariables);
  const location = nonEmpty(options.location) ?? firstOf(env, locationVariables) ?? 'global';
  if (project === undefined) {
    const chosenBase = nonEmpty(options.baseURL) ?? resolveBaseURL(vertexCredentials.baseURLVariables, env);
    return { baseURL: expressEndpoint, apiKey, express: apiKey !== undefined && chosenBase === undefined };
  }
  // The location is the host's first label and both are path segments: a value outside their
  // grammar (`127.0.0.1:8080/steal?`, `..`) would steer the call, and its token, elsewhere.
  const problem = !locationPattern.test(location)
    ? `${JSON.stringify(location.slice(0, 40))} is not a Vertex location (global, us-east5, …)`
    : !projectPattern.test(project)
      ? `${JSON.stringify(project.slice(0, 40))} is not a Google Cloud project id`
      : undefined;
  if (problem !== undefined) return { baseURL: expressEndpoint, apiKey, express: false, problem };
  return { baseURL: endpointOf(project, location), apiKey, express: false };
}

/**
 * Why express mode cannot serve `model` (a partner publisher's), or `undefined`: a Google model, or
 * a name the table does not resolve (the call itself refuses that one, naming what is served).
 */
function expressUnserved(model: string): string | undefined {
  const found = findModel(model);
  return found === undefined ? undefined : expressRefusal(found, model);
}

/** Creates the definition for one adapter instance. */
export function createVertexDefinition(options: VertexOptions, loadPeer?: TokenLoader): ProviderDefinition {
  const setup = resolveSetup(options);
  const auth = new VertexAuth(options, setup.apiKey, loadPeer, Date.now, setup.problem);
  return {
    name: 'vertex',
    protocol: 'vertex',
    baseURL: setup.baseURL,
    headers: () => ({}),
    authorize: (_input, refresh) => auth.authorize(refresh),
    capabilities: capabilitiesFor,
    buildRequest: (request, context) => buildRequest(request, context, { express: setup.express }),
    // Express mode serves Gemini only: a router skips a partner model instead of failing the route.
    ...(setup.express ? { unservedReason: expressUnserved } : {}),
    parseResponse,
    createStreamParser,
    parseErrorBody,
    errorRules,
    estimateInputTokens,
    countTokens: { buildRequest: buildCountRequest, parse: parseTokenCount },
    // Every publisher behind one adapter: each family's parts go back to it alone (`vertex/google`,
    // `vertex/anthropic`, `vertex/meta`, …). A bare `vertex` part (stored before families were
    // recorded) could be Gemini's or Claude's, so neither takes it back: it is dropped with the WARN.
    families: { of: publisherOf },
    listModels: { path: '/publishers/google/models', parse: parseModelList, baseURL: modelListBaseOf },
  };
}
