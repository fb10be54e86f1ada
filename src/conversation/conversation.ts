/**
 * A stateful conversation: the transcript, the adapter session (tool-id map, provider state), the
 * running usage and cost. `send()` streams a turn and appends the assistant item; the model can
 * change between turns; `toJSON()` / `fromJSON()` save and restore everything.
 */
import { type AdapterSession, type CallOptions, createSession } from '../core/adapter.ts';
import type { JsonValue } from '../core/json.ts';
import type { Item, Part, Transcript } from '../core/transcript.ts';
import { ToolIdMap } from '../core/tool-id-map.ts';
import { emptyUsage, type Usage } from '../core/usage.ts';
import type { RouteRequest } from '../routing/router.ts';
import type { Reply } from '../core/reply.ts';
import { addUsage, assistantItem, toolResultItem, type ToolResultValue } from './helpers.ts';
import { failedTurn, onTurnFailure, Turn } from './turn.ts';
import { invalidInput } from '../core/input-check.ts';
import { InvalidRequestError } from '../core/errors/invalid-request-error.ts';
import { isNotSent } from '../core/errors/not-sent.ts';
import { routingDecisionOfError } from '../routing/decision.ts';
import { checkTranscript } from '../core/transcript-invariants.ts';
import { parseTranscript } from '../core/transcript-schema.ts';
import type { ToolCallPart } from '../core/transcript.ts';
import { plainToolSpec } from '../core/tools.ts';
import type { SchemaLike } from '../schemas/schema.ts';

/** Request options a conversation applies to every turn (everything but the transcript). */
export type ConversationSettings = Omit<RouteRequest, 'transcript' | 'requestId'> & {
  /** The system prompt, kept as the first transcript item. */
  system?: string;
  /**
   * Every reply must be JSON matching this schema (zod, Standard Schema or JSON Schema), given as
   * `reply.structured`, as `sy.complete`'s `output`. Code, not data: `toJSON()` leaves it out;
   * pass it again to `fromJSON(snapshot, { output })`.
   */
  output?: SchemaLike;
};

/**
 * Everything a conversation needs to be restored. Its settings never hold `providerOptions`: they
 * reach the provider's request as written, and a snapshot is data from anywhere (`toJSON()` leaves
 * them out; pass them to `fromJSON(snapshot, { providerOptions })`).
 */
export interface ConversationSnapshot {
  version: 1;
  settings: Omit<ConversationSettings, 'tools' | 'providerOptions' | 'output'> & {
    tools?: RouteRequest['tools'];
  };
  transcript: Transcript;
  usage: Usage;
  turns: number;
  session: { id: string; toolIds: Array<[string, string, string]>; state: Array<[string, JsonValue]> };
}

/** What `sy.conversation.fromJSON(snapshot, options)` takes besides the snapshot. */
export interface ConversationRestoreOptions {
  /** The restored conversation's provider options (a snapshot's own are refused, these replace them). */
  providerOptions?: RouteRequest['providerOptions'];
  /** The restored conversation's `output` schema (a snapshot holds none). */
  output?: SchemaLike;
}

/** How a conversation sends one request (the front door's streaming call). */
export type ConversationSender = (
  request: RouteRequest,
  options: CallOptions,
  onReply: (reply: Reply) => Reply,
) => Turn;

/** A stateful conversation; create one with `sy.conversation(...)`. */
export class Conversation {
  /** The model (name, alias or id) of the next turn; assign to switch providers mid-conversation. */
  model: string;
  readonly settings: ConversationSettings;
  readonly transcript: Transcript;
  readonly session: AdapterSession;
  /** Usage summed over every turn; `cost` while every turn had a known price. */
  usage: Usage;
  /** Completed turns. */
  turns: number;
  private readonly send_: ConversationSender;
  private readonly end_: ((session: AdapterSession) => Promise<void>) | undefined;
  /** The turn in flight: until it ends (its reply appended, or it failed or was stopped) no other starts. */
  private inFlight: Turn | undefined;
  /** Aborts the turn in flight (`cancel()`, or the call's own signal) and stops following that signal. */
  private stop: { abort: (reason?: unknown) => void; release: () => void } | undefined;

  constructor(
    sender: ConversationSender,
    settings: ConversationSettings,
    restored?: ConversationSnapshot,
    end?: (session: AdapterSession) => Promise<void>,
  ) {
    this.send_ = sender;
    this.end_ = end;
    this.settings = settings;
    this.model = settings.model;
    this.transcript =
      restored?.transcript ?? (settings.system === undefined ? [] : [systemItem(settings.system)]);
    this.session = restored === undefined ? createSession() : restoreSession(restored.session);
    this.usage = restored?.usage ?? emptyUsage();
    this.turns = restored?.turns ?? 0;
  }

