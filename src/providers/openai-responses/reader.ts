/** Reads Responses output items and stream events into builder calls: one reader for bodies and streams. */
import { maxSearchesPerReply } from '../../core/usage.ts';
import { isJsonObject, type JsonValue, jsonTypeName } from '../../core/json.ts';
import type { MetadataMap } from '../../core/metadata.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import { convertErrorBody } from '../openai/errors.ts';
import type { ProviderContext } from '../common/definition.ts';
import { canonicalToolId } from '../common/projection.ts';
import type { WireError, WireItem, WireResponse } from './api.ts';
import { convertUsage, mapFinishReason } from './response.ts';
import { customCallKey } from './messages.ts';
import { clientCallOf } from '../../core/responses-client-calls.ts';
import { clientItemKey } from './client-calls.ts';
import { commitResponse } from './state.ts';
import { holdStrictOutput } from '../openai/strict-nulls.ts';

/**
 * A freeform call's item as a function call's: its text as the arguments `{"input": text}`. Its
 * input's deltas are not read: the done item carries the whole text.
 */
function freeformArguments(item: WireItem): WireItem {
  return { ...item, arguments: JSON.stringify({ input: typeof item.input === 'string' ? item.input : '' }) };
}

/** Builder keys: 64 per output item (content or summary index below 32; reasoning text above). */
const slots = 64;

/**
 * A call item's `name`, or '' when it has no string one — a call without a name fails the stream,
 * classified ("a tool call without a name"), where `String()` would have named it `[object Object]`.
 */
function nameOf(item: WireItem): string {
  return typeof item.name === 'string' ? item.name : '';
}

/**
 * An item's `type` as text: itself when a string (every item the API writes), else its JSON — an
 * item a broken host typed `[{}]` is labelled `[{}]`, not `[object Object]`.
 */
function typeText(type: unknown): string {
  return typeof type === 'string' ? type : (JSON.stringify(type) ?? 'undefined');
}

/** What is known about one output item while it streams. */
interface OpenItem {
  type: string;
  id: string | undefined;
  /** Builder keys of the parts opened for it, in order. */
  keys: number[];
  /** Annotations per content index. */
  annotations?: Map<number, JsonValue[]>;
  /** Content indexes that are refusals. */
  refusals?: Set<number>;
  /** Builder keys of text parts already ended with their metadata (a later part opened). */
  ended?: Set<number>;
  /** Reasoning text arrived as deltas (the done item's summary is then not added again). */
  streamed?: boolean;
}

/**
 * Keeps the state of one response. Output items are keyed by `output_index` (item ids may change
 * mid-stream); messages become text parts (annotations and refusals in metadata), reasoning one
 * reasoning part per item (summary and reasoning text; `encrypted_content` as `data`), function
 * calls tool calls (arguments streamed raw), anything else a custom part carrying the item verbatim.
 *
 * Items stream one after another (OpenAI's order). The builder keeps parts sequential, so a host
 * that interleaves them — an item's events while another item is still open — would have the
 * earlier item's part ended under it and its later deltas dropped: the events of every item other
 * than the one streaming (`live`) are held and replayed, lowest output index first, once it is
 * done (or at the end of the stream, or before a failure, so nothing received is lost).
 */
export class ResponseReader {
  private readonly items = new Map<number, OpenItem>();
  /** Ids of the output items that became parts, in output order (for stateful sessions). */
  private readonly outputIds: string[] = [];
  private readonly provider: string;
  /** A terminal event arrived. */
  finished = false;
  /** A message carried a refusal. */
  private refused = false;
  /** The builder key of the last text delta (-1: none), to skip bookkeeping on the hot path. */
  private lastTextKey = -1;
  /** Output indexes whose function-call arguments arrived as deltas. */
  private readonly argumentsStreamed = new Set<number>();
  private lastArgumentsIndex = -1;
  /** The output index streaming now (its events go straight to the builder); -1 when none. */
  private live = -1;
  /** Output indexes whose `output_item.done` arrived. */
  private readonly done = new Set<number>();
  /** Events of items interleaved with the live one, in arrival order. */
  private readonly held = new Map<number, Array<() => void>>();
  /**
   * Output indexes reused by a host that sends none (every item at 0): the raw index → the index of
   * the item it now stands for, given when an item with another id is announced at a done index.
   */
  private readonly aliases = new Map<number, number>();
  /** The highest output index met (a new alias takes the next). */
  private highest = -1;
  /** Replaying held events (the guard lets them through). */
  private replaying = false;
  /** Completed `web_search_call` items: the searches billed per call (`Usage.webSearches`). */
  private webSearches = 0;

