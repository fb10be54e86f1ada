/**
 * Observer isolation, shared by the front door and the agent: an observer's throw, its promise's
 * rejection or a thenable that misbehaves is caught and logged once per observer (WARN, redacted),
 * and never changes the call's outcome or timing — a returned promise is never awaited.
 */
import type { Logger } from '../core/logger.ts';
import { redactSecrets } from '../core/redaction.ts';

/** What the dispatcher needs besides the observers. */
export interface ObserverDispatchOptions {
  /** Where the one WARN per failing observer goes. */
  logger: Logger;
  /** Names the emitter in the WARN (`switchyard`, `agent`). */
  source: string;
  /** Exact secret values to remove from the WARN besides every key shape (configured API keys). */
  secrets?: () => Iterable<string | undefined>;
}

/**
 * Returns `emit(event)`, which hands `event` to every observer in order through `call`. A failure
 * (synchronous or asynchronous) is logged once per observer; later failures of the same observer
 * are not logged again, so a broken observer cannot flood the log on a busy gateway.
 */
export function createObserverDispatch<Observer, Event extends { type: string }>(
  observers: readonly Observer[],
  call: (observer: Observer, event: Event) => unknown,
  options: ObserverDispatchOptions,
): (event: Event) => void {
  const reported = new Set<number>();
  const failed = (index: number, event: Event, error: unknown) => {
    if (reported.has(index)) return;
    reported.add(index);
    let reason: string;
    try {
      reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    } catch {
      reason = 'an unprintable value';
    }
    try {
      const secrets = options.secrets?.() ?? [];
      options.logger.warn('an observer failed; ignored (later failures of this observer are not logged)', {
        source: options.source,
        observer: index,
        event: event.type,
        error: redactSecrets(reason.slice(0, 500), secrets),
      });
    } catch {
      // A failing logger must not turn an observer's failure into an unhandled rejection either.
    }
  };
  return (event) => {
    for (let index = 0; index < observers.length; index++) {
      try {
        const result = call(observers[index]!, event);
        if (
          result !== undefined &&
          result !== null &&
          (typeof result === 'object' || typeof result === 'function')
        ) {
          // Never awaited: a slow observer does not delay the call. `Promise.resolve` adopts a thenable
          // on a later microtask, so even a `then` that throws becomes a caught rejection.
          Promise.resolve(result).catch((error: unknown) => failed(index, event, error));
        }
      } catch (error) {
        failed(index, event, error);
      }
    }
  };
}
