/** The Messages API SSE stream parser: one `switch (event.type)`, one small handler per event type. */
import { NetworkError } from '../../core/errors/network-error.ts';
import { isJsonObject } from '../../core/json.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import { emptyUsage, type Usage } from '../../core/usage.ts';
import type { ProviderContext, StreamParser } from '../common/definition.ts';
import type { WireResponseMessage, WireStreamEvent, WireUsage } from './api.ts';
import { createTruncatedError } from '../common/errors.ts';
import { DeltaScanner } from './delta-scanner.ts';
import { ResponseReader } from './reader.ts';
import { convertErrorBody } from './errors.ts';
import { addUsage, applyMessageFields, convertUsageFields, withDefined } from './response.ts';
import { parseJson } from '../../core/json-text.ts';

/**
 * How long, after `message_stop`, a body that is still open may take to start a concatenated
 * message (`message_start`, merged as below) before the stream is over. A concatenating writer (a
 * replayed recording, a proxy joining the messages it holds) sends the next message with the last
 * or right behind it; one that starts later is not merged (the stream ended with the messages
 * before). The API ends its body right after `message_stop` (nothing is waited for then);
 * a server that holds the connection open after it costs this window instead of the idle timeout
 * (120 s by default).
 */
export const concatenatedMessageWindowMs = 50;

/**
 * Stream state. Odd-but-real streams:
 * - a `message_start` repeating the open message's id (gateways duplicate the frame) is ignored;
 * - a `message_start` with another id while a message is open means an intermediary spliced a
 *   retried generation into the body: the first generation's signed thinking cannot be replayed,
 *   so the stream fails with a retryable `NetworkError` (`stream_spliced`) instead of merging them;
 * - a `message_start` after `message_stop` (recordings and proxies that concatenate consecutive
 *   messages) continues the same response: content is appended, usage added up, the last stop
 *   reason wins, and the message ids are kept in `anthropic.message_ids` (with a WARN);
 * - a body that ends before `message_stop` is truncated: `onEnd` throws `stream_truncated`;
 * - a body held open after `message_stop` ends the stream once nothing comes for
 *   {@link concatenatedMessageWindowMs} (`quietEndMs`).
 * `ping` is ignored; unknown event types are skipped with a WARN.
 */
class AnthropicStream implements StreamParser {
  private readonly context: ProviderContext;
  private readonly builder: StreamBuilder;
  private readonly blocks: ResponseReader;
  private messageOpen = false;
  private messageId: string | undefined;
  private readonly messageIds: string[] = [];
  private messages = 0;
  private stopped = false;
  /** Usage of the messages already stopped, and the latest report of the open one. */
  private completedUsage: Usage = emptyUsage();
  private currentUsage: Partial<Usage> = {};
  /** The response's own model (message_start): its iterations are the top-level usage. */
  private executor: string | undefined;
  private readonly scanner = new DeltaScanner();

  constructor(context: ProviderContext, builder: StreamBuilder) {
    this.context = context;
    this.builder = builder;
    this.blocks = new ResponseReader(context, builder);
  }

  /**
   * A block event's `index` (0 when absent, as a single-block reply may leave it out). Anything but
   * a whole number ≥ 0 is a broken stream: keyed as it came, a `"1"` would open a second block beside
   * `1` and the reply's order would be lost — the stream fails, classified, with what arrived.
   */
  private indexOf(event: WireStreamEvent): number {
    const index: unknown = event.index ?? 0;
    if (Number.isSafeInteger(index) && (index as number) >= 0) return index as number;
    return this.context.fail({
      code: 'api_error',
      message: `anthropic: a ${event.type} carried index ${JSON.stringify(index)}, which is not a block index`,
    });
  }

  onEvent(_event: string | undefined, data: string): void {
    // Hot path: text, tool-input and thinking deltas are read in place (see DeltaScanner for the
    // measured reason); every other event, and any delta the scanner does not take, goes to JSON.parse.
    if (this.scanner.scan(data)) {
      this.blocks.piece(this.scanner.index, this.scanner.type, this.scanner.delta);
      return;
    }
    // An event with no data (a keep-alive some proxies send) carries nothing, as on the other readers.
    if (data === '') return;
    const event = parseJson(data) as WireStreamEvent | null;
    if (typeof event !== 'object' || event === null || typeof event.type !== 'string') {
      this.context.warn('skipped unexpected stream content', { what: 'an event without a type' });
      return;
    }
    switch (event.type) {
      case 'message_start':
        this.onMessageStart(event);
        return;
      case 'content_block_start':
        this.blocks.start(this.indexOf(event), event.content_block);
        return;
      case 'content_block_delta':
        this.blocks.delta(this.indexOf(event), event.delta);
        return;
      case 'content_block_stop':
        this.blocks.stop(this.indexOf(event));
        return;
      case 'message_delta':
        this.onMessageDelta(event);
        return;
      case 'message_stop':
        this.onMessageStop();
        return;
      case 'ping':
        return;
      case 'error':
        this.context.fail(convertErrorBody(event) ?? { message: 'stream error event without details' });
        return;
      default:
        this.context.warn('skipped unexpected stream content', {
          what: `unknown event type ${eventTypeName(event.type)}`,
        });
    }
  }