  private readonly context: ProviderContext;
  private readonly builder: StreamBuilder;

  constructor(context: ProviderContext, builder: StreamBuilder) {
    this.context = context;
    this.builder = builder;
    this.provider = context.provider;
    holdStrictOutput(context, builder);
  }

  /** Throws the classified error an error object stands for (held content reaches the builder first). */
  fail(error: WireError | string): never {
    try {
      this.flush();
    } catch {
      // A held event that fails on replay (a malformed stream) must not hide this error.
    }
    const body = convertErrorBody(error) ?? {};
    return this.context.fail(
      body.code === undefined && body.message === undefined ? { code: 'server_error' } : body,
      body.status,
    );
  }

  /** `response.created` / `in_progress`: response id and model. */
  start(response: WireResponse | undefined): void {
    const fields: { responseId?: string; model?: string } = {};
    if (typeof response?.id === 'string') fields.responseId = response.id;
    this.builder.start(fields);
    if (typeof response?.model === 'string' && response.model !== '') this.builder.setModel(response.model);
  }

  /**
   * True when the event for `index` was held (another item is streaming) or dropped (its item is
   * done); otherwise `index` is the live item from now on.
   */
  private holds(index: number, replay: () => void, type?: unknown): boolean {
    if (this.done.has(index)) return this.late(index, type);
    if (this.replaying || this.live === -1) {
      this.live = index;
      return false;
    }
    const events = this.held.get(index);
    if (events === undefined) this.held.set(index, [replay]);
    else events.push(replay);
    return true;
  }

  /**
   * An event for an item already done: a delta is skipped with a WARN; an item announced again as
   * another type is a broken stream (a host that sends no `output_index`, every item at 0).
   */
  private late(index: number, type: unknown): true {
    const known = this.items.get(index)?.type;
    if (type !== undefined && known !== undefined && typeText(type) !== known)
      this.fail({
        code: 'server_error',
        message: `the stream announced output item ${index} as ${typeText(type)} after ${known}`,
      });
    this.context.warn('skipped unexpected stream content', {
      what: `an event for output item ${index} after its output_item.done`,
    });
    return true;
  }

  /** The item a raw `output_index` stands for (see {@link aliases}). */
  private at(raw: number): number {
    return this.aliases.size === 0 ? raw : (this.aliases.get(raw) ?? raw);
  }

  /**
   * The index of an item announced (or ended whole) at `raw`: another item (another id) where one
   * already ended is a host without `output_index` — it is the next item.
   */
  private itemAt(raw: number, item: WireItem): number {
    let index = this.at(raw);
    if (this.done.has(index) && typeof item.id === 'string' && item.id !== this.items.get(index)?.id) {
      index = this.highest + 1;
      this.aliases.set(raw, index);
    }
    if (index > this.highest) this.highest = index;
    return index;
  }

  /** Replays held events, item by item in output order, while no item is streaming (all of them: `all`). */
  private release(all = false): void {
    while (this.held.size > 0 && (all || this.live === -1)) {
      let next = Infinity;
      for (const index of this.held.keys()) if (index < next) next = index;
      const events = this.held.get(next)!;
      this.held.delete(next);
      const replaying = this.replaying;
      this.replaying = true;
      this.live = next;
      try {
        for (const replay of events) replay();
      } finally {
        this.replaying = replaying;
      }
    }
  }

  /** Every held event reaches the builder (the stream ends or fails: nothing received is lost). */
  flush(): void {
    if (this.held.size > 0 && !this.replaying) this.release(true);
  }

