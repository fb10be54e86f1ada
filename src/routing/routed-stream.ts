/**
 * The routed stream: a pass-through async iterator over the chosen adapter's stream (no second
 * queue). It holds back `message-start` / `usage` (and a part opened with nothing in it yet) until
 * the first content event, fails over only
 * before it, and replaces `finish` with the priced reply (preceded by the priced usage).
 */
import { AdapterError } from '../core/errors/adapter-error.ts';
import { type CarriedUsage, carryUsage, withCarried } from './carried-usage.ts';
import type { CallOptions } from '../core/adapter.ts';
import { CancelledError } from '../core/errors/cancelled-error.ts';
import { isContentEvent, maxHeldEvents } from '../core/content-events.ts';
import { EventStream } from '../core/event-stream.ts';
import type { StreamEvent } from '../core/events.ts';
import type { CanonicalResponse } from '../core/request.ts';
import type { Reply } from '../core/reply.ts';
import type { ModelFacts } from '../registry/model-facts.ts';
import type { ResolvedModel } from '../registry/registry.ts';
import { attachDecision, type RoutingDecision, routingMetadataKey } from './decision.ts';
import { EventQueue, ReadAhead, Settlement } from './event-queue.ts';

/** A half-open slot a call holds: its outcome must be reported (success, failure or release). */
export interface Probe {
  /** The availability key (`model:<id>` or `provider:<name>`). */
  key: string;
  id: string;
}

/** A candidate that passed the pre-dispatch checks. */
export interface Candidate {
  model: ResolvedModel;
  facts: ModelFacts;
  /** The half-open probes this call is (absent when it is an ordinary call). */
  probes?: Probe[];
}

/** The router's steps a routed stream drives (one set per router). */
export interface StreamSteps<Route extends { decision: RoutingDecision }, Request> {
  /** The call's routing state (throws on an unknown model). */
  start(request: Request, options: CallOptions): Route;
  /** The next candidate that passes the checks, or `undefined` when none is left. */
  next(route: Route): Candidate | undefined | Promise<Candidate | undefined>;
  /** Calls the candidate's adapter (emits `call-started`). */
  open(route: Route, candidate: Candidate, retries: { count: number }): AsyncIterable<StreamEvent>;
  /** Records a failure; true when routing should go on to the next candidate. */
  failure(
    route: Route,
    candidate: Candidate,
    error: unknown,
    startedAt: number,
    retries: number,
  ): Promise<boolean>;
  /** Records a model failure before any content (finish `error`, no exception); true when a fallback is left. */
  modelFailure(
    route: Route,
    candidate: Candidate,
    response: CanonicalResponse,
    startedAt: number,
    retries: number,
  ): Promise<boolean>;
  /** Prices the response and attaches the decision (a promise only when the availability store answers asynchronously). */
  finalize(route: Route, candidate: Candidate, response: CanonicalResponse): Reply | Promise<Reply>;
  /** The call ended without an outcome (stopped by its reader): a probe it holds proved nothing. */
  abandoned(candidate: Candidate): Promise<void>;
  /** The error when no candidate is left. */
  noCandidate(route: Route): Error;
  /** Emits `call-first-chunk` / `call-completed` (no-ops without observers). */
  firstChunk(route: Route, model: ResolvedModel, retries: number, startedAt: number): void;
  completed(route: Route, model: ResolvedModel, retries: number, startedAt: number, reply: Reply): void;
  /**
   * The reader stopped the stream before its reply (`return()`): observers see the call fail
   * (`cancelled`) with `response`, what the adapter received before it stopped, when it reports one.
   */
  stopped(
    route: Route,
    candidate: Candidate,
    retries: number,
    startedAt: number,
    error: Error,
    response: CanonicalResponse | undefined,
  ): void;
  /** The reply arrived but its hook rejected it (output schema): observers see the call fail. */
  rejected(route: Route, model: ResolvedModel, retries: number, startedAt: number, error: unknown): void;
  /** The call ended with its reply: the router keeps it reachable until the next one (see `route.ts` `lastCall`). */
  retain(call: object): void;
}

