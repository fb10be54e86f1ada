/** Encodes canonical responses as the OpenAI Responses API: a `response` object or its `response.*` event stream. */
import type { StreamEvent } from '../../core/events.ts';
import type { FinishReason } from '../../core/finish-reason.ts';
import type { CanonicalResponse } from '../../core/request.ts';
import type { JsonValue } from '../../core/json.ts';
import type { MetadataMap } from '../../core/metadata.ts';
import type { Part } from '../../core/transcript.ts';
import { clientServiceTier, type Usage } from '../../core/usage.ts';
import { parseJson } from '../../core/json-text.ts';
import { pushAll } from '../../core/arrays.ts';
import { createFrame } from '../frames.ts';
import { createResponsesId, responsesItemId, unixSeconds } from '../ids.ts';
import { opaqueValue } from '../opaque.ts';
import { ArgumentTracker, inclusiveInput, isRefusalText, leaveOut, openAiFinishReason } from '../common.ts';
import { partAnnotations, responseAnnotations } from '../citations.ts';
import { argumentsText } from '../../core/tool-arguments.ts';
import { freeformText } from '../../core/tools.ts';
import type {
  EncodeContext,
  EncoderState,
  OpaquePayload,
  StreamEncoder,
  WireError,
  WireFrame,
} from '../types.ts';
import { errorBody } from '../openai-chat/errors.ts';
import { placeResponseAnnotations, type TextSpan } from './response-annotations.ts';
import { clientCallItem } from './client-calls.ts';

type ResponsesItem = Record<string, unknown> & { id: string; type: string };

const incompleteReasons: Partial<Record<FinishReason, string>> = {
  'max-tokens': 'max_output_tokens',
  'content-filter': 'content_filter',
};

/**
 * The incomplete reason of a response, or `undefined` when it completed (as an OpenAI refusal does:
 * its part says it, see `openAiFinishReason`).
 */
function incompleteReason(response: CanonicalResponse, context: EncodeContext): string | undefined {
  if (context.finishReason !== undefined)
    return ['completed', 'stop'].includes(context.finishReason) ? undefined : context.finishReason;
  return incompleteReasons[openAiFinishReason(response)];
}

/** Responses usage: the input count includes cached tokens, the output count includes reasoning. */
export function convertUsage(usage: Usage): Record<string, unknown> {
  const inputTokens = inclusiveInput(usage);
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: usage.cacheRead },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: usage.reasoning },
    total_tokens: inputTokens + usage.output,
  };
}

function encrypted(part: OpaquePayload, context: EncodeContext): string | undefined {
  return opaqueValue(part, context.opaque);
}

/**
 * A message's content part: the model's `refusal` as its own content type, else an `output_text`
 * with its annotations (`partAnnotations`: an OpenAI upstream's, an Anthropic upstream's web search
 * citations).
 */
function messagePart(text: string, refusal: boolean, annotations: JsonValue[] = []): Record<string, unknown> {
  return refusal
    ? { type: 'refusal', refusal: text }
    : { type: 'output_text', annotations, logprobs: [], text };
}

/** A text message item's `output_text` part. */
function textPart(item: ResponsesItem): TextSpan['part'] {
  return (item.content as TextSpan['part'][])[0] as TextSpan['part'];
}

/** A message item of one content part (by default, `text` as plain `output_text`). */
function messageItem(text: string, id: string, part = messagePart(text, false)): ResponsesItem {
  return { id, type: 'message', status: 'completed', content: [part], role: 'assistant' };
}

function reasoningItem(
  text: string,
  encryptedContent: string | undefined,
  id: string,
  entries: readonly string[] = text === '' ? [] : [text],
): ResponsesItem {
  const item: ResponsesItem = {
    id,
    type: 'reasoning',
    summary: entries.map((entry) => ({ type: 'summary_text', text: entry })),
  };
  if (encryptedContent !== undefined) item.encrypted_content = encryptedContent;
  return item;
}

function callItem(
  callId: string,
  name: string,
  argumentsText: string,
  context: EncodeContext,
  id: string,
): ResponsesItem {
  const item: ResponsesItem = {
    id,
    type: 'function_call',
    status: 'completed',
    arguments: argumentsText,
    call_id: callId,
    name,
  };
  return inNamespace(item, name, context);
}

