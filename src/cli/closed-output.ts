/**
 * A closed stdout (`switchyard chat | head -1`): Node ignores SIGPIPE, so the next write fails
 * with EPIPE as an `'error'` event, which, unhandled, kills the process with a stack trace before
 * any `finally` runs. Watching for it turns that into a quiet end: later writes are dropped and
 * the command stops its work, saves what it must, and exits 0 as a Unix filter does.
 */

/** Whether the output is gone; `signal` aborts when it goes. */
export interface OutputWatch {
  readonly closed: boolean;
  readonly signal: AbortSignal;
}

/**
 * Watches `stream` for a write error (EPIPE from a reader that left, EIO from a terminal that
 * hung up — the output is gone either way) and calls `onClosed` once.
 */
export function watchOutput(stream: NodeJS.WritableStream, onClosed: () => void = () => {}): OutputWatch {
  const controller = new AbortController();
  stream.on('error', () => {
    if (controller.signal.aborted) return;
    controller.abort();
    onClosed();
  });
  return {
    get closed() {
      return controller.signal.aborted;
    },
    signal: controller.signal,
  };
}
