/** The generation-counter cancellation controller: interrupts reach only work started before them. */

/** Why a run was interrupted; recorded as `switchyard.interrupt_reason`. */
export type InterruptReason = 'user_cancelled' | (string & {});

/** The abort reason carried by a checkpoint's signal. */
export class InterruptSignal {
  readonly generation: number;
  readonly reason: InterruptReason;
  constructor(generation: number, reason: InterruptReason) {
    this.generation = generation;
    this.reason = reason;
  }
}

/**
 * Owned by the host. `interrupt()` bumps the generation: every {@link TurnCancellation} taken
 * before reports itself cancelled (its signal aborts); checkpoints taken afterwards are not, so a
 * stale interrupt never cancels a later run.
 */
export class CancellationController {
  private current = 0;
  private controller = new AbortController();
  /** The handle the loop and tools take checkpoints from. */
  readonly handle: CancellationHandle = new CancellationHandle(this);

  /** The current generation (starts at 0). */
  get generation(): number {
    return this.current;
  }

  /** Cancels everything checkpointed at the current generation, then starts a new one. */
  interrupt(reason: InterruptReason = 'user_cancelled'): void {
    const previous = this.controller;
    const generation = this.current;
    this.current = generation + 1;
    this.controller = new AbortController();
    previous.abort(new InterruptSignal(generation, reason));
  }

  /** @internal The signal of the current generation. */
  signal(): AbortSignal {
    return this.controller.signal;
  }
}

/** Shared with the loop and tools: takes checkpoints of the current generation. */
export class CancellationHandle {
  private readonly controller: CancellationController;
  constructor(controller: CancellationController) {
    this.controller = controller;
  }

  /** The current generation. */
  get generation(): number {
    return this.controller.generation;
  }

  /** A checkpoint of the current generation: cancelled by the next `interrupt()`. */
  checkpoint(): TurnCancellation {
    return new TurnCancellation(this, this.controller.generation, this.controller.signal());
  }
}

/** A checkpoint: cancelled once the generation moved past the one it was taken at. */
export class TurnCancellation {
  readonly generation: number;
  /** Aborts (with an {@link InterruptSignal} reason) when this checkpoint is cancelled. */
  readonly signal: AbortSignal;
  private readonly handle: CancellationHandle;

  constructor(handle: CancellationHandle, generation: number, signal: AbortSignal) {
    this.handle = handle;
    this.generation = generation;
    this.signal = signal;
  }

  /** True once an interrupt happened after this checkpoint was taken. */
  get isCancelled(): boolean {
    return this.handle.generation !== this.generation;
  }

  /** The interrupt's reason, once cancelled. */
  get reason(): InterruptReason | undefined {
    const reason: unknown = this.signal.reason;
    return reason instanceof InterruptSignal
      ? reason.reason
      : this.signal.aborted
        ? 'user_cancelled'
        : undefined;
  }

  /** Resolves when this checkpoint is cancelled (never rejects). */
  cancelled(): Promise<void> {
    if (this.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => this.signal.addEventListener('abort', () => resolve(), { once: true }));
  }
}