  /** `response.output_item.added`: opens the item's part where one streams. */
  added(raw: number, item: WireItem): void {
    const index = this.itemAt(raw, item);
    if (index !== this.live && this.holds(index, () => this.added(index, item), item.type)) return;
    const known = this.items.get(index);
    if (known !== undefined) {
      // Announced again (or after its first delta): what streamed so far stays; another type is a broken stream.
      if (known.type === typeText(item.type)) {
        known.id ??= item.id;
        return;
      }
      this.fail({
        code: 'server_error',
        message: `the stream announced output item ${index} as ${typeText(item.type)} after ${known.type}`,
      });
    }
    const open: OpenItem = { type: typeText(item.type), id: item.id, keys: [] };
    this.items.set(index, open);
    const key = index * slots;
    if (item.type === 'reasoning') {
      this.builder.openText(key, 'reasoning');
      open.keys.push(key);
    } else if (
      (item.type === 'function_call' || this.isFreeformCall(item)) &&
      typeof item.call_id === 'string'
    ) {
      this.builder.toolStart(key, canonicalToolId(this.context, item.call_id), nameOf(item));
      open.keys.push(key);
    }
  }

  /**
   * A `custom_tool_call` to one of the request's freeform tools: a tool call whose input is
   * `{ input: text }`. Any other (xAI's own `x_search`, run by the host) stays a custom part.
   */
  private isFreeformCall(item: WireItem): boolean {
    return (
      item.type === 'custom_tool_call' &&
      typeof item.name === 'string' &&
      this.context.freeformTools?.has(item.name) === true
    );
  }

  /** A text delta of content `contentIndex` of the message at `index`. */
  text(raw: number, contentIndex: number, delta: string, refusal = false): void {
    const index = this.at(raw);
    const key = index * slots + contentIndex;
    // Hot path: the same part as the last delta needs no bookkeeping.
    if (key === this.lastTextKey && !refusal) {
      this.builder.text(key, delta);
      return;
    }
    if (index !== this.live && this.holds(index, () => this.text(index, contentIndex, delta, refusal)))
      return;
    this.lastTextKey = refusal ? -1 : key;
    const open = this.openItem(index, 'message');
    if (!open.keys.includes(key)) {
      // The builder ends the open part when another opens: the message's previous part is ended
      // here first, with its annotations and refusal flag, or they would be lost.
      const previous = open.keys.at(-1);
      if (previous !== undefined) this.endText(index, open, previous, open.id);
      open.keys.push(key);
    }
    if (refusal) (open.refusals ??= new Set()).add(contentIndex);
    this.builder.text(key, delta, refusal ? { [`${this.provider}.refusal`]: true } : undefined);
  }

  /**
   * A reasoning delta (summary or reasoning text) of the reasoning item at `index`; `summaryPart`
   * (1, 2, …): the summary's next part begins, a blank line from the text before it (marked as the
   * part's start: `StreamBuilder.reasoningPart`).
   */
  reasoning(raw: number, delta: string, summaryPart?: number): void {
    const index = this.at(raw);
    if (index !== this.live && this.holds(index, () => this.reasoning(index, delta, summaryPart))) return;
    const key = index * slots;
    if (!this.items.has(index)) this.added(index, { type: 'reasoning' });
    const open = this.items.get(index) as OpenItem;
    if (summaryPart !== undefined && open.streamed === true) this.builder.reasoningPart(key, summaryPart);
    open.streamed = true;
    this.builder.reasoning(key, delta);
  }

  /** A raw fragment of a function call's arguments. */
  toolDelta(raw: number, delta: string): void {
    const index = this.at(raw);
    if (index !== this.lastArgumentsIndex) {
      if (index !== this.live && this.holds(index, () => this.toolDelta(index, delta))) return;
      const open = this.items.get(index);
      if (open?.type !== 'function_call' || open.keys.length === 0) {
        // No call opened for it (never announced, or announced without a call id): the done item's
        // arguments are used instead of these fragments.
        this.context.warn('skipped unexpected stream content', {
          what: `function-call arguments for output item ${index}, which is not an open call`,
        });
        return;
      }
      this.lastArgumentsIndex = index;
      this.argumentsStreamed.add(index);
    }
    this.builder.toolDelta(index * slots, delta);
  }

  /** An annotation of a message's text (kept in the text part's metadata). */
  annotation(raw: number, contentIndex: number, annotation: JsonValue | undefined): void {
    const index = this.at(raw);
    if (annotation === undefined) return;
    if (index !== this.live && this.holds(index, () => this.annotation(index, contentIndex, annotation)))
      return;
    const open = this.openItem(index, 'message');
    const map = (open.annotations ??= new Map());
    const list = map.get(contentIndex) ?? [];
    list.push(annotation);
    map.set(contentIndex, list);
  }

