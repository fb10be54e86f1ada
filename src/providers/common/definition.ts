/** What a provider supplies to the shared HTTP adapter runtime: pure translation functions. */
import type { AdapterSession, ProtocolId, ModelInfo, TokenEstimateInput } from '../../core/adapter.ts';
import type { Capabilities } from '../../core/capabilities.ts';
import type { AdapterError } from '../../core/errors/adapter-error.ts';
import type { ErrorBody, ErrorRule } from '../../core/errors/status-map.ts';
import type { RequestId } from '../../core/ids.ts';
import type { JsonObject } from '../../core/json.ts';
import type { Logger } from '../../core/logger.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import type { Item, Part } from '../../core/transcript.ts';

/** An HTTP response's headers, looked up by name (not case-sensitive). */
export interface ResponseHeaders {
  get(name: string): string | null;
}

/**
 * Where a call's context holds itself: a codec may be handed a copy of it (`{ ...context, model }`
 * on Vertex, `urlSources: false` for Claude on Vertex and Bedrock InvokeModel), and a spread copies
 * this key, so {@link callOf} finds the call from any copy.
 */
export const callKey: unique symbol = Symbol('switchyard.call');

/**
 * The call `context` belongs to: the key of state kept per call beside its context (the stop
 * sequences emulated, an output sent wrapped, Gemini's answer function and prepared cache, the
 * strict-null originals), the same for the call's context and every copy of it.
 */
export function callOf(context: ProviderContext): object {
  return context[callKey] ?? context;
}

/** Per-call facts handed to a provider's translation functions. */
export interface ProviderContext {
  /** The call's own context ({@link callOf}); set by the runtime, copied by spreads. */
  readonly [callKey]?: object;
  requestId: RequestId;
  /** Adapter name (`anthropic`, `groq`, …). */
  provider: string;
  /**
   * The tag of this call's reasoning, tool-call and custom parts (their `provider`) and the tag of
   * the parts it takes back: the adapter name, or `name/family` on a host serving several model
   * families (`vertex/anthropic`; see {@link ProviderDefinition.families}). Absent: `provider`.
   */
  provenance?: string;
  /**
   * True when parts tagged with the bare adapter name (stored before the host's families were
   * recorded) are this call's own: the one family that could have signed them (Claude on Bedrock).
   */
  ownsBareTag?: boolean;
  /** The model's wire name (canonical id without the `provider:` prefix). */
  model: string;
  /** The model's capabilities for this call: the declared ones with the user's overrides on top. */
  capabilities: Capabilities;
  /** Session state: the tool-id map, provider-side state. */
  session: AdapterSession;
  /**
   * True when the caller gave no session: the call's own session, and any provider-side state it
   * makes (a Gemini cache entry), ends with the call.
   */
  sessionLess?: boolean;
  logger: Logger;
  /** True for `stream()`, false for `complete()`. */
  stream: boolean;
  /** Logs a structured WARN with adapter, request and session ids added (lossy projection, fallbacks). */
  warn(message: string, fields: Record<string, unknown>): void;
  /** Throws the classified error for a provider error body (a 200 body or an SSE error event). */
  fail(body: ErrorBody, status?: number): never;
  /** An extra JSON call to the same provider (e.g. creating a Gemini cachedContents entry). */
  fetchJson(method: 'GET' | 'POST' | 'DELETE', path: string, body?: JsonObject): Promise<unknown>;
  /**
   * The runtime's own record of the transcript this call converts, to locate a dropped part in its
   * WARN (`projection.ts`: set by `projectTranscript`, the index built on the first drop). Providers
   * leave it alone.
   */
  partLocations?: { items: readonly Item[]; index?: Map<Part, unknown> };
  /**
   * The names of the request's freeform tools (`ToolSpec.freeform`), set by `setup` when it has
   * any: a reader tells a call to one of them (a Responses `custom_tool_call`) from a host's own.
   */
  freeformTools?: ReadonlySet<string>;
  /**
   * The trailing assistant text this call's reply may repeat, set when the provider cannot continue
   * it (`prefill.ts`): the reply's copy of it is cut.
   */
  prefill?: string;
  /**
   * False when the host serving this call's model fetches no http(s) URL (Claude on Vertex): the
   * Anthropic codec leaves an image or document given by one out with a WARN instead of sending a
   * `url` source the host refuses. Set by the host adapter on its codec's context; absent: fetched.
   */
  urlSources?: boolean;
}

/** What a provider's `endSession` may use: the provider's JSON calls and the WARN log. */
export interface SessionEndContext {
  provider: string;
  fetchJson(method: 'GET' | 'POST' | 'DELETE', path: string, body?: JsonObject): Promise<unknown>;
  warn(message: string, fields: Record<string, unknown>): void;
}