/** A call to one of the request's freeform tools: its text as `input`. */
function customCallItem(
  callId: string,
  name: string,
  input: string,
  context: EncodeContext,
  id: string,
): ResponsesItem {
  const item: ResponsesItem = {
    id,
    type: 'custom_tool_call',
    status: 'completed',
    call_id: callId,
    name,
    input,
  };
  return inNamespace(item, name, context);
}

/** A call to a tool of one of the request's namespaces: named as the client declared it. */
function inNamespace(item: ResponsesItem, name: string, context: EncodeContext): ResponsesItem {
  const namespace = context.namespaces?.get(name);
  if (namespace !== undefined) {
    item.namespace = namespace;
    item.name = name.slice(namespace.length + 1);
  }
  return item;
}

/** An item the runtime closed before the provider finished it says so (`status: incomplete`). */
function markIncomplete(item: ResponsesItem | undefined, incomplete: boolean | undefined) {
  if (item !== undefined && incomplete === true) item.status = 'incomplete';
  return item;
}

/**
 * The last item of a reply cut short (output limit, content filter) is the one the cut ended: a
 * message says so (`status: incomplete`), as OpenAI's does; a call cut short is marked by its
 * part's `incomplete`, and a reasoning item has no status.
 */
function cutMessage(item: ResponsesItem | undefined): void {
  if (item?.type === 'message') item.status = 'incomplete';
}

/** An output item's id, made of its response's and its part's position (`responsesItemId`). */
type ItemIds = (prefix: string) => string;

function convertPart(
  part: Part,
  context: EncodeContext,
  ids: ItemIds,
  provider: string | undefined,
): ResponsesItem | undefined {
  // A built-in call the client runs, from a Responses upstream: the item it wrote (client-calls.ts).
  const verbatim = part.type === 'tool-call' ? clientCallItem(part, provider) : undefined;
  if (verbatim !== undefined) return verbatim as ResponsesItem;
  return markIncomplete(
    convertComplete(part, context, ids, provider),
    'incomplete' in part ? part.incomplete : undefined,
  );
}

/**
 * A whole reply's reasoning summary: the entries a Responses upstream gave (`<provider>.summary`,
 * the part's text being them joined by a blank line) kept apart, else the text as one entry. A
 * stream sends the text as one entry: its parts are known only at the reasoning's end.
 */
function summaryEntries(part: Part & { type: 'reasoning' }, provider: string | undefined): string[] {
  const text = part.text;
  const given = part.metadata?.[`${part.provider ?? provider}.summary`];
  if (Array.isArray(given) && given.every((entry) => typeof entry === 'string')) {
    const entries = (given as string[]).filter((entry) => entry !== '');
    if (entries.length > 1 && entries.join('\n\n') === text) return entries;
  }
  return text === '' ? [] : [text];
}

function convertComplete(
  part: Part,
  context: EncodeContext,
  ids: ItemIds,
  provider: string | undefined,
): ResponsesItem | undefined {
  switch (part.type) {
    case 'text':
      return messageItem(
        part.text,
        ids('msg'),
        messagePart(
          part.text,
          isRefusalText(part.metadata),
          partAnnotations(part.metadata, part.text.length),
        ),
      );
    case 'structured':
      return messageItem(JSON.stringify(part.value), ids('msg'));
    case 'reasoning':
      return reasoningItem(part.text, encrypted(part, context), ids('rs'), summaryEntries(part, provider));
    case 'tool-call':
      return context.freeform?.has(part.name) === true
        ? customCallItem(part.id, part.name, freeformText(part), context, ids('ctc'))
        : callItem(part.id, part.name, argumentsText(part), context, ids('fc'));
    default:
      return leaveOut(part, context);
  }
}

/**
 * A response object; `tier` its `service_tier`: the served tier in a final one, else `auto` (as the
 * API's `created` and `in_progress` events echo the request's, before a tier is chosen).
 */
