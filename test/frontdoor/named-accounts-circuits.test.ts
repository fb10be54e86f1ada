/**
 * Circuits of adapters configured under names of their own (two accounts of one type, `acct-a` and
 * `acct-b`): each account is a provider of its own (`provider:acct-a`), and the names of an account
 * that `models` does not list — unknown to the catalog or catalogued, through its prefix — share that
 * account's one circuit (`model:acct-a:other`, docs/config.md `routing`). One account's failures
 * never keep the other account's models out, as two providers' would not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/core/logger.ts';
import { userText } from '../../src/core/transcript.ts';
import type { SwitchyardConfig } from '../../src/registry/config.ts';
import { createMemoryAvailabilityStore } from '../../src/routing/availability.ts';
import { createSwitchyard } from '../../src/switchyard.ts';
import { anthropicError, type Emulator, startEmulator } from '../../src/testing/index.ts';
import { emulatorBaseURL } from '../support/provider-types.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.close());

/** Two Anthropic accounts on the emulator, under names of their own. */
function accounts(routing: SwitchyardConfig['routing']) {
  const account = (key: string) => ({
    type: 'anthropic',
    base_url: emulatorBaseURL('anthropic', emulator.url),
    api_key: key,
    max_retries: 0,
  });
  const store = createMemoryAvailabilityStore();
  const sy = createSwitchyard({
    logger: createMemoryLogger(),
    stateStore: store,
    env: {},
    config: {
      builtins: false,
      adapters: { 'acct-a': account('sk-ant-a-0000'), 'acct-b': account('sk-ant-b-1111') },
      routing,
    },
  });
  return { sy, records: store.records };
}

const ask = (model: string) => ({ model, transcript: [userText('Hi')] });

describe('two accounts of one type', () => {
  it('each has its own provider circuit, and its unlisted names (unknown or catalogued) share its one model circuit', async () => {
    const { sy, records } = accounts({ failure_threshold: 1000 });
    for (const model of [
      'acct-a:claude-made-up-1',
      'acct-a:claude-made-up-2',
      'acct-a:claude-3-5-haiku-20241022',
    ]) {
      emulator.enqueue(anthropicError(500, 'api_error', 'Broken'));
      await expect(sy.complete(ask(model))).rejects.toThrow();
    }
    emulator.enqueue(anthropicError(500, 'api_error', 'Broken'));
    await expect(sy.complete(ask('acct-b:claude-made-up-1'))).rejects.toThrow();
    expect([...records.keys()].sort()).toEqual([
      'model:acct-a:other',
      'model:acct-b:other',
      'provider:acct-a',
      'provider:acct-b',
    ]);
    expect(records.get('model:acct-a:other')!.failures).toBe(3);
    expect(records.get('provider:acct-a')!.failures).toBe(3);
    expect(records.get('model:acct-b:other')!.failures).toBe(1);
    await sy.close();
  });

  it('one account’s open circuit keeps its own names out, unsent, and not the other account’s', async () => {
    const { sy } = accounts({ failure_threshold: 1, cooldown_seconds: 30 });
    emulator.enqueue(anthropicError(500, 'api_error', 'Broken'));
    await expect(sy.complete(ask('acct-a:claude-made-up-1'))).rejects.toThrow();
    expect(await sy.availability.state('provider:acct-a')).toBe('open');
    expect(await sy.availability.state('model:acct-a:other')).toBe('open');
    expect(await sy.availability.state('provider:acct-b')).toBe('closed');
    expect(await sy.availability.state('model:acct-b:other')).toBe('closed');

    const from = emulator.requests.length;
    const kept = await sy.complete(ask('acct-a:claude-made-up-2')).catch((caught: unknown) => caught);
    expect(kept).toMatchObject({ providerCode: 'all_candidates_unavailable' });
    expect((kept as Error).message).toContain('acct-a:claude-made-up-2: unavailable (open)');
    expect(emulator.requests.length).toBe(from);

    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'From B.' }] });
    const served = await sy.complete(ask('acct-b:claude-made-up-1'));
    expect(served.text).toBe('From B.');
    expect(served.model).toBe('acct-b:claude-made-up-1');
    expect(emulator.requests.at(-1)!.headers['x-api-key']).toBe('sk-ant-b-1111');
    await sy.close();
  });
});
