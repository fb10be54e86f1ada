/** Encodes canonical responses as Anthropic Messages: the `message` body and its exact SSE event sequence. */
import type { StreamEvent } from '../../core/events.ts';
import type { FinishReason } from '../../core/finish-reason.ts';
import type { CanonicalResponse } from '../../core/request.ts';
import type { CustomPart, Part } from '../../core/transcript.ts';
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import { anthropicCitations } from '../citations.ts';
import { anthropicCallerKey, type MetadataMap, stopSequenceKey } from '../../core/metadata.ts';
import { argumentsObject } from '../../core/tool-arguments.ts';
import { clientServiceTier, emptyUsage, type Usage } from '../../core/usage.ts';
import { createFrame } from '../frames.ts';
import { createAnthropicMessageId } from '../ids.ts';
import { opaqueValue, verbatimOpaque } from '../opaque.ts';
import { ArgumentTracker, leaveOut, wireFinishReason } from '../common.ts';
import type {
  EncodeContext,
  EncoderState,
  OpaquePayload,
  StreamEncoder,
  WireError,
  WireFrame,
} from '../types.ts';
import { errorType } from './errors.ts';

const stopReasons: Record<FinishReason, string> = {
  completed: 'end_turn',
  'tool-call': 'tool_use',
  'max-tokens': 'max_tokens',
  'stop-sequence': 'stop_sequence',
  'content-filter': 'refusal',
  cancelled: 'end_turn',
  error: 'end_turn',
  other: 'end_turn',
};

/** Anthropic's own stop reasons: one the upstream gave goes to the client as it was. */
const wireStopReasons = new Set([
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
]);

/**
 * The wire `stop_reason` of a response: the upstream's own when it is one of Anthropic's (an
 * Anthropic upstream's `pause_turn` stays `pause_turn`: the client must continue the turn), else
 * the canonical reason's.
 */
export function mapFinishReason(
  response: Pick<CanonicalResponse, 'finishReason' | 'rawFinishReason'>,
  context: EncodeContext,
): string {
  return wireFinishReason(response, context, stopReasons, wireStopReasons);
}

/** Anthropic usage as a reply carries it. */
interface WireUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  output_tokens: number;
  server_tool_use?: { web_search_requests: number };
  service_tier?: string;
}

/**
 * Anthropic usage: disjoint buckets, as the canonical ones; web searches as
 * `server_tool_use.web_search_requests`. A cache write is split by lifetime in `cache_creation`,
 * as the API splits it: the 1-hour tokens the upstream reported (`cacheWrite1h`, absent when none,
 * as it is priced), the rest the default 5 minutes. `tier` says `service_tier` is written (a whole
 * message's and `message_start`'s usage): the upstream's, `standard` (the API's default) when it
 * named none.
 */
export function convertUsage(usage: Usage, outputTokens = usage.output, tier = false): WireUsage {
  const wire: WireUsage = {
    input_tokens: usage.input,
    cache_creation_input_tokens: usage.cacheWrite,
    cache_read_input_tokens: usage.cacheRead,
    output_tokens: outputTokens,
  };
  if (usage.cacheWrite > 0) {
    const long = Math.min(usage.cacheWrite1h ?? 0, usage.cacheWrite);
    wire.cache_creation = {
      ephemeral_5m_input_tokens: usage.cacheWrite - long,
      ephemeral_1h_input_tokens: long,
    };
  }
  if (usage.webSearches !== undefined && usage.webSearches > 0)
    wire.server_tool_use = { web_search_requests: usage.webSearches };
  if (tier) wire.service_tier = clientServiceTier(usage, 'standard');
  return wire;
}

/**
 * The content blocks of Anthropic's server tools: their calls (`server_tool_use`, `mcp_tool_use`)
 * and results (`web_search_tool_result`, `code_execution_tool_result`, `mcp_tool_result`, …).
 */