function responseObject(context: EncodeContext, id: string, reason: string | undefined, tier = 'auto') {
  return {
    id,
    object: 'response',
    created_at: unixSeconds(),
    status: reason === undefined ? 'completed' : 'incomplete',
    background: false,
    error: null as Record<string, unknown> | null,
    incomplete_details: reason === undefined ? null : { reason },
    instructions: null,
    max_output_tokens: null,
    model: context.model,
    output: [] as ResponsesItem[],
    parallel_tool_calls: true,
    previous_response_id: context.previousResponseId ?? null,
    reasoning: { effort: null, summary: null },
    service_tier: tier,
    store: context.store ?? true,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: null as Record<string, unknown> | null,
    user: null,
    metadata: {},
  };
}

/** The non-streamed `response` body. */
export function encodeResponse(response: CanonicalResponse, context: EncodeContext): unknown {
  const reason = incompleteReason(response, context);
  const id = context.responseId ?? createResponsesId('resp');
  const body = responseObject(context, id, reason, clientServiceTier(response.usage, 'default'));
  const spans: TextSpan[] = [];
  let messageLength = 0;
  response.content.forEach((part, index) => {
    const item = convertPart(
      part,
      context,
      (prefix) => responsesItemId(prefix, id, index),
      response.provider,
    );
    if (part.type !== 'text' || isRefusalText(part.metadata)) {
      if (item !== undefined) body.output.push(item);
      return;
    }
    const start = messageLength;
    messageLength += part.text.length;
    if (item === undefined) return;
    const outputIndex = body.output.push(item) - 1;
    spans.push({ part: textPart(item), itemId: item.id, outputIndex, start, end: messageLength });
  });
  placeResponseAnnotations(responseAnnotations(response), spans);
  if (reason !== undefined) cutMessage(body.output.at(-1));
  body.usage = convertUsage(response.usage);
  return body;
}

interface OpenItem {
  item: ResponsesItem;
  outputIndex: number;
  text: string;
  /** A message that is the model's refusal: its part is `refusal`, its deltas `response.refusal.*`. */
  refusal?: boolean;
  /** A client-run built-in call's tool name (client-calls.ts): its item goes out as the upstream wrote it, no deltas. */
  verbatim?: string;
  /** A reasoning item's summary parts before the one `text` holds (`ReasoningDeltaEvent.part`). */
  summary?: string[];
}

/**
 * The streamed sequence: `response.created` and `response.in_progress` (held until the first
 * content event), per output item `output_item.added`, its deltas (`output_text.delta`,
 * `reasoning_summary_text.delta` — a summary part done and the next added where a delta says one
 * begins —, `function_call_arguments.delta`; a text's
 * `output_text.annotation.added`s before its `output_text.done`) and `output_item.done`, then
 * `response.completed` (`response.incomplete` for a cut reply; `response.failed` on an error).
 * Every event carries `sequence_number`.
 */
