/**
 * The codec contract: one codec per wire protocol, both directions. A server (the gateway, the
 * emulator) decodes a client's request into the canonical request and encodes canonical responses,
 * streams and errors back in that protocol's exact wire form.
 */
import type { ErrorClass } from '../core/errors/error-class.ts';
import type { MetadataMap } from '../core/metadata.ts';
import type { StreamEvent } from '../core/events.ts';
import type { CanonicalRequest, CanonicalResponse, ReasoningEffort } from '../core/request.ts';
import type { Item, Part } from '../core/transcript.ts';

/** The wire protocols with a codec. */
export type ProtocolName = 'anthropic-messages' | 'openai-chat' | 'openai-responses' | 'gemini';

/** What the gateway takes inbound: every provider protocol, and Switchyard's own. */
export type InboundProtocol = ProtocolName | 'switchyard';

/** One SSE frame: either structured (`event`/`data`) or a verbatim block read from an `.sse` file. */
export type WireFrame = { event?: string; data: string } | { raw: string };

/** An `item_reference` input item: its id, its path (`input.3.id`) and where its part goes. */
export interface ItemReference {
  id: string;
  path: string;
  /** The assistant item the referenced part joins, and its position among that item's parts. */
  item: Item;
  at: number;
}

/** A decoded client request: the canonical request (without a model binding) and how to answer. */
export interface DecodedRequest {
  /** The model name as the client wrote it (Gemini: from the path). */
  model: string;
  stream: boolean;
  request: Omit<CanonicalRequest, 'model' | 'maxOutputTokens'> & { maxOutputTokens?: number };
  /** Chat Completions `stream_options.include_usage`. */
  streamUsage?: boolean;
  /** Responses: `store` (default true) and `previous_response_id`. */
  store?: boolean;
  previousResponseId?: string;
  /**
   * Responses: the `item_reference` input items, in input order, each a place in an assistant item
   * of the transcript where the referenced part goes (the gateway resolves them from its store).
   */
  itemReferences?: ItemReference[];
  /**
   * Responses: how many leading transcript items are the request's `instructions` (0 or 1). They
   * hold for this turn only: a stored conversation leaves them out, and the next turn's go first.
   * Developer and system messages in `input` are conversation, stored like any other.
   */
  instructionItems?: number;
  /** Responses: `include` asked for `reasoning.encrypted_content`. */
  encryptedReasoning?: boolean;
  /**
   * Responses: the request's `input` as the client sent it (the parsed body's own value, not a
   * copy), kept in wire form with a stored reply for `GET /v1/responses/{id}/input_items`.
   */
  input?: unknown;
  /**
   * Responses: the functions of the request's `namespace` tools, which travel as tools named
   * `{namespace}.{name}`: that name → its namespace, so a call is named back exactly (a plain
   * function named `github.list_repos` beside a namespace `github` stays plain).
   */
  namespaces?: ReadonlyMap<string, string>;
  /**
   * Responses and Chat: the names of the request's `custom` (freeform) tools, as the client
   * declared them (`{namespace}.{name}` in a namespace), so a call to one goes back as a custom
   * call (`custom_tool_call`; a Chat `tool_calls` entry of type `custom`).
   */
  freeform?: ReadonlySet<string>;
  /**
   * Anthropic: the request's Anthropic-defined tools (`web_search_20250305`, `bash_20250124`, …),
   * each by its path and `type`. They travel to an Anthropic upstream verbatim
   * (`providerOptions.anthropic.tools`), the server tools among them only where
   * `gateway.builtin_tools` allows (`leaveOutServerTools`); no other provider serves them, so a
   * request holding one is routed only to the protocol's own provider.
   */
  serverTools?: Array<{ path: string; type: string }>;
  /**
   * Responses: the request's built-in tools (`web_search`, `mcp`, `apply_patch`, …) and a
   * `tool_choice` naming one, each by its path and `type`. They travel to a Responses upstream (any
   * adapter of type `openai-responses`: OpenAI, Azure, xAI) as written, in
   * `providerOptions['openai-responses']`; on a route to another provider the gateway takes them
   * out and names each in the WARN (clients such as Codex always send some).
   */
  builtinTools?: Array<{
    path: string;
    type: string;
    /** The name `gateway.builtin_tools` allows it by, when not its type (`hosted_shell`: a `shell` in the operator's containers). */
    kind?: string;
  }>;
  /**
   * Anthropic: the `output_config.effort` of a request whose `thinking` is `{type: 'disabled'}`.
   * Its reasoning is off (effort `none`) until the gateway knows the route: an Anthropic upstream
   * takes the effort without thinking, any other would take an effort as thinking effort
   * (`routeDisabledThinkingEffort`).
   */
  disabledThinkingEffort?: ReasoningEffort;
  /**
   * Gemini: the client did not ask for thoughts (`thinkingConfig.includeThoughts` absent or false,
   * Gemini's own default): the reply leaves its reasoning out (`EncodeContext.hideThoughts`).
   */
  hideThoughts?: boolean;
  /** What the codec left out on purpose (for the server's WARN), e.g. hosted tools it cannot offer. */
  warnings?: string[];
  /**
   * The client's own name of a setting it sent under another field than the codec's usual one
   * (`ProtocolCodec.requestFields`): Chat's older `max_tokens` for `max_completion_tokens`. A
   * refusal about the setting names this field.
   */
  requestFields?: Partial<Record<RequestSetting, string>>;
}