  /** `response.output_item.done` (or one item of a whole body): fills in what did not stream, ends the parts. */
  item(raw: number, item: WireItem): void {
    const index = this.itemAt(raw, item);
    if (index !== this.live && this.holds(index, () => this.item(index, item), item.type)) return;
    if (!this.items.has(index)) this.added(index, item);
    const open = this.items.get(index) as OpenItem;
    const id = typeof item.id === 'string' ? item.id : open.id;
    if (
      item.type === 'web_search_call' &&
      item.status === 'completed' &&
      this.webSearches < maxSearchesPerReply
    )
      this.webSearches++;
    switch (item.type) {
      case 'message':
        this.endMessage(index, open, item, id);
        break;
      case 'reasoning':
        this.endReasoning(index, open, item, id);
        break;
      case 'function_call':
        this.endFunctionCall(index, open, item, id);
        break;
      case 'custom_tool_call':
        if (this.isFreeformCall(item))
          this.endFunctionCall(index, open, freeformArguments(item), id, {
            [customCallKey(this.provider)]: true,
          });
        else this.custom(item);
        break;
      default:
        this.clientCallOrCustom(index, open, item, id);
        break;
    }
    if (id !== undefined) this.outputIds.push(id);
    this.done.add(index);
    this.live = -1;
    this.lastTextKey = -1;
    this.lastArgumentsIndex = -1;
    if (!this.replaying) this.release();
  }

  /**
   * A built-in call the client runs (`clientCallOf`): a tool call whose input is the item's payload,
   * the item kept verbatim in `<provider>.item` (it goes back as it came), from start to end. It
   * opens at its done item, not when announced: an announced item's `call_id` is not always final
   * (a streamed client tool search's changed). Any other item: a custom part.
   */
  private clientCallOrCustom(index: number, open: OpenItem, item: WireItem, id: string | undefined): void {
    const call = clientCallOf(item);
    if (call === undefined) return this.custom(item);
    const verbatim = { [clientItemKey(this.provider)]: item as JsonValue };
    const asCall = { ...item, name: call.name, arguments: JSON.stringify(call.input) };
    this.endFunctionCall(index, open, asCall, id, verbatim, verbatim);
  }

  /** An item the canonical transcript has no part for: a custom part carrying it verbatim. */
  private custom(item: WireItem): void {
    this.builder.custom({
      type: 'custom',
      provider: this.provider,
      kind: typeText(item.type),
      data: item as JsonValue,
    });
  }

  private metadata(id: string | undefined, extra?: MetadataMap): MetadataMap | undefined {
    if (id === undefined) return extra;
    return { ...extra, [`${this.provider}.item_id`]: id };
  }

  private endMessage(index: number, open: OpenItem, item: WireItem, id: string | undefined): void {
    const content = Array.isArray(item.content) ? item.content : [];
    content.forEach((entry, contentIndex) => {
      const key = index * slots + contentIndex;
      if (open.keys.includes(key)) return;
      const refusal = entry?.type === 'refusal';
      const text = refusal ? entry.refusal : entry?.text;
      if (text !== undefined && text !== null && typeof text !== 'string')
        throw new TypeError(
          `a message's ${refusal ? 'refusal' : 'text'} is ${jsonTypeName(text)}, not a string`,
        );
      if (typeof text === 'string' && text !== '') this.text(index, contentIndex, text, refusal);
      if (Array.isArray(entry?.annotations))
        for (const annotation of entry.annotations) this.annotation(index, contentIndex, annotation);
    });
    for (const key of open.keys) this.endText(index, open, key, id);
    if (open.refusals !== undefined) this.refused = true;
  }

  /** Ends one text part of a message (once) with its annotations and refusal flag. */
  private endText(index: number, open: OpenItem, key: number, id: string | undefined): void {
    if (open.ended?.has(key) === true) return;
    (open.ended ??= new Set()).add(key);
    const contentIndex = key - index * slots;
    const extra: MetadataMap = {};
    const annotations = open.annotations?.get(contentIndex);
    if (annotations !== undefined && annotations.length > 0)
      extra[`${this.provider}.annotations`] = annotations;
    if (open.refusals?.has(contentIndex) === true) extra[`${this.provider}.refusal`] = true;
    this.builder.end(key, { metadata: this.metadata(id, extra) });
  }

