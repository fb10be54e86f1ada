/** How long-running commands (`serve`, `emulator`) wait to be stopped. */

/** Resolves on the first SIGINT or SIGTERM (or when `stop` aborts), then removes its listeners. */
export function waitForStop(stop?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      stop?.removeEventListener('abort', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    if (stop?.aborted === true) done();
    else stop?.addEventListener('abort', done, { once: true });
  });
}
