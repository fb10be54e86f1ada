/** The registry of in-flight calls that `cancel(requestId)` aborts. */

/** Why a call was aborted: the user (cancel/signal), or one of our timeouts. */
export type AbortCause =
  { kind: 'cancelled' } | { kind: 'timeout'; which: 'total' | 'first-byte' | 'idle'; ms: number };

/**
 * Tracks the AbortControllers of in-flight calls by request id (two calls may share an id). A
 * request id of one call maps to its controller itself; a `Set` is made only when a second call
 * shares the id (not one per call).
 */
export class CancellationRegistry {
  private readonly controllers = new Map<string, AbortController | Set<AbortController>>();

  /** Registers a call; its controller aborts when `signal` does. Returns an unregister function. */
  register(requestId: string, controller: AbortController, signal?: AbortSignal): () => void {
    const current = this.controllers.get(requestId);
    if (current === undefined) this.controllers.set(requestId, controller);
    else if (current instanceof Set) current.add(controller);
    else this.controllers.set(requestId, new Set([current, controller]));
    if (signal === undefined) return () => this.unregister(requestId, controller);
    const onAbort = () => controller.abort({ kind: 'cancelled' } satisfies AbortCause);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    return () => {
      signal.removeEventListener('abort', onAbort);
      this.unregister(requestId, controller);
    };
  }

  private unregister(requestId: string, controller: AbortController): void {
    const current = this.controllers.get(requestId);
    if (current === controller) {
      this.controllers.delete(requestId);
    } else if (current instanceof Set) {
      current.delete(controller);
      if (current.size === 0) this.controllers.delete(requestId);
    }
  }

  /** Aborts every call with this id; true if one was in flight and not yet aborted. Idempotent. */
  cancel(requestId: string): boolean {
    let cancelled = false;
    for (const controller of controllersOf(this.controllers.get(requestId))) {
      if (controller.signal.aborted) continue;
      controller.abort({ kind: 'cancelled' } satisfies AbortCause);
      cancelled = true;
    }
    return cancelled;
  }

  /** Aborts every call (used by `close()`). */
  cancelAll(): void {
    for (const entry of this.controllers.values()) {
      for (const controller of controllersOf(entry))
        controller.abort({ kind: 'cancelled' } satisfies AbortCause);
    }
    this.controllers.clear();
  }
}

function controllersOf(entry: AbortController | Set<AbortController> | undefined): Iterable<AbortController> {
  if (entry === undefined) return [];
  return entry instanceof Set ? entry : [entry];
}

/** Reads the cause of an aborted signal. */
export function abortCause(signal: AbortSignal): AbortCause {
  const reason = signal.reason as AbortCause | undefined;
  return reason !== undefined && typeof reason === 'object' && 'kind' in reason
    ? reason
    : { kind: 'cancelled' };
}
