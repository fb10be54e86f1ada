/** Encodes canonical responses as Chat Completions: a `chat.completion` or its `chat.completion.chunk` stream. */
import type { StreamEvent } from '../../core/events.ts';
import type { FinishReason } from '../../core/finish-reason.ts';
import type { CanonicalResponse } from '../../core/request.ts';
import { clientServiceTier, type Usage } from '../../core/usage.ts';
import { createFrame } from '../frames.ts';
import { createChatCompletionId, randomHex, unixSeconds } from '../ids.ts';
import { ArgumentTracker, inclusiveInput, isRefusalText, leaveOut, openAiFinishReason } from '../common.ts';
import { isJsonObject, type JsonValue } from '../../core/json.ts';
import { argumentsText } from '../../core/tool-arguments.ts';
import { freeformText } from '../../core/tools.ts';
import type { EncodeContext, EncoderState, StreamEncoder, WireError, WireFrame } from '../types.ts';
import { errorBody } from './errors.ts';
import { partAnnotations, responseAnnotations } from '../citations.ts';
import { pushAll } from '../../core/arrays.ts';

const finishReasons: Record<FinishReason, string> = {
  completed: 'stop',
  'tool-call': 'tool_calls',
  'max-tokens': 'length',
  'stop-sequence': 'stop',
  'content-filter': 'content_filter',
  cancelled: 'stop',
  error: 'stop',
  other: 'stop',
};

/** The wire `finish_reason` of a response. */
export function mapFinishReason(reason: FinishReason, context: EncodeContext): string {
  return context.finishReason ?? finishReasons[reason];
}

/**
 * Chat usage: the prompt count includes cached tokens, the completion count includes reasoning.
 * `audio_tokens` are the upstream's audio parts (of the prompt, cached audio included, and of the
 * completion); the prediction counts are 0 (the gateway ignores `prediction`).
 */
export function convertUsage(usage: Usage): Record<string, unknown> {
  const promptTokens = inclusiveInput(usage);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: usage.output,
    total_tokens: promptTokens + usage.output,
    prompt_tokens_details: {
      cached_tokens: usage.cacheRead,
      audio_tokens: (usage.audioInput ?? 0) + (usage.audioCacheRead ?? 0),
    },
    completion_tokens_details: {
      reasoning_tokens: usage.reasoning,
      audio_tokens: usage.audioOutput ?? 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/**
 * Between two reasoning parts in Chat's one `reasoning_content` string, whole or streamed: a blank
 * line, as a Responses upstream's summary parts are joined in one reasoning part.
 */
const reasoningSeparator = '\n\n';

/**
 * Reasoning text in the field `context.reasoningField` names: a string, or one OpenRouter
 * `reasoning.text` entry (with `signature` when there is one; `''` text for a signature alone).
 */
function reasoningFields(
  text: string,
  signature: string | undefined,
  context: EncodeContext,
): Record<string, unknown> {
  const field = context.reasoningField ?? 'reasoning_content';
  if (field !== 'reasoning_details') return { [field]: text };
  const entry: Record<string, unknown> = { type: 'reasoning.text', text, format: 'unknown', index: 0 };
  if (signature !== undefined) entry.signature = signature;
  return { reasoning_details: [entry] };
}

/**
 * The non-streamed `chat.completion` body. Reasoning, which OpenAI itself does not return, is given
 * as `reasoning_content` the way DeepSeek-style compatible hosts do (or in `context.reasoningField`).
 */
export function encodeResponse(response: CanonicalResponse, context: EncodeContext): unknown {
  let text = '';
  let reasoning = '';
  let signature: string | undefined;
  let refusal = '';
  const annotations: JsonValue[] = [];
  const calls: Record<string, unknown>[] = [];
  for (const part of response.content) {
    if (part.type === 'text' && isRefusalText(part.metadata)) refusal += part.text;
    else if (part.type === 'text') {
      pushAll(annotations, chatCitations(partAnnotations(part.metadata, part.text.length), text.length));
      text += part.text;
    } else if (part.type === 'structured') text += JSON.stringify(part.value);
    else if (part.type === 'reasoning' && part.text !== '') {
      reasoning += reasoning === '' ? part.text : `${reasoningSeparator}${part.text}`;
      signature ??= part.signature;
    } else if (part.type === 'tool-call')
      calls.push(
        context.freeform?.has(part.name) === true
          ? { id: part.id, type: 'custom', custom: { name: part.name, input: freeformText(part) } }
          : { id: part.id, type: 'function', function: { name: part.name, arguments: argumentsText(part) } },
      );
    else leaveOut(part, context);
  }
  pushAll(annotations, chatCitations(responseAnnotations(response, text), 0));
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: text === '' && (calls.length > 0 || refusal !== '') ? null : text,
    refusal: refusal === '' ? null : refusal,
    annotations,
  };
  if (reasoning !== '') Object.assign(message, reasoningFields(reasoning, signature, context));
  if (calls.length > 0) message.tool_calls = calls;
  return {
    id: context.responseId ?? createChatCompletionId(),
    object: 'chat.completion',
    created: unixSeconds(),
    model: context.model,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: mapFinishReason(openAiFinishReason(response), context),
      },
    ],
    usage: convertUsage(response.usage),
    service_tier: clientServiceTier(response.usage, 'default'),
    system_fingerprint: `fp_${randomHex(10)}`,
  };
}