  private onMessageStart(event: WireStreamEvent): void {
    const message: WireResponseMessage = isJsonObject(event.message) ? event.message : {};
    // Only a string is an id (a broken host's object id is none, never `[object Object]`).
    const id = typeof message.id === 'string' ? message.id : undefined;
    if (this.messageOpen) {
      if (id === this.messageId) {
        this.context.warn('skipped unexpected stream content', {
          what: `a duplicate message_start for ${id}`,
        });
        return;
      }
      throw new NetworkError({
        message: `anthropic: the stream started message ${id ?? '(no id)'} while message ${this.messageId ?? '(no id)'} was still open; an intermediary spliced two generations into one response`,
        providerCode: 'stream_spliced',
        retryable: true,
        provider: 'anthropic',
        requestId: this.context.requestId,
      });
    }
    this.messages++;
    this.blocks.beginMessage();
    this.messageOpen = true;
    this.stopped = false;
    this.messageId = id;
    if (id !== undefined) this.messageIds.push(id);
    if (this.messages > 1) {
      this.context.warn('appended a further message of the stream to the response', { messageId: id });
      this.builder.setMetadata('anthropic.message_ids', [...this.messageIds]);
    }
    const model = typeof message.model === 'string' ? message.model : undefined;
    if (model !== undefined) this.executor = model;
    this.builder.start(withDefined({ responseId: id, model }));
    if (Array.isArray(message.content)) {
      message.content.forEach((block, index) => {
        this.blocks.whole(index, block);
      });
    }
    applyMessageFields(this.builder, message, message.usage, this.blocks.hasDirectToolCalls);
    this.updateUsage(message.usage);
  }

  private onMessageDelta(event: WireStreamEvent): void {
    const delta = isJsonObject(event.delta) ? event.delta : {};
    applyMessageFields(
      this.builder,
      { ...delta, context_management: event.context_management },
      event.usage,
      this.blocks.hasDirectToolCalls,
    );
    this.updateUsage(event.usage);
  }

  private onMessageStop(): void {
    if (this.blocks.hasOpen) {
      this.context.warn('skipped unexpected stream content', { what: 'blocks left open at message_stop' });
      this.blocks.stopAll();
    }
    this.messageOpen = false;
    this.stopped = true;
    this.completedUsage = addUsage(this.completedUsage, this.currentUsage);
    this.currentUsage = {};
  }

  /** Counts are cumulative within a message: later reports override per bucket. */
  private updateUsage(usage: WireUsage | null | undefined): void {
    if (!isJsonObject(usage)) return;
    Object.assign(this.currentUsage, convertUsageFields(usage, this.executor));
    this.builder.usage(addUsage(this.completedUsage, this.currentUsage));
  }

  /** Whole once a message stopped and none is open. */
  isComplete(): boolean {
    return this.stopped && !this.messageOpen;
  }

  /**
   * `message_stop` is not final (a further message may follow, see above): once a message stopped
   * and none is open, the runtime waits {@link concatenatedMessageWindowMs} for one, then stops
   * reading even if the server holds the connection open.
   */
  quietEndMs(): number | undefined {
    return this.isComplete() ? concatenatedMessageWindowMs : undefined;
  }

  onEnd(): void {
    if (this.stopped && !this.messageOpen) return;
    throw createTruncatedError(this.context, 'the body ended before message_stop');
  }
}

/** Creates the parser of one response stream; it drives `builder` and never emits events itself. */
export function createStreamParser(context: ProviderContext, builder: StreamBuilder): StreamParser {
  return new AnthropicStream(context, builder);
}

/** An event type fit for a log line: an identifier as is, anything else only described (it may be payload). */
function eventTypeName(type: unknown): string {
  return typeof type === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(type)
    ? type
    : `(not an identifier: ${typeof type === 'string' ? `${type.length} characters` : typeof type})`;
}
