/**
 * Gateway keys are told apart by name (usage, limits, budgets, stored replies) and by secret: two
 * entries with one name, or one secret under two names, are a config error at creation naming
 * them — never two tenants merged into one (the second reading the first's stored replies).
 */
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from 'switchyard-ai';
import { createGateway } from 'switchyard-ai/gateway';
import { keyDigest } from '../support/gateway-processes.ts';

function gatewayWith(
  keys: Array<{ name: string; key?: string; key_env?: string; models?: string[] }>,
  env: Record<string, string> = {},
) {
  return createGateway({
    logger: createMemoryLogger(),
    env,
    config: {
      builtins: false,
      adapters: { openai: { type: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: 'upstream' } },
      models: { 'openai:gpt-5-mini': { aliases: ['up-chat'] } },
      gateway: { access_log: false, keys },
    },
  });
}

describe('gateway keys in the config', () => {
  it('two entries with one name are refused, naming the name and both entries', () => {
    expect(() =>
      gatewayWith([
        { name: 'team', key: keyDigest('tenant-one-key'), models: ['up-chat'] },
        { name: 'team', key: keyDigest('tenant-two-key') },
      ]),
    ).toThrow("gateway.keys.1.name: the name 'team' is taken by gateway.keys.0");
  });

  it('one digest under two names is refused', () => {
    expect(() =>
      gatewayWith([
        { name: 'one', key: keyDigest('shared-key') },
        { name: 'two', key: keyDigest('shared-key') },
      ]),
    ).toThrow("gateway.keys.1.key: the same digest as gateway.keys.0 ('one')");
  });

  it('one variable under two names is refused', () => {
    expect(() =>
      gatewayWith(
        [
          { name: 'one', key_env: 'TEAM_KEY' },
          { name: 'two', key_env: 'TEAM_KEY' },
        ],
        { TEAM_KEY: 'shared-key' },
      ),
    ).toThrow("gateway.keys.1.key_env: the same variable TEAM_KEY as gateway.keys.0 ('one')");
  });

  it('two variables holding one secret, or a variable holding a digest’s key, are refused naming both keys', () => {
    const env = { ONE_KEY: 'shared-key', TWO_KEY: 'shared-key' };
    expect(() =>
      gatewayWith(
        [
          { name: 'one', key_env: 'ONE_KEY' },
          { name: 'two', key_env: 'TWO_KEY' },
        ],
        env,
      ),
    ).toThrow("gateway key 'two': its key is the same as gateway key 'one'");
    expect(() =>
      gatewayWith(
        [
          { name: 'one', key: keyDigest('shared-key') },
          { name: 'two', key_env: 'TWO_KEY' },
        ],
        env,
      ),
    ).toThrow("gateway key 'two': its key is the same as gateway key 'one'");
  });

  it('distinct names and secrets are accepted', async () => {
    const gateway = gatewayWith(
      [
        { name: 'one', key: keyDigest('one-key') },
        { name: 'two', key_env: 'TWO_KEY' },
      ],
      { TWO_KEY: 'two-key' },
    );
    await gateway.switchyard.close();
  });
});

it('an unknown key at the top of the gateway section is named by its path, not an empty one', () => {
  expect(() => createGateway({ config: { gateway: { bodylimit: 1 } as never } })).toThrow(
    /^invalid gateway config: gateway: Unrecognized key: "bodylimit"$/,
  );
});