/** A request ready for the wire. */
export interface WireRequest {
  /** Path appended to the base URL (may hold a query string). */
  path: string;
  body: JsonObject;
  /** Extra headers for this request (e.g. Anthropic beta flags). */
  headers?: Record<string, string>;
  /**
   * The endpoint of this request when it is not the adapter's (Bedrock: the region of an ARN);
   * ignored when the user set `baseURL`.
   */
  baseURL?: string;
}

/** Consumes one response stream's decoded SSE events and drives the `StreamBuilder`. */
export interface StreamParser {
  /** One SSE event. Throws an `AdapterError` (via `context.fail`) for an in-stream error event. */
  onEvent(event: string | undefined, data: string): void;
  /** The body ended. Throws a `NetworkError` when the stream was cut short before its terminal event. */
  onEnd(): void;
  /**
   * Whether the response is whole as received so far (`onEnd` would accept it). Once it is, a
   * failure of the rest of the body (an idle timeout while the server holds the connection open, a
   * reset, bytes after the end that do not parse) ends the stream with that response and one WARN.
   */
  isComplete?(): boolean;
  /**
   * Whether the protocol's terminal event arrived (`[DONE]`, `response.completed`): nothing after it
   * counts, so the runtime stops reading the body at once instead of waiting for the server to close.
   */
  isTerminated?(): boolean;
  /**
   * For a protocol whose last event is not final (Anthropic's `message_stop` may be followed by a
   * concatenated message; Gemini marks its last chunk only by `finishReason` and usage): how long,
   * in ms, the runtime still waits for more of the body once the response as received is whole. When
   * no byte comes within it, reading stops as at the terminal event (the connection released, the
   * response kept); bytes that come reset it. Undefined while the response is not whole: read on.
   */
  quietEndMs?(): number | undefined;
  /**
   * A line of an SSE body that is no SSE field (SSE ignores it): for a protocol whose front end may
   * write its own error object there raw (Google's in front of Claude on Vertex). Throws, as
   * `onEvent` does, for an error it recognizes.
   */
  onStrayLine?(line: string): void;
}

/** The request of one attempt as `authorize` sees it (the URL, method, headers and body to sign). */
export interface AuthorizeInput {
  method: string;
  url: string;
  headers: Readonly<Record<string, string>>;
  body: string | undefined;
}

/** What `authorize` adds to one attempt. */
export interface Authorization {
  /** Headers added to the attempt (`authorization`, `x-amz-date`, …). */
  headers: Record<string, string>;
  /** Whether the credentials can be refreshed: a 401/403 answer is then retried once with `refresh`. */
  refreshable: boolean;
  /**
   * The time (milliseconds) the attempt was signed at, for a signature that carries its time
   * (SigV4's `X-Amz-Date`); absent when nothing was signed (a bearer token). The runtime asks
   * `correctClock` about a refusal only when the refused attempt carried one.
   */
  signedAt?: number;
}

/** Turns a stream body's bytes into parser events (the default is SSE). */
export interface StreamDecoder {
  feed(chunk: Uint8Array): void;
  end(): void;
}

