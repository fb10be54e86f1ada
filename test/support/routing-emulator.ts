/**
 * The emulator a routing suite's tests share: started before the file's tests, closed after them;
 * after each test the Switchyard it built over it (`built()`) is closed, and with `clear` the
 * emulator's script is cleared. The value stands for the running emulator (read it inside a test).
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type Emulator, startEmulator } from '../../src/testing/emulator/index.ts';

export function useRoutingEmulator(
  built: () => { close(): Promise<void> } | undefined,
  options: { clear?: boolean } = {},
): Emulator {
  let current: Emulator | undefined;
  beforeAll(async () => {
    current = await startEmulator();
  });
  afterAll(async () => {
    await current?.close();
  });
  afterEach(async () => {
    await built()?.close();
    if (options.clear === true) current?.clear();
  });
  return new Proxy({} as Emulator, {
    get: (_, name) => {
      if (current === undefined) throw new Error('the emulator is used before its file started it');
      const value = Reflect.get(current, name) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(current) : value;
    },
  });
}