/**
 * Citations in Chat's shape (`{type, url_citation: {start_index, end_index, url, title}}`), their
 * offsets moved by `offset` (the length of the message text before their part). Chat has no other
 * annotation type: file and document citations are left out.
 */
function chatCitations(annotations: readonly JsonValue[], offset: number): JsonValue[] {
  const converted: JsonValue[] = [];
  for (const annotation of annotations) {
    if (!isJsonObject(annotation) || annotation.type !== 'url_citation') continue;
    const { start_index: start, end_index: end, url, title } = annotation;
    if (typeof start !== 'number' || typeof end !== 'number' || typeof url !== 'string') continue;
    const citation = {
      start_index: start + offset,
      end_index: end + offset,
      url,
      title: typeof title === 'string' ? title : '',
    };
    converted.push({ type: 'url_citation', url_citation: citation });
  }
  return converted;
}

/** The in-band error of a stream that already sent content: an error object, and no `[DONE]`. */
export function errorFrame(error: WireError): WireFrame {
  return createFrame(errorBody(error));
}

/**
 * `createFrame({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason }], ...usage })`
 * (usage `{ usage: null }` when `usageNull`), with `base` serialized once per stream instead of once
 * per chunk. `base` has at least one field, and neither `choices` nor `usage`.
 */
export function chunkFrames(
  base: Record<string, unknown>,
  usageNull: boolean,
): (delta: Record<string, unknown>, finish?: string | null) => WireFrame {
  const head = `${JSON.stringify(base).slice(0, -1)},"choices":[{"index":0,"delta":`;
  const tail = usageNull ? '}],"usage":null}' : '}]}';
  return (delta, finish = null) => ({
    data: `${head}${JSON.stringify(delta)},"logprobs":null,"finish_reason":${JSON.stringify(finish)}${tail}`,
  });
}

/**
 * `chunk({ [field]: text })` for any text, serialized once: the frame's data with the text's JSON
 * spliced in (one JSON.stringify of a string per token instead of the whole chunk). Falls back to
 * `chunk` when the placeholder is not found exactly once (it cannot be otherwise, but never guess).
 */