export function isServerBlockType(type: unknown): boolean {
  return (
    typeof type === 'string' &&
    (type === 'server_tool_use' ||
      type === 'mcp_tool_use' ||
      type === 'container_upload' ||
      /^[a-z][a-z_]*_tool_result$/.test(type)) &&
    type !== 'tool_result'
  );
}

/** A custom part that is one of those blocks, whole (an Anthropic upstream's, or a client's history). */
function serverBlockOf(part: CustomPart): Record<string, unknown> | undefined {
  const { data } = part;
  if (!isServerBlockType(part.kind) || !isJsonObject(data) || data.type !== part.kind) return undefined;
  return { ...data };
}

/** A text block, with its citations when it has any (as the API writes it). */
function textBlock(text: string, metadata: MetadataMap | undefined): Record<string, unknown> {
  const citations = anthropicCitations(metadata);
  return citations.length === 0 ? { type: 'text', text } : { type: 'text', text, citations };
}

/**
 * A `tool_use` block, with its `caller` when code execution made the call (programmatic tool
 * calling: metadata `anthropic.caller`; a direct call has none, as the Anthropic adapter reads it).
 */
function toolUseBlock(
  id: string,
  name: string,
  input: JsonObject,
  metadata: MetadataMap | undefined,
): Record<string, unknown> {
  const caller = metadata?.[anthropicCallerKey];
  return isJsonObject(caller)
    ? { type: 'tool_use', id, name, input, caller }
    : { type: 'tool_use', id, name, input };
}

function convertPart(part: Part, context: EncodeContext): Record<string, unknown> | undefined {
  switch (part.type) {
    case 'text':
      return textBlock(part.text, part.metadata);
    case 'structured':
      return { type: 'text', text: JSON.stringify(part.value) };
    case 'reasoning':
      if (part.redacted === true && part.text === '') return redactedBlock(part, context);
      return { type: 'thinking', thinking: part.text, signature: signatureOf(part, context) };
    case 'tool-call':
      return toolUseBlock(part.id, part.name, argumentsObject(part), part.metadata);
    case 'custom':
      return serverBlockOf(part) ?? leaveOut(part, context);
    default:
      return leaveOut(part, context);
  }
}

/** A `redacted_thinking` block: its `data` the whole payload, wrapped (the provider's data verbatim for a raw client). */
function redactedBlock(part: OpaquePayload, context: EncodeContext): Record<string, unknown> {
  const { provider, data, signature, metadata } = part;
  return {
    type: 'redacted_thinking',
    data: (context.opaque ?? verbatimOpaque).wrap({ provider, data, signature, metadata }),
  };
}

/** A streamed `thinking` block as it opens. */
const thinkingBlock = { type: 'thinking', thinking: '', signature: '' };

function signatureOf(part: OpaquePayload, context: EncodeContext): string {
  const { provider, signature, data, metadata } = part;
  return opaqueValue({ provider, signature, data, metadata }, context.opaque) ?? '';
}

/** The non-streamed `message` body. */
/**
 * The stop sequence that ended the reply, where the upstream said which (Anthropic) or Switchyard
 * cut the reply at it (`stopSequenceKey`); else null.
 */
function stopSequenceOf(response: CanonicalResponse): string | null {
  const matched = response.metadata?.['anthropic.stop_sequence'] ?? response.metadata?.[stopSequenceKey];
  return response.finishReason === 'stop-sequence' && typeof matched === 'string' ? matched : null;
}

export function encodeResponse(response: CanonicalResponse, context: EncodeContext): unknown {
  return {
    id: context.responseId ?? createAnthropicMessageId(),
    type: 'message',
    role: 'assistant',
    model: context.model,
    content: response.content.flatMap((part) => convertPart(part, context) ?? []),
    stop_reason: mapFinishReason(response, context),
    stop_sequence: stopSequenceOf(response),
    usage: convertUsage(response.usage, response.usage.output, true),
  };
}

