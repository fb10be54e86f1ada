/** `switchyard emulator [--port N]`: run the provider emulator until interrupted. */
import { startEmulator } from '../testing/emulator/index.ts';

/** Starts the emulator, prints its URL, and stops cleanly on SIGINT/SIGTERM. */
export async function runEmulator(port: number, print: (line: string) => void): Promise<void> {
  const emulator = await startEmulator({ port });
  emulator.setDefault({
    type: 'scripted',
    content: [{ type: 'text', text: 'Hello from the Switchyard emulator.' }],
  });
  print(emulator.url);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await emulator.close();
}