  /**
   * Appends `input` (text, an item, or parts of a user item; nothing to continue after tool results)
   * and streams the model's turn. Iterate the returned turn for events or await it for the reply;
   * either way the assistant item is appended and usage added when it finishes. One turn at a time:
   * while one is in flight, `send()` returns a failed turn (`InvalidRequestError`, code
   * `conversation_busy`) and changes nothing, as does a send refused before anything is sent (a
   * bad input or option, the request's checks; the adapter's own checks, whose refusal takes the
   * input back as the turn's error reaches its reader). A turn ends with its reply (its `finish` event), its
   * error, or — after a `break` — once the aborted call settles (`await` it). A turn aborted by
   * `options.signal` or `cancel()` settles by itself, read or not: the conversation is free once it has.
   */
  send(input?: string | Item | Part[], options: CallOptions = {}): Turn {
    const busy = this.busy('conversation.send');
    if (busy !== undefined) return new Turn(failedTurn(busy));
    if (typeof options !== 'object' || options === null) {
      const issue = { path: 'options', message: 'call options must be an object' };
      return new Turn(failedTurn(invalidInput('conversation.send: invalid request', [issue])));
    }
    // A bad input is refused before it joins the transcript: once in, every later turn would fail.
    let added: Item | undefined;
    if (input !== undefined) {
      const item = checkedItem(input);
      if (!item.ok) return new Turn(failedTurn(item.error));
      this.transcript.push((added = item.value));
    }
    const { system: _system, model: _model, ...rest } = this.settings;
    // The transcript as it is now (a shallow copy): the request never sees a later change.
    const request: RouteRequest = { ...rest, model: this.model, transcript: this.transcript.slice() };
    // The call's own signal, so `cancel()` can abort the turn; the caller's signal aborts it too (with
    // its reason). A `signal` that is no AbortSignal is passed on as it is, for the call to refuse.
    const controller = new AbortController();
    const outer = options.signal instanceof AbortSignal ? options.signal : undefined;
    const follow = () => controller.abort(outer?.reason);
    if (outer?.aborted === true) follow();
    else outer?.addEventListener('abort', follow, { once: true });
    const release = () => outer?.removeEventListener('abort', follow);
    const signal = controller.signal;
    const wrapped = options.signal === undefined || outer !== undefined ? { signal } : {};
    const sent = this.send_(request, { ...options, ...wrapped, session: this.session }, (reply) => {
      this.transcript.push(assistantItem(reply));
      this.usage = addUsage(this.usage, reply.usage);
      this.turns += 1;
      // The conversation is whole again: the next turn may start as the reader sees this one's finish.
      if (this.inFlight === turn) this.free();
      return reply;
    });
    // Refused before anything was sent (the request's checks, no model to take it; the adapter's own
    // checks, which end the turn later): the input leaves the transcript again, so that sending it
    // again does not send it twice.
    const takeBack = () => {
      if (added !== undefined && this.transcript.at(-1) === added) this.transcript.pop();
    };
    if (sent.hasEnded()) {
      takeBack();
      release();
      return sent;
    }
    const turn = onTurnFailure(sent, (error) => {
      if (nothingSent(error)) takeBack();
    });
    this.inFlight = turn;
    this.stop = { abort: (reason) => controller.abort(reason), release };
    // An aborted turn is read to its end here (its events dropped unless its caller is reading
    // them): one its caller never reads still settles, and the conversation is free once it has.
    const settle = () => void turn.result().catch(() => undefined);
    if (signal.aborted) settle();
    else signal.addEventListener('abort', settle, { once: true });
    return turn;
  }

  /**
   * Aborts the turn in flight, read or not (as its call's `signal` would), and resolves once it has
   * settled and the conversation is free for the next `send()`; at once when no turn is in flight.
   * The cancelled turn settles as an aborted call does: with a reply cut short (finish reason
   * `cancelled`, appended as usual) once the answer had begun, else with a `cancelled` error.
   */
  async cancel(reason?: unknown): Promise<void> {
    const turn = this.inFlight;
    if (turn === undefined) return;
    this.stop?.abort(reason);
    await turn.result().catch(() => undefined);
    if (this.inFlight === turn) this.free();
  }

  /** Marks the conversation free: no turn in flight, the last one's signal no longer followed. */
  private free(): void {
    this.inFlight = undefined;
    this.stop?.release();
    this.stop = undefined;
  }

  /** The error refusing `what` while a turn is in flight, or undefined when none is. */
  private busy(what: string): InvalidRequestError | undefined {
    const turn = this.inFlight;
    if (turn === undefined) return undefined;
    if (turn.hasEnded()) {
      this.free();
      return undefined;
    }
    return new InvalidRequestError({
      message: `${what}: the conversation is busy: a turn is in flight; await it (or read it to its end, or cancel() it) first`,
      providerCode: 'conversation_busy',
    });
  }

