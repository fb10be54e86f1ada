/**
 * The provider-type table is per client (no module-level table in a side-effect-free package), and a client
 * loads a provider's adapter code only when it first calls that provider.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userText } from '../../src/core/transcript.ts';
import {
  type ProviderTypeTable,
  createProviderTypeTable,
  registerProviderType,
} from '../../src/registry/provider-type-table.ts';
import { createSwitchyard } from '../../src/switchyard.ts';
import { type Emulator, startEmulator } from '../../src/testing/emulator/index.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
  emulator.setDefault({
    type: 'scripted',
    content: [{ type: 'text', text: 'Hi.' }],
    usage: { input: 3, output: 1 },
  });
});
afterAll(() => emulator.close());

/** The table with each row's `load` recorded in `loaded`. */
function recording(table: ProviderTypeTable, loaded: string[]): ProviderTypeTable {
  for (const [type, row] of table) {
    const load = row.load;
    if (load !== undefined)
      table.set(type, {
        ...row,
        load: () => {
          loaded.push(type);
          return load();
        },
      });
  }
  return table;
}

describe('the provider-type table of a client', () => {
  it("two clients don't see each other's registrations", () => {
    const mine = createProviderTypeTable();
    registerProviderType({ ...mine.get('openai')!, type: 'carrier-pigeon' }, mine);
    const config = { adapters: { pigeon: { type: 'carrier-pigeon', api_key: 'k' } }, builtins: false };
    const withRow = createSwitchyard({ providerTypes: mine, config, env: {} });
    expect(withRow.providers()).toEqual([{ name: 'pigeon', type: 'carrier-pigeon', configured: true }]);
    expect(() => createSwitchyard({ config, env: {} })).toThrow(/unknown type 'carrier-pigeon'/);
    const other = createProviderTypeTable();
    expect(other.has('carrier-pigeon')).toBe(false);
    expect(other.get('openai')).not.toBe(mine.get('openai'));
  });

  it('loads only the adapter code of the provider it calls, at the first call; listing models loads none', async () => {
    const loaded: string[] = [];
    const sy = createSwitchyard({
      providerTypes: recording(createProviderTypeTable(), loaded),
      config: {
        adapters: {
          openai: { type: 'openai', base_url: `${emulator.url}/v1`, api_key: 'k', max_retries: 0 },
          anthropic: { type: 'anthropic', base_url: `${emulator.url}/v1`, api_key: 'k', max_retries: 0 },
        },
      },
      env: {},
    });
    try {
      const listed = sy.models();
      expect(listed.find((model) => model.id === 'anthropic:claude-sonnet-4-5')?.facts.tools).toBe(true);
      expect(sy.resolve('openai:gpt-5-mini').facts.contextWindow).toBeGreaterThan(0);
      expect(loaded).toEqual([]);
      const reply = await sy.complete({ model: 'openai:gpt-5-mini', transcript: [userText('Hello')] });
      expect(reply.text).toBe('Hi.');
      await sy.complete({ model: 'openai:gpt-5-mini', transcript: [userText('Again')] });
      expect(loaded).toEqual(['openai']);
    } finally {
      await sy.close();
    }
  });

  it('a provider whose code fails to load fails the call (complete or stream) with a ConfigError naming it; the next call loads again', async () => {
    const providerTypes = createProviderTypeTable();
    const row = providerTypes.get('openai')!;
    let failures = 2;
    providerTypes.set('openai', {
      ...row,
      load: () => (failures-- > 0 ? Promise.reject(new Error('EACCES: cannot read index.js')) : row.load!()),
    });
    const config = {
      adapters: { openai: { type: 'openai', base_url: `${emulator.url}/v1`, api_key: 'k', max_retries: 0 } },
    };
    const sy = createSwitchyard({ providerTypes, config, env: {} });
    try {
      const request = { model: 'openai:gpt-5-mini', transcript: [userText('Hello')] };
      await expect(sy.complete(request)).rejects.toThrow(/adapters\.openai: EACCES: cannot read index\.js/);
      // A stream ends (never hangs) with the same error.
      await expect(async () => {
        for await (const _ of sy.stream(request));
      }).rejects.toThrow(/adapters\.openai: EACCES/);
      const events = [];
      for await (const event of sy.stream(request)) events.push(event.type);
      expect(events.at(-1)).toBe('finish');
      expect((await sy.complete(request)).text).toBe('Hi.');
    } finally {
      await sy.close();
    }
  });
});