export function splicedChunk(
  chunk: (delta: Record<string, unknown>) => WireFrame,
  field: string,
): (text: string) => WireFrame {
  const placeholder = '\u0000\u0001';
  const encoded = JSON.stringify(placeholder);
  const template = chunk({ [field]: placeholder });
  const data = 'data' in template ? template.data : '';
  const at = data.indexOf(encoded);
  if (at === -1 || data.lastIndexOf(encoded) !== at) return (text) => chunk({ [field]: text });
  const before = data.slice(0, at);
  const after = data.slice(at + encoded.length);
  return (text) => ({ data: before + JSON.stringify(text) + after });
}

/**
 * The streamed sequence: a role chunk (held until the first content event), content /
 * `reasoning_content` deltas (or those of `context.reasoningField`), an `annotations` delta at the end of a text part that cites
 * sources, `tool_calls` deltas by index (id and name on the first), a `finish_reason` chunk, the
 * usage chunk when `stream_options.include_usage` asked for it, then `data: [DONE]`. Each chunk
 * carries `service_tier` from the moment the upstream named its tier (`message-start`, a `usage`
 * event); the last
 * chunks carry the final one, `default` (Chat's documented default) when the upstream named none.
 */
export function createStreamEncoder(context: EncodeContext): StreamEncoder {
  const identity = {
    id: context.responseId ?? createChatCompletionId(),
    object: 'chat.completion.chunk',
    created: unixSeconds(),
    model: context.model,
  };
  const fingerprint = `fp_${randomHex(10)}`;
  let base: Record<string, unknown> = { ...identity, system_fingerprint: fingerprint };
  /** The `service_tier` the chunks carry (none before the upstream names one). */
  let tier: string | undefined;
  let toolIndex = 0;
  const toolIndices = new Map<number, number>();
  /** Stream indexes of calls to freeform tools (their text is sent whole, as `custom.input`). */
  let custom: Set<number> | undefined;
  const args = new ArgumentTracker();
  let chunk = chunkFrames(base, context.streamUsage === true);
  // The per-token chunks differ only in their text: serialized once, the text spliced in.
  let contentChunk: ((text: string) => WireFrame) | undefined;
  let reasoningChunk: ((text: string) => WireFrame) | undefined;
  /** The reasoning part whose text went out last: another one's first delta starts after a blank line. */
  let reasoningIndex: number | undefined;
  let refusalChunk: ((text: string) => WireFrame) | undefined;
  /** Stream indexes of text parts that are the model's refusal (their `text-start` says so). */
  let refusals: Set<number> | undefined;
  /** Characters of message content sent so far, and where each open text part began in it. */
  let contentLength = 0;
  const textStarts = new Map<number, number>();

  /** From now on the chunks carry `service_tier: next` (their serialized heads made anew). */
  function retier(next: string): void {
    if (next === tier) return;
    tier = next;
    base = { ...identity, service_tier: next, system_fingerprint: fingerprint };
    chunk = chunkFrames(base, context.streamUsage === true);
    contentChunk = reasoningChunk = refusalChunk = undefined;
  }

  /** The role chunk before the first content; a reply that opens refusing starts as OpenAI's does. */
  function open(frames: WireFrame[], refusing = false): WireFrame[] {
    if (encoder.started) return frames;
    encoder.started = true;
    const role = refusing
      ? { role: 'assistant', content: null, refusal: '' }
      : { role: 'assistant', content: '', refusal: null };
    return [chunk(role), ...frames];
  }

  function toolDelta(index: number, fragment: string): WireFrame {
    return chunk({ tool_calls: [{ index: toolIndices.get(index) ?? 0, function: { arguments: fragment } }] });
  }

  function finish(response: CanonicalResponse): WireFrame[] {
    if (response.finishReason === 'error' || response.finishReason === 'cancelled') return [];
    retier(clientServiceTier(response.usage, 'default'));
    const frames = [chunk({}, mapFinishReason(openAiFinishReason(response), context))];
    // Citations known only at the finish (a Chat upstream's that came after their text ended, a
    // Gemini upstream's grounding): one annotations delta before it.
    const late = chatCitations(responseAnnotations(response), 0);
    if (late.length > 0) frames.unshift(chunk({ annotations: late }));
    if (context.streamUsage === true)
      frames.push(createFrame({ ...base, choices: [], usage: convertUsage(response.usage) }));
    frames.push({ data: '[DONE]' });
    return open(frames);
  }

  function event(event: StreamEvent): WireFrame[] {
    switch (event.type) {
      case 'text-start':
        if (!isRefusalText(event.metadata)) {
          textStarts.set(event.index, contentLength);
          return open([]);
        }
        (refusals ??= new Set()).add(event.index);
        return open([], true);
      case 'text-end': {
        // A text's citations are known at its end (its metadata): one `annotations` delta, as
        // OpenAI's search models send theirs in a delta after the text they cite.
        const start = textStarts.get(event.index);
        if (start === undefined) return [];
        textStarts.delete(event.index);
        const annotations = chatCitations(partAnnotations(event.metadata, contentLength - start), start);
        return annotations.length === 0 ? [] : open([chunk({ annotations })]);
      }
      case 'reasoning-start':
        return open([]);
      case 'text-delta':
        if (event.delta === '') return [];
        if (refusals?.has(event.index) === true)
          return open([(refusalChunk ??= splicedChunk(chunk, 'refusal'))(event.delta)]);
        contentLength += event.delta.length;
        return open([(contentChunk ??= splicedChunk(chunk, 'content'))(event.delta)]);
      case 'reasoning-delta': {
        if (event.delta === '') return [];
        const delta =
          reasoningIndex === undefined || reasoningIndex === event.index
            ? event.delta
            : `${reasoningSeparator}${event.delta}`;
        reasoningIndex = event.index;
        if (context.reasoningField === 'reasoning_details')
          return open([chunk(reasoningFields(delta, undefined, context))]);
        const field = context.reasoningField ?? 'reasoning_content';
        return open([(reasoningChunk ??= splicedChunk(chunk, field))(delta)]);
      }
      case 'reasoning-end':
        // OpenRouter's entries carry the signature, in a last piece of the entry.
        return context.reasoningField === 'reasoning_details' && event.signature !== undefined
          ? open([chunk(reasoningFields('', event.signature, context))])
          : [];
      case 'tool-call-start': {
        const index = toolIndex++;
        toolIndices.set(event.index, index);
        // A freeform call's deltas are fragments of `{"input": …}`: its text goes out whole at its end.
        if (context.freeform?.has(event.name) === true) {
          (custom ??= new Set()).add(event.index);
          const call = { index, id: event.id, type: 'custom', custom: { name: event.name, input: '' } };
          return open([chunk({ tool_calls: [call] })]);
        }
        const call = { index, id: event.id, type: 'function', function: { name: event.name, arguments: '' } };
        return open([chunk({ tool_calls: [call] })]);
      }
      case 'tool-call-delta':
        args.add(event.id, event.delta);
        return event.delta === '' || custom?.has(event.index) === true
          ? []
          : [toolDelta(event.index, event.delta)];
      case 'tool-call-end': {
        const rest = args.remainder(event.id, event.input);
        if (custom?.has(event.index) === true) {
          const input = freeformText(event);
          const call = { index: toolIndices.get(event.index) ?? 0, custom: { input } };
          return input === '' ? [] : [chunk({ tool_calls: [call] })];
        }
        return rest === '' ? [] : [toolDelta(event.index, rest)];
      }
      case 'finish':
        return finish(event.response);
      case 'message-start':
      case 'usage': {
        // The tier from a message-start event or a usage event, whichever names it.
        const named = event.type === 'usage' ? event.usage : event;
        if (named.serviceTier !== undefined) retier(clientServiceTier(named, 'default'));
        return [];
      }
      case 'custom':
        leaveOut(event.part, context);
        return [];
      default:
        return [];
    }
  }

  const encoder: EncoderState = {
    event,
    error: (error) => open([errorFrame(error)]),
    started: false,
  };
  return encoder;
}
