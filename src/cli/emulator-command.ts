/** `switchyard emulator [--port N]`: run the provider emulator until interrupted, logging each request. */
import { startEmulator } from '../testing/emulator/index.ts';
import type { ServedRequest } from '../testing/emulator/types.ts';
import type { Output } from './replay-command.ts';
import { waitForStop } from './stop-signal.ts';

/** The log line for one served request: method, path, status, duration. */
export function formatServed(served: ServedRequest): string {
  const status = served.status === undefined ? 'no response' : String(served.status);
  const ending = served.complete ? '' : ' (connection closed before the response ended)';
  return `${served.method} ${served.path} ${status} ${Math.round(served.durationMs)} ms${ending}`;
}

/**
 * Starts the emulator on 127.0.0.1, prints its URL on stdout and how to stop it on stderr, then
 * one stderr line per request served, until SIGINT/SIGTERM (or `stop`) closes it. Returns the exit code.
 */
export async function runEmulator(port: number, output: Output, stop?: AbortSignal): Promise<number> {
  let emulator;
  try {
    emulator = await startEmulator({ port, onResponse: (served) => output.stderr(formatServed(served)) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      output.stderr(`switchyard emulator: port ${port} is already in use (try --port 0 for any free port)`);
      return 1;
    }
    throw error;
  }
  emulator.setDefault({
    type: 'scripted',
    content: [{ type: 'text', text: 'Hello from the Switchyard emulator.' }],
  });
  output.stdout(emulator.url);
  output.stderr(`switchyard emulator: provider wire protocols on ${emulator.url} — press Ctrl-C to stop`);
  await waitForStop(stop);
  await emulator.close();
  output.stderr('switchyard emulator: stopped');
  return 0;
}