/** A model failure that failed over, and the events held back before it (`message-start`, …). */
interface FailedOver {
  candidate: Candidate;
  response: CanonicalResponse;
  startedAt: number;
  held: StreamEvent[];
  carried: CarriedUsage;
}

const done: IteratorResult<StreamEvent> = { value: undefined, done: true };
const emptyStream: AsyncIterator<StreamEvent> = { next: () => Promise.resolve(done) };
const ignore = () => {};

/**
 * One routed streaming call: iterate it (once) for events, or call `result()` for the reply. The
 * request is dispatched at once; events are then read from the adapter as the consumer pulls them.
 * `result()` without iterating reads (and drops) the events itself; asked while iterating, it reads
 * on to the end itself, keeping the events for the reader (so it settles even when the reader
 * awaits it inside its own loop).
 *
 * Per call it builds only what the call uses: the held-back preamble, the settlement of `result()`
 * (none when the reply is asked for after the end) is made on first need;
 * a reply priced synchronously (a synchronous availability store, no hook) is handed out without
 * an asynchronous step.
 */
export class RoutedStream<Route extends { decision: RoutingDecision }, Request>
  implements AsyncIterable<StreamEvent>, AsyncIterator<StreamEvent>
{
  private readonly steps: StreamSteps<Route, Request>;
  private readonly request: Request;
  private readonly hook: ((reply: Reply, request: Request) => Reply | Promise<Reply>) | undefined;
  private route: Route | undefined;
  private candidate: Candidate | undefined;
  private inner: AsyncIterator<StreamEvent> | undefined;
  /** The adapter's stream when it is an {@link EventStream}: buffered events are then taken synchronously. */
  private source: EventStream<StreamEvent, unknown> | undefined;
  /** Pending while the first dispatch waits for an asynchronous availability store. */
  private readonly opening: Promise<void> | undefined;
  private readonly retries = { count: 0 };
  private startedAt = 0;
  private committed = false;
  /** `message-start` / `usage` / an empty part's start held back until the first content event (made on first need). */
  private held: StreamEvent[] | undefined;
  private readonly pending = new EventQueue();
  /** The step of an event `poll()` took but could not hand out at once (a finish priced asynchronously). */
  private polled: Promise<IteratorResult<StreamEvent>> | undefined;
  private reply: Reply | undefined;
  private ended = false;
  private error: unknown;
  private raise = false;
  private stopped = false;
  private iterating = false;
  private draining = false;
  /** The reader's last pull (one may still be in flight when reading ahead begins). */
  private reading: Promise<IteratorResult<StreamEvent>> | undefined;
  /** The events read ahead for the reader once `result()` was asked while it iterates. */
  private ahead: ReadAhead | undefined;
  /** 1 once the result resolved (with `reply`), 2 once it rejected (with `error`). */
  private outcome: 0 | 1 | 2 = 0;
  /** The result's promise, made when `result()` is first asked for. */
  private settlement: Settlement<Reply> | undefined;
  private settledPromise: Promise<Reply> | undefined;
  /** A model failure that failed over: finished with when no fallback can take the call. */
  private failedOver: FailedOver | undefined;
  /** Ending with {@link failedOver}'s reply: observers saw that call end (failed) already. */
  private servingFailed = false;
  /** The usage of the model failures failed over from (billed with the reply served). */
  private carried: CarriedUsage;
  /** What wraps this stream for its caller (the front door's `Turn`): kept with it (`retain`). */
  owner: object | undefined = undefined;

  constructor(
    steps: StreamSteps<Route, Request>,
    request: Request,
    options: CallOptions,
    hook: ((reply: Reply, request: Request) => Reply | Promise<Reply>) | undefined,
  ) {
    this.steps = steps;
    this.request = request;
    this.hook = hook;
    this.onStep = this.onStep.bind(this);
    this.onError = this.onError.bind(this);
    let opened: void | Promise<void> = undefined;
    try {
      this.route = steps.start(request, options);
      opened = this.openNext();
    } catch (error) {
      this.fail(error);
    }
    this.opening = opened instanceof Promise ? opened.catch((error: unknown) => this.fail(error)) : undefined;
  }

  /** Dispatches to the next candidate (at once when the availability store is synchronous). */
  private openNext(): void | Promise<void> {
    const candidate = this.steps.next(this.route!);
    if (candidate instanceof Promise) return candidate.then((ready) => this.dispatch(ready));
    return this.dispatch(candidate);
  }

  /** Calls the candidate's adapter, or fails when no candidate is left. */
  private dispatch(candidate: Candidate | undefined): void | Promise<void> {
    if (candidate === undefined && this.failedOver !== undefined) return this.finishFailedOver();
    if (candidate === undefined) return this.fail(this.steps.noCandidate(this.route!));
    this.candidate = candidate;
    // One counter per call: a failed attempt's adapter reports no retries after its failure.
    this.retries.count = 0;
    this.startedAt = performance.now();
    this.committed = false;
    this.held = undefined;
    try {
      const stream = this.steps.open(this.route!, candidate, this.retries);
      this.inner = stream[Symbol.asyncIterator]();
      this.source = stream instanceof EventStream ? stream : undefined;
    } catch (error) {
      this.inner = undefined;
      this.source = undefined;
      return this.failure(error);
    }
    if (this.stopped) void this.inner.return?.();
  }

  /** Handles an adapter error: fail over (before the first content event) or end with it. */
  private async failure(error: unknown): Promise<void> {
    const route = this.route!;
    const candidate = this.candidate!;
    this.inner = undefined;
    this.source = undefined;
    const fallback = await this.steps.failure(route, candidate, error, this.startedAt, this.retries.count);
    if (fallback && !this.committed && !this.stopped) return this.openNext();
    // The last fallback failed too: the model failure before it is the call's end (its tokens are
    // billed), unless the reader stopped or the call was cancelled.
    const cancelled = AdapterError.isInstance(error) && (error as AdapterError).errorClass === 'cancelled';
    if (this.failedOver !== undefined && !this.committed && !this.stopped && !cancelled)
      return this.finishFailedOver();
    attachDecision(error, route.decision);
    for (const early of this.held ?? [])
      this.pending.push(
        early.type === 'finish'
          ? { type: 'finish', response: withDecision(early.response, route.decision) }
          : early,
      );
    this.held = undefined;
    this.fail(error);
  }

  private fail(error: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.error = error;
    this.raise = true;
    this.inner = undefined;
    this.source = undefined;
    this.outcome = 2;
    this.settlement?.reject(error);
  }

  /** The reader's next event: see {@link pull}; once reading ahead (see `result()`), what it read. */
  next(): Promise<IteratorResult<StreamEvent>> {
    if (this.ahead !== undefined) return this.ahead.next();
    return (this.reading = this.pull());
  }

  /** The next event: buffered ones first, then straight from the adapter's stream. */
  private pull(): Promise<IteratorResult<StreamEvent>> {
    const polled = this.polled;
    if (polled !== undefined) {
      this.polled = undefined;
      return polled;
    }
    const queued = this.pending.shift();
    if (queued !== undefined) return Promise.resolve({ value: queued, done: false });
    if (this.ended) {
      if (!this.raise) return Promise.resolve(done);
      this.raise = false;
      return Promise.reject(this.error);
    }
    const inner = this.inner;
    if (inner === undefined) {
      if (this.opening !== undefined) return this.opening.then(() => this.afterOpening());
      return this.afterOpening();
    }
    const source = this.source;
    if (source !== undefined) {
      // The fast path: events the adapter already buffered are forwarded without a promise hop.
      for (let event = source.poll(); event !== undefined; event = source.poll()) {
        const step = this.onEvent(event);
        if (step !== undefined) return step instanceof Promise ? step : Promise.resolve(step);
      }
    }
    return inner.next().then(this.onStep, this.onError);
  }

  /**
   * The next event when one is ready now, without a promise: for a reader that batches what has
   * arrived (the gateway writes it in one go). `undefined` when the caller must await `next()`:
   * nothing buffered, before the first content event (fallback is still possible), at the end, or
   * at a finish priced asynchronously (`next()` hands it out). Never call it while a `next()` is
   * outstanding: that one takes the event first.
   */
  poll(): IteratorResult<StreamEvent> | undefined {
    if (this.ahead !== undefined) return this.ahead.poll();
    if (!this.committed || this.ended || this.stopped || this.polled !== undefined) return undefined;
    const queued = this.pending.shift();
    if (queued !== undefined) return { value: queued, done: false };
    const event = this.source?.poll();
    if (event === undefined) return undefined;
    // Committed: `onEvent` passes every event but the finish through unchanged; the finish is
    // priced here when pricing is synchronous, else its step waits for the next `next()`.
    const step = this.onEvent(event) ?? this.pull();
    if (!(step instanceof Promise)) return step;
    this.polled = step;
    return undefined;
  }

  private afterOpening(): Promise<IteratorResult<StreamEvent>> {
    if (this.inner === undefined && !this.ended) {
      // Unreachable by construction (dispatch sets the stream or ends); never hang if it happens.
      this.fail(new Error('routed stream: no adapter stream after dispatch'));
    }
    return this.pull();
  }

  private onStep(step: IteratorResult<StreamEvent>): StepResult {
    if (step.done === true) return this.onEnd();
    return this.onEvent(step.value, step) ?? this.pull();
  }

  /** What to hand the consumer for `event`, or `undefined` when it is held back (read on). */
  private onEvent(event: StreamEvent, step?: IteratorResult<StreamEvent>): StepResult | undefined {
    if (event.type === 'finish') return this.onFinish(event.response);
    if (!this.committed) {
      // Not content yet (the preamble, a part opened with nothing in it: `isContentEvent`): held,
      // up to `maxHeldEvents` (then the stream counts as begun).
      if (!isContentEvent(event) && (this.held === undefined || this.held.length < maxHeldEvents)) {
        (this.held ??= []).push(event);
        return undefined;
      }
      this.commit();
      if (this.pending.size > 0) {
        this.pending.push(event);
        return this.pull();
      }
    }
    return step ?? { value: event, done: false };
  }

  private commit(): void {
    this.committed = true;
    if (!this.servingFailed)
      this.steps.firstChunk(this.route!, this.candidate!.model, this.retries.count, this.startedAt);
    if (this.held !== undefined) {
      this.pending.adopt(this.held);
      this.held = undefined;
    }
  }

  /** A model failure before any content: on to the next candidate, or finished with it. */
  private async failOver(response: CanonicalResponse): Promise<IteratorResult<StreamEvent>> {
    const candidate = this.candidate!;
    const startedAt = this.startedAt;
    if (!(await this.steps.modelFailure(this.route!, candidate, response, startedAt, this.retries.count)))
      return this.finishWith(response);
    this.failedOver = { candidate, response, startedAt, held: this.held ?? [], carried: this.carried };
    this.carried = carryUsage(this.carried, candidate.model.id, response);
    this.inner = undefined;
    this.source = undefined;
    await this.openNext();
    return this.pull();
  }

  /**
   * No fallback could take a call that failed over on a model failure: it ends with that reply, read
   * again by `onEnd` from an empty stream (observers saw that call fail; it is not reported again).
   */
  private finishFailedOver(): void {
    const { candidate, response, startedAt, held, carried } = this.failedOver!;
    this.candidate = candidate;
    this.carried = carried;
    this.startedAt = startedAt;
    this.servingFailed = true;
    this.committed = false;
    this.held = [...held, { type: 'finish', response }];
    this.inner = emptyStream;
    this.source = undefined;
  }

  private async onError(error: unknown): Promise<IteratorResult<StreamEvent>> {
    await this.failure(error);
    return this.pull();
  }

  private onFinish(response: CanonicalResponse): StepResult {
    // A finish(error) is held: the adapter throws right after it, and the failure path decides
    // (one that ends without throwing — a model failure, not a failed call — is the finish: `onEnd`).
    if (response.finishReason === 'error') {
      (this.held ??= []).push({ type: 'finish', response });
      return this.pull();
    }
    return this.finishWith(response);
  }

  private finishWith(response: CanonicalResponse): StepResult {
    if (!this.committed) this.commit();
    const reply = this.steps.finalize(this.route!, this.candidate!, withCarried(response, this.carried));
    if (reply instanceof Promise || this.hook !== undefined) return this.finishLater(reply);
    return this.deliver(reply);
  }

  /** {@link onFinish} when pricing waits for the availability store or a hook checks the reply. */
  private async finishLater(priced: Reply | Promise<Reply>): Promise<IteratorResult<StreamEvent>> {
    let reply = await priced;
    if (this.hook !== undefined) {
      try {
        reply = await this.hook(reply, this.request);
      } catch (error) {
        // The reply arrived but was rejected (e.g. by its output schema): finish, then the error.
        if (!this.servingFailed)
          this.steps.rejected(this.route!, this.candidate!.model, this.retries.count, this.startedAt, error);
        this.pending.push({ type: 'finish', response: reply });
        this.fail(error);
        return this.pull();
      }
    }
    return this.deliver(reply);
  }

  /** Hands out the priced usage (the last usage event wins) and the priced finish, in order. */
  private deliver(reply: Reply): IteratorResult<StreamEvent> {
    this.reply = reply;
    if (reply.usage.cost !== undefined) this.pending.push({ type: 'usage', usage: reply.usage });
    this.pending.push({ type: 'finish', response: reply });
    return { value: this.pending.shift()!, done: false };
  }

  private onEnd(): Promise<IteratorResult<StreamEvent>> {
    const reply = this.reply;
    if (reply === undefined) {
      // The adapter ended on a held finish(error) without throwing: the call succeeded and the
      // model's output was unusable (Gemini `MALFORMED_FUNCTION_CALL`): finished as `complete` does.
      const last = this.held?.at(-1);
      if (last?.type === 'finish' && !this.stopped) {
        this.held!.pop();
        // Nothing reached the reader yet: a fallback may answer instead (a model failure is the
        // call's end only when none is left).
        if (!this.committed && !this.servingFailed) return this.failOver(last.response);
        return Promise.resolve(this.finishWith(last.response));
      }
      const provider = this.candidate!.model.provider;
      if (this.candidate!.probes !== undefined) {
        const candidate = this.candidate!;
        return this.steps.abandoned(candidate).then(() => {
          candidate.probes = undefined;
          return this.onEnd();
        });
      }
      if (this.stopped) return this.endStopped(provider);
      this.fail(new Error(`${provider}: the stream ended without a finish event`));
      return this.pull();
    }
    // The adapter's stream stays referenced (it has ended): retained with this call, its objects'
    // hidden classes outlive a full GC between two calls (see `route.ts` `lastCall`).
    this.ended = true;
    if (!this.servingFailed)
      this.steps.completed(this.route!, this.candidate!.model, this.retries.count, this.startedAt, reply);
    this.steps.retain(this);
    this.outcome = 1;
    this.settlement?.resolve(reply);
    return this.pull();
  }

  /**
   * The adapter ended after the reader stopped: the result rejects (`cancelled`), and observers see
   * the call end so — once, with what the adapter received (its result: a `cancelled` response).
   */
  private async endStopped(provider: string): Promise<IteratorResult<StreamEvent>> {
    const error = new CancelledError({ message: 'the stream was stopped by its reader', provider });
    if (!this.servingFailed) {
      // The adapter's stream (an `EventStream` of canonical events) ends with its response.
      const response = (await this.source?.result().catch(() => undefined)) as CanonicalResponse | undefined;
      this.steps.stopped(this.route!, this.candidate!, this.retries.count, this.startedAt, error, response);
    }
    this.fail(error);
    return this.pull();
  }

  /** Stops reading: aborts the adapter's request; the result settles as the adapter ends. */
  return(): Promise<IteratorResult<StreamEvent>> {
    this.stopped = true;
    this.pending.clear();
    this.ahead?.clear();
    if (!this.ended) {
      void this.inner?.return?.();
      void this.drain();
    }
    this.raise = false;
    return Promise.resolve(done);
  }

  /** Reads (and drops) the remaining events until the stream ends. */
  private async drain(): Promise<void> {
    // Reading ahead reads to the end already (and drops what it reads once the reader stopped).
    if (this.draining || this.ahead !== undefined) return;
    this.draining = true;
    try {
      while (!this.ended) await this.pull();
    } catch {
      // The error settles the result.
    }
    this.raise = false;
    this.pending.clear();
  }

  /** Whether the call has ended (its result settled), without touching its events. */
  hasEnded(): boolean {
    return this.ended;
  }

  /**
   * The reply (rejects with the classified error). Asked while the caller iterates (inside its own
   * `for await`, or when its signal aborted the call), it settles as the adapter's stream does, read
   * or not: the stream reads on to the end itself and keeps the events for the reader.
   */
  result(): Promise<Reply> {
    if (!this.iterating) {
      this.iterating = true;
      void this.drain();
    } else if (!this.ended && !this.draining && this.ahead === undefined) {
      void this.readAhead();
    }
    return this.settled();
  }

  /**
   * Reads the call to its end for a reader that may not be pulling, keeping the events for it in
   * {@link ahead} (dropped once it stopped). A pull of the reader's still in flight goes first.
   */
  private async readAhead(): Promise<void> {
    const ahead = (this.ahead = new ReadAhead());
    await this.reading?.catch(ignore);
    try {
      for (let step = await this.pull(); step.done !== true; step = await this.pull())
        if (!this.stopped) ahead.push(step.value);
      ahead.finish();
    } catch (error) {
      // The error settles the result; the reader meets it after the events read ahead.
      ahead.finish(this.stopped ? undefined : { error });
    }
    this.raise = false;
    this.pending.clear();
  }

  /** The result's promise: made once, settled already when the call has ended; never an unhandled rejection. */
  private settled(): Promise<Reply> {
    if (this.settledPromise !== undefined) return this.settledPromise;
    if (this.outcome === 1) {
      this.settledPromise = Promise.resolve(this.reply!);
    } else if (this.outcome === 2) {
      this.settledPromise = Promise.reject(this.error);
      this.settledPromise.catch(ignore);
    } else {
      this.settlement = new Settlement<Reply>();
      this.settledPromise = this.settlement.promise;
    }
    return this.settledPromise;
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    if (this.iterating) {
      if (this.draining) {
        // result() was asked first: the events were dropped; the iteration only ends (or fails).
        return {
          next: () => this.settled().then(() => done),
          return: async () => done,
        };
      }
      const error = new TypeError('this stream is already being iterated; a stream can be iterated once');
      return { next: () => Promise.reject(error), return: async () => done };
    }
    this.iterating = true;
    return this;
  }
}

type StepResult = IteratorResult<StreamEvent> | Promise<IteratorResult<StreamEvent>>;

function withDecision(response: CanonicalResponse, decision: RoutingDecision): CanonicalResponse {
  return { ...response, metadata: { ...response.metadata, [routingMetadataKey]: decision as never } };
}
