/**
 * The router keeps the last call that ended with a reply (`RouterState.lastCall`: its objects'
 * hidden classes then outlive a full GC between two calls) and only that one: a call's objects are
 * released once the next call ends.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { userText } from '../core/transcript.ts';
import { type Emulator, startEmulator } from '../testing/emulator/index.ts';
import { createEmulatedSwitchyard } from '../../test/support/emulated.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

const text = (value: string) => ({
  type: 'scripted' as const,
  content: [{ type: 'text' as const, text: value }],
});

/** Whether `target` is still reachable after a full GC (a WeakRef is cleared only after its job ends). */
async function alive(target: WeakRef<object>): Promise<boolean> {
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  return target.deref() !== undefined;
}

it('keeps the last finished call (streamed or completed) and releases it when the next one ends or on close()', async () => {
  const sy = createEmulatedSwitchyard(emulator.url, {
    adapters: { openai: 'openai' },
    apiKey: 'test-key-last-call',
  });
  const request = { model: 'openai:gpt-4.1-mini', transcript: [userText('Hello')] };
  const streamed = async () => {
    emulator.enqueue(text('streamed'));
    const turn = sy.stream(request);
    for await (const _event of turn);
    return new WeakRef(await turn);
  };
  const completed = async () => {
    emulator.enqueue(text('completed'));
    return new WeakRef(await sy.complete(request));
  };

  const first = await streamed();
  expect(await alive(first)).toBe(true);
  const second = await completed();
  expect(await alive(first)).toBe(false);
  expect(await alive(second)).toBe(true);
  const third = await streamed();
  expect(await alive(second)).toBe(false);
  expect(await alive(third)).toBe(true);
  await sy.close();
  expect(await alive(third)).toBe(false);
});
