/**
 * The oracle of the hostile-input tests: a call settles in bounded time, no process-level
 * `unhandledRejection` / `uncaughtException` fires, the caller's input is left as it was, and
 * `Object.prototype` is not polluted.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type { Switchyard } from '../../src/switchyard.ts';
import type { Emulator } from '../../src/testing/emulator/index.ts';
import { startEmulatedSwitchyard } from './emulated.ts';

/** Process-level failure listeners installed for one test. */
export interface ProcessWatch {
  readonly fired: unknown[];
  /** Lets pending rejections surface (one macrotask), then asserts none fired and removes the listeners. */
  stop(): Promise<void>;
}

/** Installs `unhandledRejection` and `uncaughtException` listeners that record what fires. */
export function watchProcess(): ProcessWatch {
  const fired: unknown[] = [];
  const onFailure = (reason: unknown) => fired.push(reason);
  process.on('unhandledRejection', onFailure);
  process.on('uncaughtException', onFailure);
  return {
    fired,
    async stop() {
      await new Promise((resolve) => setTimeout(resolve, 5));
      process.off('unhandledRejection', onFailure);
      process.off('uncaughtException', onFailure);
      expect(fired, 'no unhandled rejection or uncaught exception').toEqual([]);
    },
  };
}

/** How a promise settled within `ms` (`hang` when it did not). */
export type Settled<Value> =
  { state: 'resolved'; value: Value } | { state: 'rejected'; error: unknown } | { state: 'hang' };

/** Waits for `promise` at most `ms` milliseconds. */
export async function settle<Value>(promise: Promise<Value>, ms = 5000): Promise<Settled<Value>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<Settled<Value>>((resolve) => {
    timer = setTimeout(() => resolve({ state: 'hang' }), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        (value): Settled<Value> => ({ state: 'resolved', value }),
        (error: unknown): Settled<Value> => ({ state: 'rejected', error }),
      ),
      hang,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A deep copy to compare the caller's input against afterwards, or `undefined` when it cannot be copied (Proxies, functions). */
export function snapshotOf(value: unknown): { copy: unknown } | undefined {
  try {
    return { copy: structuredClone(value) };
  } catch {
    return undefined;
  }
}

/** Asserts nothing was added to `Object.prototype` (the classic `__proto__` / `constructor.prototype` pollution). */
export function expectNoPrototypePollution(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.keys(Object.prototype)).toEqual([]);
}

/** Freezes `value` and everything it holds (typed arrays excepted: they cannot be frozen). */
export function deepFreeze<Value>(value: Value): Value {
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) return value;
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return Object.freeze(value);
}

/** An object whose every read and key listing throws. */
export function throwingProxy(): object {
  const fail = () => {
    throw new Error('hostile proxy');
  };
  return new Proxy({}, { get: fail, ownKeys: fail, has: fail, getOwnPropertyDescriptor: fail });
}

/** JSON text parsed, so `__proto__` arrives as an own key (as from a network body). */
export const fromJson = (text: string): Record<string, unknown> =>
  JSON.parse(text) as Record<string, unknown>;

/** What {@link useHostileFrontDoor} sets up for each test file: the emulator and a front door on it. */
export interface HostileFrontDoor {
  emulator: Emulator;
  sy: Switchyard;
}

/**
 * Registers the hooks every hostile-input file shares: an emulator and a front door with one
 * Anthropic adapter on it (`primary` aliases its model; `routing` passed through), the request log
 * cleared and the process watched around each test, no prototype pollution after it.
 */
export function useHostileFrontDoor(apiKey: string, routing?: Record<string, unknown>): HostileFrontDoor {
  const door = {} as HostileFrontDoor;
  let watch: ProcessWatch;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({
      emulator: door.emulator,
      switchyard: door.sy,
      close,
    } = await startEmulatedSwitchyard({
      adapters: { anthropic: 'anthropic' },
      apiKey,
      config: {
        models: { 'anthropic:claude-sonnet-4-5': { aliases: ['primary'] } },
        ...(routing === undefined ? {} : { routing }),
      },
    }));
  });
  afterAll(() => close());
  beforeEach(() => {
    door.emulator.requests.length = 0;
    watch = watchProcess();
  });
  afterEach(async () => {
    await watch.stop();
    expectNoPrototypePollution();
  });
  return door;
}