/** The in-band error event of a stream that already sent content. */
export function errorFrame(error: WireError): WireFrame {
  return createFrame({ type: 'error', error: { type: errorType(error), message: error.message } }, 'error');
}

type Payload = Record<string, unknown>;

/**
 * The streamed sequence: `message_start` (held until the first content event), per block
 * `content_block_start` (a `ping` after the first, as the API does), deltas (`text_delta` and a
 * text's `citations_delta`s, `thinking_delta` + `signature_delta`, `input_json_delta`) and
 * `content_block_stop` (a `redacted_thinking` block is its start, with its data, and stop), then
 * `message_delta` with the stop reason and usage, and `message_stop`. `message_start`'s usage has
 * the service tier known by then (`standard`, the API's default, when none); `message_delta`'s has
 * one only when the upstream named another later.
 */
export function createStreamEncoder(context: EncodeContext): StreamEncoder {
  let blocks = 0;
  let usage: Usage = emptyUsage();
  /** The `service_tier` message_start said. */
  let startTier: string | undefined;
  let provider: string | undefined;
  const wire = new Map<number, number>();
  /** Reasoning parts that started redacted and have no block on the wire yet. */
  const redacted = new Set<number>();
  const args = new ArgumentTracker();
  const frame = (type: string, payload: Payload = {}) => createFrame({ type, ...payload }, type);

  function preamble(frames: WireFrame[]): void {
    if (encoder.started) return;
    encoder.started = true;
    // Output at most 1, as the API's own message_start: an upstream that counts its first chunk's
    // output (Gemini) would otherwise be counted twice by clients that add message_start's output
    // to message_delta's cumulative one (LangChain's ChatAnthropic).
    const startOutput = context.startUsage === undefined ? Math.min(usage.output, 1) : 1;
    // The tier as known now (an upstream that names it at its start: Anthropic, Chat), else the default.
    const startUsage = convertUsage(context.startUsage ?? usage, startOutput, true);
    if (usage.serviceTier !== undefined) startUsage.service_tier = clientServiceTier(usage, 'standard');
    startTier = startUsage.service_tier;
    const message = {
      model: context.model,
      id: context.responseId ?? createAnthropicMessageId(),
      type: 'message',
      role: 'assistant',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: startUsage,
    };
    frames.push(frame('message_start', { message }));
  }

  /** The held `message_start`, if it has not gone yet. */
  function message(): WireFrame[] {
    const frames: WireFrame[] = [];
    preamble(frames);
    return frames;
  }

  function start(index: number, block: Payload): WireFrame[] {
    const frames: WireFrame[] = [];
    preamble(frames);
    const at = blocks++;
    wire.set(index, at);
    frames.push(frame('content_block_start', { index: at, content_block: block }));
    if (at === 0) frames.push(frame('ping'));
    return frames;
  }

  const delta = (index: number, body: Payload) =>
    frame('content_block_delta', { index: wire.get(index) ?? 0, delta: body });
  const stop = (index: number) => frame('content_block_stop', { index: wire.get(index) ?? 0 });

  /**
   * A reasoning part's end: its signature, then the block's stop. A part that started redacted and
   * got no text opens now, as the API streams `redacted_thinking`: `content_block_start` with the
   * data (wrapped as a whole reply's), then `content_block_stop`; one cut before its data came (an
   * incomplete end without it) sends nothing — not an empty `thinking` block with no signature.
   */
  function reasoningEnd(event: Extract<StreamEvent, { type: 'reasoning-end' }>): WireFrame[] {
    const payload = { provider, signature: event.signature, data: event.data, metadata: event.metadata };
    let frames: WireFrame[] = [];
    if (!wire.has(event.index)) {
      const startedRedacted = redacted.delete(event.index);
      if (event.redacted === true || (startedRedacted && event.data !== undefined))
        return [...start(event.index, redactedBlock(payload, context)), stop(event.index)];
      if (startedRedacted) return [];
      frames = start(event.index, thinkingBlock);
    }
    const signature = signatureOf(payload, context);
    if (signature !== '') frames.push(delta(event.index, { type: 'signature_delta', signature }));
    frames.push(stop(event.index));
    return frames;
  }

  function finish(response: CanonicalResponse): WireFrame[] {
    if (response.finishReason === 'error' || response.finishReason === 'cancelled') return [];
    const frames: WireFrame[] = [];
    preamble(frames);
    const stopReason = {
      stop_reason: mapFinishReason(response, context),
      stop_sequence: stopSequenceOf(response),
    };
    const final = convertUsage(response.usage);
    // A tier named only at the end (a Responses upstream's) corrects message_start's: the API's own
    // message_delta has no `service_tier`, its tier being known at the start.
    const tier = clientServiceTier(response.usage, 'standard');
    if (tier !== startTier) final.service_tier = tier;
    frames.push(frame('message_delta', { delta: stopReason, usage: final }));
    frames.push(frame('message_stop'));
    return frames;
  }

  function event(event: StreamEvent): WireFrame[] {
    switch (event.type) {
      case 'text-start':
        return start(event.index, { type: 'text', text: '' });
      case 'text-delta':
        return event.delta === '' ? [] : [delta(event.index, { type: 'text_delta', text: event.delta })];
      case 'reasoning-start':
        if (event.redacted !== true) return start(event.index, thinkingBlock);
        // Redacted: the block opens at the part's end, whole with its data (see reasoningEnd).
        redacted.add(event.index);
        return message();
      case 'reasoning-delta': {
        if (event.delta === '') return [];
        if (wire.has(event.index))
          return [delta(event.index, { type: 'thinking_delta', thinking: event.delta })];
        // Text in a part that started redacted: it is thinking after all (as a whole reply has it).
        redacted.delete(event.index);
        const frames = start(event.index, thinkingBlock);
        frames.push(delta(event.index, { type: 'thinking_delta', thinking: event.delta }));
        return frames;
      }
      case 'reasoning-end':
        return reasoningEnd(event);
      case 'tool-call-start': {
        const frames = start(event.index, toolUseBlock(event.id, event.name, {}, event.metadata));
        return [...frames, delta(event.index, { type: 'input_json_delta', partial_json: '' })];
      }
      case 'tool-call-delta':
        args.add(event.id, event.delta);
        return [delta(event.index, { type: 'input_json_delta', partial_json: event.delta })];
      case 'tool-call-end': {
        const rest = args.remainder(event.id, event.input);
        const frames =
          rest === '' ? [] : [delta(event.index, { type: 'input_json_delta', partial_json: rest })];
        return [...frames, stop(event.index)];
      }
      case 'text-end': {
        if (!wire.has(event.index)) return [];
        // A text's citations arrive with its end (`text-end`'s metadata): one `citations_delta`
        // each, which the SDKs' accumulators add to the block, before it stops.
        const citations = anthropicCitations(event.metadata).map((citation) =>
          delta(event.index, { type: 'citations_delta', citation }),
        );
        return [...citations, stop(event.index)];
      }
      case 'message-start':
        provider = event.provenance ?? event.provider;
        if (event.serviceTier !== undefined) usage = { ...usage, serviceTier: event.serviceTier };
        return [];
      case 'usage':
        usage = event.usage;
        return [];
      case 'finish':
        return finish(event.response);
      case 'custom': {
        // A server tool's block, whole: started with its content and stopped (its input is in the
        // start, as the SDKs' accumulators take it).
        const block = serverBlockOf(event.part);
        if (block === undefined) {
          leaveOut(event.part, context);
          return [];
        }
        return [...start(event.index, block), stop(event.index)];
      }
      default:
        return [];
    }
  }

  const encoder: EncoderState = {
    event,
    error: (error) => [...message(), errorFrame(error)],
    started: false,
  };
  return encoder;
}