/** What the client asked, for decoding: Gemini names the model and the stream mode in the path. */
export interface DecodeContext {
  model?: string;
  stream?: boolean;
  /** How opaque fields were wrapped when encoded (default: verbatim). */
  opaque?: OpaqueCodec;
}

/**
 * Carries a provider's opaque payload (reasoning signature, encrypted content, thought signature) in
 * a client protocol's opaque field and back. The gateway wraps them with the producing provider's
 * name so the next turn hands them back to that provider; the emulator sends them verbatim.
 */
export interface OpaqueCodec {
  wrap(payload: OpaquePayload): string;
  unwrap(text: string): OpaquePayload;
}

/** What rides in an opaque field: the producing provider, its payloads and the part's metadata (item ids). */
export interface OpaquePayload {
  provider?: string;
  signature?: string;
  data?: string;
  metadata?: MetadataMap;
}

/** How to encode one response. */
export interface EncodeContext {
  /** The model to report (the name the client asked for). */
  model: string;
  /** The response id to report; a realistic one is minted when absent. */
  responseId?: string;
  /** The wire finish value verbatim (the emulator's scripts), instead of mapping the canonical reason. */
  finishReason?: string;
  /** Chat Completions: send the usage chunk (`stream_options.include_usage`). */
  streamUsage?: boolean;
  /** Responses: the request's `store` and `previous_response_id`. */
  store?: boolean;
  previousResponseId?: string;
  /** Responses: the request's namespaced tools (`DecodedRequest.namespaces`): a call to one is sent as its `name` in its `namespace`. */
  namespaces?: ReadonlyMap<string, string>;
  /** Responses and Chat: the request's freeform (`custom`) tools: a call to one goes back as a custom call whose `input` is the text. */
  freeform?: ReadonlySet<string>;
  /** Gemini: send tool-call ids in `functionCall.id` (the gateway does, the real API does not). */
  callIds?: boolean;
  /**
   * Gemini: leave reasoning out of the reply, readable text and signature alike (the client did
   * not ask for thoughts: `DecodedRequest.hideThoughts`). A signed thought is not lost: the gateway
   * keeps a tool-call turn's reasoning by call id and puts it back on the next turn
   * (`gateway/artifacts.ts`), as for a client whose protocol has no reasoning field; Gemini's own
   * signatures ride on the call and text parts, which keep them.
   */
  hideThoughts?: boolean;
  /** Opaque-field wrapping (default: verbatim). */
  opaque?: OpaqueCodec;
  /**
   * Told of each reply part the protocol cannot carry, as it is left out (`custom:{kind}` for a
   * provider's own part, else the part type): the gateway logs them in one WARN per call.
   */
  leftOut?: (part: string) => void;
  /** Anthropic streams: the usage `message_start` reports before any count is known. */
  startUsage?: CanonicalResponse['usage'];
  /**
   * Chat Completions: the message field reasoning is written in, as the compatible host the
   * emulator plays writes it (its preset's first `reasoningFields` entry): `reasoning_content`
   * (DeepSeek, Moonshot; the default), `reasoning` (Groq, Cerebras) or `reasoning_details`
   * (OpenRouter's `reasoning.text` entries, the signature on them).
   */
  reasoningField?: ChatReasoningField;
}