  private endReasoning(index: number, open: OpenItem, item: WireItem, id: string | undefined): void {
    const key = index * slots;
    const summary = Array.isArray(item.summary)
      ? item.summary.map((entry) => (typeof entry?.text === 'string' ? entry.text : ''))
      : [];
    if (!open.streamed) {
      const texts = [...summary];
      if (Array.isArray(item.content))
        for (const entry of item.content) if (typeof entry?.text === 'string') texts.push(entry.text);
      const text = texts.filter((entry) => entry !== '').join('\n\n');
      if (text !== '') this.builder.reasoning(key, text);
    }
    const extra: MetadataMap = { [`${this.provider}.summary`]: summary };
    const fields: { data?: string; metadata?: MetadataMap } = { metadata: this.metadata(id, extra) };
    if (typeof item.encrypted_content === 'string' && item.encrypted_content !== '')
      fields.data = item.encrypted_content;
    this.builder.end(key, fields);
  }

  private endFunctionCall(
    index: number,
    open: OpenItem,
    item: WireItem,
    id: string | undefined,
    extra?: MetadataMap,
    startMetadata?: MetadataMap,
  ): void {
    const key = index * slots;
    if (open.keys.length === 0) {
      const callId = typeof item.call_id === 'string' ? item.call_id : (id ?? `call_${index}`);
      const canonical = canonicalToolId(this.context, callId);
      this.builder.toolStart(key, canonical, nameOf(item), undefined, startMetadata);
      open.keys.push(key);
    }
    if (!this.argumentsStreamed.has(index) && typeof item.arguments === 'string')
      this.builder.toolDelta(key, item.arguments);
    this.builder.end(key, { metadata: this.metadata(id, extra) });
  }

  private openItem(index: number, type: string): OpenItem {
    let open = this.items.get(index);
    if (open === undefined) {
      open = { type, id: undefined, keys: [] };
      this.items.set(index, open);
    }
    return open;
  }

  /** `response.completed` / `incomplete` / `failed` (or the end of a whole body): usage and service tier, finish reason, state. */
  terminal(response: WireResponse | undefined): void {
    this.flush();
    // A failed response is a failure of the stream, not its complete end (which would hide it).
    if (response?.status === 'failed')
      this.fail(response.error ?? { code: 'server_error', message: 'the response failed' });
    // One still queued or running (a background response) has no answer yet: never an empty success.
    if (response?.status === 'in_progress' || response?.status === 'queued')
      this.fail({
        code: 'response_not_finished',
        message: `the response is not finished (status ${response.status}); background responses are not read`,
      });
    // A host that streams no item event at all (only the terminal one) has its output there: read
    // as a whole body's, never a silent empty reply.
    if (this.items.size === 0 && this.done.size === 0 && Array.isArray(response?.output))
      response.output.forEach((item, index) => {
        if (isJsonObject(item)) this.item(index, item);
        else
          this.context.warn('skipped unexpected stream content', {
            what: `output[${index}], ${jsonTypeName(item)}`,
          });
      });
    this.finished = true;
    // The served tier: only the final response names it (`created` and `in_progress` echo the request's `auto`).
    if (response?.service_tier !== undefined) this.builder.serviceTier(response.service_tier);
    if (response?.usage !== undefined && response.usage !== null) {
      const usage = convertUsage(response.usage);
      if (this.webSearches > 0) usage.webSearches = this.webSearches;
      this.builder.usage(usage);
    }
    const status = typeof response?.status === 'string' ? response.status : 'completed';
    const reason = response?.incomplete_details?.reason;
    const raw = status === 'incomplete' && typeof reason === 'string' ? reason : status;
    const mapped = mapFinishReason(raw, this.builder.hasToolCalls);
    this.builder.setFinish(this.refused && mapped === 'completed' ? 'content-filter' : mapped, raw);
    if (typeof response?.id === 'string' && (status === 'completed' || status === 'incomplete')) {
      commitResponse(this.context, response.id, this.outputIds);
    }
  }
}