  /** Appends one tool item answering the given calls. */
  addToolResults(
    results: ReadonlyArray<{
      call: Pick<ToolCallPart, 'id' | 'name'>;
      output: ToolResultValue;
      isError?: boolean;
    }>,
  ): void {
    const busy = this.busy('conversation.addToolResults');
    if (busy !== undefined) throw busy;
    if (results.length === 0) return;
    // Checked as send() checks its input: once in, an invalid item would fail every later turn.
    const where = 'conversation.addToolResults: invalid input';
    let item: Item;
    try {
      item = toolResultItem(results);
    } catch (error) {
      throw invalidInput(where, [
        { path: 'results', message: error instanceof Error ? error.message : String(error) },
      ]);
    }
    const parsed = parseTranscript([item]);
    if (!parsed.ok)
      throw invalidInput(
        where,
        parsed.issues.map((issue) => ({ ...issue, path: issue.path.replace(/^\[0\]\.parts/, 'results') })),
      );
    const added = this.transcript.length;
    const orphaned = checkTranscript([...this.transcript, parsed.value[0]!]).filter(
      (violation) => violation.itemIndex === added && violation.rule === 'tool-result-orphaned',
    );
    if (orphaned.length > 0)
      throw invalidInput(
        where,
        orphaned.map((violation) => ({
          path: `results[${violation.partIndex}].call`,
          message: violation.message,
        })),
      );
    this.transcript.push(parsed.value[0]!);
  }

  /**
   * Ends the conversation's provider-side state (Gemini prompt caches) on every adapter it used; the
   * transcript and `toJSON()` stay usable, and a later `send()` starts such state afresh.
   */
  async close(): Promise<void> {
    await this.end_?.(this.session);
  }

  /**
   * A JSON-safe snapshot: settings, transcript, usage and the session's tool-id map and state.
   * `providerOptions` are left out: `fromJSON` takes them as its own argument, never from a snapshot.
   */
  toJSON(): ConversationSnapshot {
    const state: Array<[string, JsonValue]> = [];
    for (const [key, value] of this.session.state) state.push([key, value as JsonValue]);
    const { providerOptions: _left, output: _code, ...settings } = this.settings;
    return {
      version: 1,
      settings: { ...settings, model: this.model, ...toolSpecs(this.settings.tools) },
      transcript: structuredClone(this.transcript),
      usage: { ...this.usage },
      turns: this.turns,
      session: { id: this.session.id, toolIds: this.session.toolIds.toJSON(), state },
    };
  }
}

function restoreSession(snapshot: ConversationSnapshot['session']): AdapterSession {
  const session = createSession(ToolIdMap.fromJSON(snapshot.toolIds));
  for (const [key, value] of snapshot.state) session.state.set(key, value);
  return { ...session, id: snapshot.id as AdapterSession['id'] };
}

function systemItem(text: string): Item {
  return { kind: 'system', parts: [{ type: 'text', text }] };
}

function toItem(input: string | Item | Part[]): Item {
  if (typeof input === 'string') return { kind: 'user', parts: [{ type: 'text', text: input }] };
  if (Array.isArray(input)) return { kind: 'user', parts: input };
  return input;
}

/** The item `send()` appends, validated (a copy), or the `InvalidRequestError` naming what is wrong. */
function checkedItem(input: unknown): { ok: true; value: Item } | { ok: false; error: Error } {
  const where = 'conversation.send: invalid input';
  if (typeof input !== 'string' && (typeof input !== 'object' || input === null)) {
    const issue = { path: 'input', message: 'send() takes text, an item or the parts of a user item' };
    return { ok: false, error: invalidInput(where, [issue]) };
  }
  const parsed = parseTranscript([toItem(input as string)]);
  if (parsed.ok) return { ok: true, value: parsed.value[0]! };
  const issues = parsed.issues.map((issue) => ({
    ...issue,
    path: issue.path.replace(/^\[0\]\.?/, 'input.'),
  }));
  return { ok: false, error: invalidInput(where, issues) };
}

/** Tools as plain specs (a schema-backed tool keeps only its JSON Schema). */
function toolSpecs(tools: RouteRequest['tools']): { tools?: RouteRequest['tools'] } {
  if (tools === undefined) return {};
  return {
    tools: tools.map(plainToolSpec),
  };
}

/**
 * Whether a turn's error says no request was sent: the adapter raised it before sending (its own
 * checks, the request's build), and no candidate before it was called (none failed but this one).
 */
function nothingSent(error: unknown): boolean {
  if (!isNotSent(error)) return false;
  const attempts = routingDecisionOfError(error)?.attempts ?? [];
  return attempts.filter((attempt) => attempt.outcome === 'failed').length <= 1;
}