/** A Chat Completions message field that carries reasoning (see `EncodeContext.reasoningField`). */
export type ChatReasoningField = 'reasoning_content' | 'reasoning' | 'reasoning_details';

/** The canonical request settings an adapter's refusal can name (see `ProtocolCodec.requestFields`). */
export type RequestSetting = 'toolChoice' | 'maxOutputTokens' | 'reasoning' | 'stopSequences';

/** An error to encode in a protocol's own body shape. */
export interface WireError {
  status: number;
  errorClass: ErrorClass;
  message: string;
  /** Anthropic / OpenAI error type or code to use instead of the one the class implies. */
  code?: string;
  /** The request field at fault (OpenAI `param`). */
  param?: string;
  /** OpenAI: the error `type` instead of the one the class implies (e.g. `requests`). */
  type?: string;
  retryAfterSeconds?: number;
  /** Machine-readable details (Anthropic `error.details`, e.g. `{error_code: 'thread_not_found'}`). */
  details?: Record<string, unknown>;
  /**
   * Whether the same request may succeed if sent again (a rate limit, an outage), as the gateway's
   * `x-should-retry` header: the official OpenAI and Anthropic SDKs obey it over their own rule
   * (which retries every 408, 409, 429 and 5xx). Undefined: no header.
   */
  retryable?: boolean;
}

/** An encoded error response. */
export interface EncodedError {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** Turns canonical stream events into wire frames; preamble is held until the first content event. */
export interface StreamEncoder {
  /** Frames for one event (none for `message-start`: the preamble goes out with the first content). */
  event(event: StreamEvent): WireFrame[];
  /** The in-band error form for a failure after content (never a clean finish). */
  error(error: WireError): WireFrame[];
  /** Whether the preamble went out (content was sent): a failure now must be reported in-band. */
  readonly started: boolean;
}

/**
 * A stream encoder as its codec builds it: `started` is a plain property the codec sets (a getter
 * closure in a per-call object literal gives every encoder its own hidden class, which keeps it alive
 * through young-generation GCs).
 */
export type EncoderState = { -readonly [Key in keyof StreamEncoder]: StreamEncoder[Key] };

/** One protocol's codec. */
export interface ProtocolCodec {
  name: InboundProtocol;
  /** Throws a `RequestFieldError` for malformed or unhonourable requests. */
  decodeRequest(body: unknown, context?: DecodeContext): DecodedRequest;
  /** The whole (non-streamed) response body. */
  encodeResponse(response: CanonicalResponse, context: EncodeContext): unknown;
  createStreamEncoder(context: EncodeContext): StreamEncoder;
  /** `requestId`: the id the reply's headers name, for a protocol whose error body names one too (Anthropic's `request_id`). */
  encodeError(error: WireError, requestId?: string): EncodedError;
  /** Whether a streamed answer is sent as SSE with named events. */
  namedEvents: boolean;
  /** The request field holding the conversation (`messages`, `input`, `contents`); default `messages`. */
  conversationField?: string;
  /**
   * The client's name for a canonical request setting, for the `param` of a refusal that names
   * the setting (an adapter's `thinking_needs_room`): `maxOutputTokens` → `max_tokens`.
   */
  requestFields?: Readonly<Partial<Record<RequestSetting, string>>>;
  /**
   * The provider whose own opaque values (signatures, encrypted reasoning) a client of this protocol
   * may send untagged — a session begun directly with it, then pointed at the gateway: the adapter
   * `type` that speaks to it, and the provider name its replies carry (the tag such values get).
   * They go back to an adapter of that type; any other cannot verify them.
   */
  nativeProvider?: { type: string; provider: string };
}

/** The parts a canonical response holds, as the encoders read them. */
export type ResponsePart = Part;