export function createStreamEncoder(context: EncodeContext): StreamEncoder {
  let sequence = 0;
  let provider: string | undefined;
  /** The upstream adapter's name (its parts' metadata keys). */
  let upstream: string | undefined;
  const id = context.responseId ?? createResponsesId('resp');
  const items: ResponsesItem[] = [];
  const open = new Map<number, OpenItem>();
  const args = new ArgumentTracker();
  /** The closed `output_text` parts and their spans of the message text, for the response's annotations. */
  const spans: TextSpan[] = [];
  let messageLength = 0;
  /**
   * The last closed message's `output_item.done`, held until the next item's event or the finish:
   * its status is known only then (a reply cut short ends it `incomplete`, `cutMessage`), and the
   * upstream ends the text before it says why the reply finished.
   */
  let held: { item: ResponsesItem; outputIndex: number } | undefined;
  const frame = (type: string, payload: Record<string, unknown>): WireFrame =>
    createFrame({ type, sequence_number: sequence++, ...payload }, type);

  /**
   * `response.created` and `response.in_progress` the first time, else nothing. It numbers its
   * frames when called: call it before making any frame that follows them (an empty reply's
   * `response.completed` was once numbered 0, before them).
   */
  function preamble(): WireFrame[] {
    if (encoder.started) return [];
    encoder.started = true;
    const response = { ...responseObject(context, id, undefined), status: 'in_progress' };
    return [frame('response.created', { response }), frame('response.in_progress', { response })];
  }

  function add(index: number, item: ResponsesItem, announced: ResponsesItem, refusal = false): WireFrame[] {
    const frames = preamble();
    const outputIndex = items.length;
    items.push(item);
    open.set(index, refusal ? { item, outputIndex, text: '', refusal } : { item, outputIndex, text: '' });
    frames.push(frame('response.output_item.added', { output_index: outputIndex, item: announced }));
    if (item.type === 'message') {
      const part = messagePart('', refusal);
      frames.push(
        frame('response.content_part.added', {
          item_id: item.id,
          output_index: outputIndex,
          content_index: 0,
          part,
        }),
      );
    } else if (item.type === 'reasoning') {
      const part = { type: 'summary_text', text: '' };
      frames.push(
        frame('response.reasoning_summary_part.added', {
          item_id: item.id,
          output_index: outputIndex,
          summary_index: 0,
          part,
        }),
      );
    }
    return frames;
  }

  function delta(index: number, text: string): WireFrame[] {
    const entry = open.get(index);
    if (entry === undefined || text === '' || entry.verbatim !== undefined) return [];
    entry.text += text;
    const at = { item_id: entry.item.id, output_index: entry.outputIndex };
    if (entry.item.type === 'message')
      return entry.refusal === true
        ? [frame('response.refusal.delta', { ...at, content_index: 0, delta: text })]
        : [frame('response.output_text.delta', { ...at, content_index: 0, delta: text, logprobs: [] })];
    if (entry.item.type === 'reasoning') {
      const summaryIndex = entry.summary?.length ?? 0;
      return [
        frame('response.reasoning_summary_text.delta', { ...at, summary_index: summaryIndex, delta: text }),
      ];
    }
    // A freeform call's deltas are fragments of `{"input": text}`: its text goes out whole at its end.
    if (entry.item.type === 'custom_tool_call') return [];
    return [frame('response.function_call_arguments.delta', { ...at, delta: text })];
  }

  /** A reasoning summary part's `text.done` and `part.done`. */
  function summaryDone(entry: OpenItem, summaryIndex: number): WireFrame[] {
    const at = { item_id: entry.item.id, output_index: entry.outputIndex, summary_index: summaryIndex };
    const text = entry.text;
    return [
      frame('response.reasoning_summary_text.done', { ...at, text }),
      frame('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text } }),
    ];
  }

  /**
   * The next summary part of a reasoning item begins (a delta with `part`): the current one is done,
   * the next added; the separator joining them in the canonical text is neither's.
   */
  function nextSummaryPart(index: number): WireFrame[] {
    const entry = open.get(index);
    if (entry?.item.type !== 'reasoning') return [];
    const summary = (entry.summary ??= []);
    const frames = summaryDone(entry, summary.length);
    summary.push(entry.text);
    entry.text = '';
    frames.push(
      frame('response.reasoning_summary_part.added', {
        item_id: entry.item.id,
        output_index: entry.outputIndex,
        summary_index: summary.length,
        part: { type: 'summary_text', text: '' },
      }),
    );
    return frames;
  }

  function close(
    index: number,
    extra: {
      encryptedContent?: string;
      argumentsText?: string;
      input?: string;
      incomplete?: boolean;
      metadata?: MetadataMap;
      /** A client-run built-in call's item. */
      item?: Record<string, unknown>;
    } = {},
  ): WireFrame[] {
    const entry = open.get(index);
    if (entry === undefined) return [];
    open.delete(index);
    const { item, outputIndex, text } = entry;
    const at = { item_id: item.id, output_index: outputIndex };
    const frames: WireFrame[] = [];
    if (item.type === 'message') {
      // A text's annotations arrive with its end (`text-end`'s metadata): one
      // `output_text.annotation.added` each, numbered, before its done events (OpenAI sends them
      // between the deltas, as each is found; the SDKs' accumulators place each by its index).
      const refusal = entry.refusal === true;
      const annotations = refusal ? [] : partAnnotations(extra.metadata, text.length);
      const part = messagePart(text, refusal, annotations);
      Object.assign(item, messageItem(text, item.id, part));
      if (!refusal) {
        const start = messageLength;
        messageLength += text.length;
        spans.push({ part: textPart(item), itemId: item.id, outputIndex, start, end: messageLength });
      }
      annotations.forEach((annotation, annotationIndex) =>
        frames.push(
          frame('response.output_text.annotation.added', {
            ...at,
            content_index: 0,
            annotation_index: annotationIndex,
            annotation,
          }),
        ),
      );
      frames.push(
        refusal
          ? frame('response.refusal.done', { ...at, content_index: 0, refusal: text })
          : frame('response.output_text.done', { ...at, content_index: 0, text, logprobs: [] }),
      );
      frames.push(frame('response.content_part.done', { ...at, content_index: 0, part }));
    } else if (item.type === 'reasoning') {
      const { summary } = entry;
      const entries = summary === undefined ? undefined : [...summary, text];
      Object.assign(item, reasoningItem(text, extra.encryptedContent, item.id, entries));
      frames.push(...summaryDone(entry, summary?.length ?? 0));
    } else if (entry.verbatim !== undefined) {
      // A client-run built-in call: its item as the upstream ended it, nothing else.
      Object.assign(item, extra.item);
    } else if (item.type === 'custom_tool_call') {
      const input = extra.input ?? '';
      item.input = input;
      item.status = 'completed';
      if (input !== '') frames.push(frame('response.custom_tool_call_input.delta', { ...at, delta: input }));
      frames.push(frame('response.custom_tool_call_input.done', { ...at, input }));
    } else {
      const argumentsText = extra.argumentsText ?? text;
      item.arguments = argumentsText;
      item.status = 'completed';
      frames.push(frame('response.function_call_arguments.done', { ...at, arguments: argumentsText }));
    }
    markIncomplete(item, extra.incomplete);
    if (item.type === 'message' && item.status === 'completed') held = { item, outputIndex };
    else frames.push(frame('response.output_item.done', { output_index: outputIndex, item }));
    return frames;
  }

  /** The held message's `output_item.done` ({@link held}), if any: made before the frames that follow it. */
  function release(): WireFrame[] {
    if (held === undefined) return [];
    const { item, outputIndex } = held;
    held = undefined;
    return [frame('response.output_item.done', { output_index: outputIndex, item })];
  }

  function finish(response: CanonicalResponse): WireFrame[] {
    if (response.finishReason === 'error' || response.finishReason === 'cancelled') return release();
    const reason = incompleteReason(response, context);
    if (reason !== undefined && held?.outputIndex === items.length - 1) cutMessage(held.item);
    const final = {
      ...responseObject(context, id, reason, clientServiceTier(response.usage, 'default')),
      output: items,
      usage: convertUsage(response.usage),
    };
    const frames = preamble();
    pushAll(frames, release());
    // Annotations known only now (a Chat upstream's that came after their text ended, a Gemini
    // upstream's grounding): added to their parts, each announced as its part's next annotation,
    // before the final response.
    for (const { span, index, annotation } of placeResponseAnnotations(responseAnnotations(response), spans))
      frames.push(
        frame('response.output_text.annotation.added', {
          item_id: span.itemId,
          output_index: span.outputIndex,
          content_index: 0,
          annotation_index: index,
          annotation,
        }),
      );
    frames.push(
      frame(reason === undefined ? 'response.completed' : 'response.incomplete', { response: final }),
    );
    return frames;
  }

  function event(event: StreamEvent): WireFrame[] {
    // Usage and left-out parts say nothing of the held message, and `finish` releases it itself
    // (marked); any other event ends its wait, its `done` first.
    const kind = event.type;
    if (held === undefined || kind === 'usage' || kind === 'custom' || kind === 'finish')
      return itemEvent(event);
    const frames = release();
    pushAll(frames, itemEvent(event));
    return frames;
  }

  function itemEvent(event: StreamEvent): WireFrame[] {
    switch (event.type) {
      case 'message-start':
        provider = event.provenance ?? event.provider;
        upstream = event.provider;
        return [];
      case 'text-start': {
        const item = messageItem('', responsesItemId('msg', id, event.index));
        return add(
          event.index,
          item,
          { ...item, status: 'in_progress', content: [] },
          isRefusalText(event.metadata),
        );
      }
      case 'reasoning-start': {
        const item = reasoningItem('', undefined, responsesItemId('rs', id, event.index));
        return add(event.index, item, { ...item, summary: [] });
      }
      case 'tool-call-start': {
        const verbatim = clientCallItem(event, upstream);
        if (verbatim !== undefined) {
          const item = { ...verbatim } as ResponsesItem;
          const frames = add(event.index, item, { ...item, status: 'in_progress' });
          open.get(event.index)!.verbatim = event.name;
          return frames;
        }
        const item =
          context.freeform?.has(event.name) === true
            ? customCallItem(event.id, event.name, '', context, responsesItemId('ctc', id, event.index))
            : callItem(event.id, event.name, '', context, responsesItemId('fc', id, event.index));
        return add(event.index, item, { ...item, status: 'in_progress' });
      }
      case 'text-delta':
        return delta(event.index, event.delta);
      case 'reasoning-delta':
        return event.part === undefined ? delta(event.index, event.delta) : nextSummaryPart(event.index);
      case 'tool-call-delta':
        args.add(event.id, event.delta);
        return delta(event.index, event.delta);
      case 'text-end':
        return close(event.index, { incomplete: event.incomplete, metadata: event.metadata });
      case 'reasoning-end': {
        const encryptedContent = encrypted(
          { provider, signature: event.signature, data: event.data, metadata: event.metadata },
          context,
        );
        return close(event.index, { encryptedContent, incomplete: event.incomplete });
      }
      case 'tool-call-end': {
        const name = open.get(event.index)?.verbatim;
        if (name !== undefined) {
          args.remainder(event.id, event.input);
          const item = clientCallItem({ name, metadata: event.metadata }, upstream);
          return close(event.index, item === undefined ? {} : { item, incomplete: event.incomplete });
        }
        if (open.get(event.index)?.item.type === 'custom_tool_call') {
          args.remainder(event.id, event.input);
          return close(event.index, { input: freeformText(event), incomplete: event.incomplete });
        }
        const rest = args.remainder(event.id, event.input);
        const frames = delta(event.index, rest);
        const argumentsText = (open.get(event.index)?.text ?? '') || JSON.stringify(event.input);
        return [...frames, ...close(event.index, { argumentsText, incomplete: event.incomplete })];
      }
      case 'finish':
        return finish(event.response);
      case 'custom':
        leaveOut(event.part, context);
        return [];
      default:
        return [];
    }
  }

  function error(error: WireError): WireFrame[] {
    const response = { ...responseObject(context, id, undefined), status: 'failed', output: items };
    const { message, code } = errorBody(error).error as { message: string; code: string | null };
    response.error = { code: code ?? 'server_error', message };
    const frames = preamble();
    pushAll(frames, release());
    frames.push(frame('response.failed', { response }));
    return frames;
  }

  const encoder: EncoderState = {
    event,
    error,
    started: false,
  };
  return encoder;
}

/** The frames that end a reply with its whole response (`finish` builds them). */
const finalEvents = new Set(['response.completed', 'response.incomplete']);

/**
 * Where the response object starts in a final frame's data: `finish` builds it as
 * `{"type":…,"sequence_number":…,"response":{…}}`, so the object is the data's tail but its `}`.
 */
function finalResponseStart(frame: WireFrame): number | undefined {
  if (!('data' in frame) || frame.event === undefined || !finalEvents.has(frame.event)) return undefined;
  const start = frame.data.indexOf('"response":{');
  return start === -1 ? undefined : start + '"response":'.length;
}

/**
 * The response object's JSON text in a stream's final frame, as the client reads it there (the
 * gateway stores it for `GET /v1/responses/{id}`): cut out of the frame's text, not written again.
 */
export function finalResponseText(frames: readonly WireFrame[]): string | undefined {
  for (const frame of frames) {
    const start = finalResponseStart(frame);
    if (start !== undefined) return (frame as { data: string }).data.slice(start, -1);
  }
  return undefined;
}

/**
 * Makes a stream's final frame say `store: false` (the gateway could not store the reply after it
 * was encoded): parsed and written again, on that rare path only.
 */
export function markUnstored(frames: WireFrame[]): void {
  frames.forEach((frame, index) => {
    const start = finalResponseStart(frame);
    if (start === undefined) return;
    const { data } = frame as { data: string; event: string };
    const response = { ...(parseJson(data.slice(start, -1)) as object), store: false };
    frames[index] = { ...frame, data: `${data.slice(0, start)}${JSON.stringify(response)}}` };
  });
}