/** A provider, as pure translation functions plus a few facts. */
export interface ProviderDefinition {
  name: string;
  protocol: ProtocolId;
  /** Default base URL, e.g. `https://api.anthropic.com/v1`. */
  baseURL: string;
  /** Auth and protocol headers for every call. */
  headers(apiKey: string | undefined): Record<string, string>;
  capabilities(model: string): Capabilities;
  /**
   * Per-attempt credentials for providers that sign each request (SigV4) or use short-lived tokens
   * (OAuth): resolved before every attempt, so rotated credentials work. `refresh` is true on the one
   * retry after a 401/403, so a cached token is dropped first. Throws `AuthError` `not_configured`
   * when no credentials are found. Optional: API-key providers use `headers`.
   */
  authorize?(input: AuthorizeInput, refresh: boolean): Promise<Authorization>;
  /**
   * The stream body's framing when it is not SSE (AWS event-stream): a decoder that feeds `parser`.
   * Errors it throws for malformed frames are classified by the runtime (`invalid_stream`).
   */
  createStreamDecoder?(parser: StreamParser, maxEventBytes: number): StreamDecoder;
  /** Async preparation before the request is built (e.g. creating a cache entry). Optional. */
  prepare?(request: CanonicalRequest, context: ProviderContext): Promise<void>;
  buildRequest(request: CanonicalRequest, context: ProviderContext): WireRequest;
  /**
   * A response header that names the service tier that served the call (the Gemini API's
   * `x-gemini-service-tier`, which its body does not carry): read into `usage.serviceTier` before
   * the body, whole or streamed. Optional.
   */
  serviceTierHeader?: string;
  /**
   * A response header that names the provider's id of the call when its body carries none (Bedrock
   * Converse's `x-amzn-requestid`, the id AWS support asks for): read into `responseId` before the
   * body, whole or streamed (an id of letters, digits and `._:-`, at most 128 characters). Optional.
   */
  responseIdHeader?: string;
  /** Translates a whole JSON response into builder calls (then the runtime calls `finish()`). */
  parseResponse(body: unknown, context: ProviderContext, builder: StreamBuilder): void;
  createStreamParser(context: ProviderContext, builder: StreamBuilder): StreamParser;
  /**
   * Extracts code, message and any retry hint from an error response body (may be non-JSON) and,
   * for a provider that names the error in a header (Bedrock's `x-amzn-errortype`), its headers.
   */
  parseErrorBody(text: string, headers: ResponseHeaders): ErrorBody;
  /** Body rules applied before the status table (first match wins). */
  errorRules: readonly ErrorRule[];
  /**
   * Whether a 401 or 403 says the credentials themselves were refused (expired, unrecognized, a
   * bad signature): then refreshable credentials are fetched afresh and the call sent once more.
   * Read from the headers, before the body. Default: every 401 and 403.
   */
  credentialsRefused?(status: number, headers: ResponseHeaders): boolean;
  /**
   * For a provider that signs the time into each request (SigV4): reads a 401 or 403 and returns
   * true when it refused a signature made with a clock that is off and the provider has corrected
   * the clock it signs with from the answer (its `Date`). The attempt is then signed again and sent
   * once more, in place of a credential refresh and not counted against `maxRetries`; a second
   * refusal is the classified error. Asked only about an attempt whose `Authorization` carried
   * `signedAt` (an unsigned one, a bearer token, has no clock to correct), and given that time: a
   * refusal is judged against the time its request was signed at, not the clock as it is now, so
   * an attempt signed before another call's refusal corrected the clock is signed again too.
   * Optional: providers without signed times leave it out.
   */
  correctClock?(status: number, headers: ResponseHeaders, signedAt: number): boolean;
  estimateInputTokens(input: TokenEstimateInput): number;
  /**
   * The provider's token-count endpoint (`adapter.countInputTokens`): `buildRequest` turns the wire
   * request `buildRequest` made for a whole (non-streamed) call into the count endpoint's (its path,
   * and the body fields that endpoint takes), or returns `undefined` when `context.model` has none;
   * `parse` reads the count from the answer (`undefined` when it holds none). Optional: a provider
   * without a count endpoint leaves it out (its requests are estimated locally).
   */
  countTokens?: {
    buildRequest(wire: WireRequest, context: ProviderContext): WireRequest | undefined;
    parse(body: unknown): number | undefined;
    /**
     * Whether a failed count says the endpoint does not count this model (Bedrock's
     * `ValidationException` "… doesn't support counting tokens"): remembered as a 404 is
     * (`count-call.ts`), and the caller answers its estimate. Optional.
     */
    refusesModel?(error: AdapterError): boolean;
  };
  /**
   * Why this adapter, as configured, cannot serve the wire model `model` at all (Vertex in express
   * mode: partner models), or `undefined` when it may: the adapter's `unservedReason`.
   * Optional: a provider that serves every model it is asked for leaves it out.
   */
  unservedReason?(model: string): string | undefined;
  /**
   * For a host that serves several model families through one adapter, each verifying only its own
   * signatures (Vertex: Gemini and Claude; Bedrock: Claude, Nova, Llama, …): `of(model)` names the
   * family of a wire model name, and the calls' reasoning, tool-call and custom parts are tagged
   * `<name>/<family>` (`vertex/anthropic`), so projection sends them back to that family only.
   * `bare`: the family that parts tagged with the bare name (stored before families were recorded)
   * came from, when only one family could have signed them; otherwise they are foreign to every
   * family. Optional: a single-family provider tags its parts with its name.
   */
  families?: { of(model: string): string; bare?: string };
  /**
   * Deletes the provider-side state this provider's calls created for `session` (e.g. Gemini
   * `cachedContents`). Optional: providers without such state leave it out. Must not throw.
   */
  endSession?(session: AdapterSession, context: SessionEndContext): Promise<void>;
  /**
   * `listModels()`: the path, the body's reader, and where the listing lives when it is not on the
   * call host (Bedrock lists on its control-plane host), derived from the adapter's base URL.
   */
  listModels: { path: string; parse(body: unknown): ModelInfo[]; baseURL?(callBaseURL: string): string };
}
