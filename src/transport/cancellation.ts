/** The registry of in-flight calls that `cancel(requestId)` aborts. */

/** Why a call was aborted: the user (cancel/signal), or one of our timeouts. */
export type AbortCause =
  { kind: 'cancelled' } | { kind: 'timeout'; which: 'total' | 'first-byte' | 'idle'; ms: number };

/** Tracks one AbortController per in-flight request id. */
export class CancellationRegistry {
  private readonly controllers = new Map<string, AbortController>();

  /** Registers a call; its controller aborts when `signal` does. Returns an unregister function. */
  register(requestId: string, controller: AbortController, signal?: AbortSignal): () => void {
    this.controllers.set(requestId, controller);
    const onAbort = () => controller.abort({ kind: 'cancelled' } satisfies AbortCause);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    return () => {
      signal?.removeEventListener('abort', onAbort);
      if (this.controllers.get(requestId) === controller) this.controllers.delete(requestId);
    };
  }

  /** Aborts the call; true if one was in flight and not yet aborted. Idempotent. */
  cancel(requestId: string): boolean {
    const controller = this.controllers.get(requestId);
    if (controller === undefined || controller.signal.aborted) return false;
    controller.abort({ kind: 'cancelled' } satisfies AbortCause);
    return true;
  }

  /** Aborts every call (used by `close()`). */
  cancelAll(): void {
    for (const controller of this.controllers.values())
      controller.abort({ kind: 'cancelled' } satisfies AbortCause);
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
