/** The registry of in-flight calls that `cancel(requestId)` aborts. */

/** Why a call was aborted: the user (cancel/signal), or one of our timeouts. */
export type AbortCause =
  { kind: 'cancelled' } | { kind: 'timeout'; which: 'total' | 'first-byte' | 'idle'; ms: number };

/** Tracks the AbortControllers of in-flight calls by request id (two calls may share an id). */
export class CancellationRegistry {
  private readonly controllers = new Map<string, Set<AbortController>>();

  /** Registers a call; its controller aborts when `signal` does. Returns an unregister function. */
  register(requestId: string, controller: AbortController, signal?: AbortSignal): () => void {
    let set = this.controllers.get(requestId);
    if (set === undefined) {
      set = new Set();
      this.controllers.set(requestId, set);
    }
    set.add(controller);
    const onAbort = () => controller.abort({ kind: 'cancelled' } satisfies AbortCause);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    return () => {
      signal?.removeEventListener('abort', onAbort);
      const current = this.controllers.get(requestId);
      current?.delete(controller);
      if (current?.size === 0) this.controllers.delete(requestId);
    };
  }

  /** Aborts every call with this id; true if one was in flight and not yet aborted. Idempotent. */
  cancel(requestId: string): boolean {
    let cancelled = false;
    for (const controller of this.controllers.get(requestId) ?? []) {
      if (controller.signal.aborted) continue;
      controller.abort({ kind: 'cancelled' } satisfies AbortCause);
      cancelled = true;
    }
    return cancelled;
  }

  /** Aborts every call (used by `close()`). */
  cancelAll(): void {
    for (const set of this.controllers.values()) {
      for (const controller of set) controller.abort({ kind: 'cancelled' } satisfies AbortCause);
    }
    this.controllers.clear();
  }
}

/** Reads the cause of an aborted signal. */
export function abortCause(signal: AbortSignal): AbortCause {
  const reason = signal.reason as AbortCause | undefined;
  return reason !== undefined && typeof reason === 'object' && 'kind' in reason
    ? reason
    : { kind: 'cancelled' };
}
