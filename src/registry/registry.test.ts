import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAuthError, isInvalidRequestError } from '../core/errors/guards.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { userText } from '../core/transcript.ts';
import { routingDecision, routingDecisionOfError } from '../routing/decision.ts';
import { createSwitchyard } from '../switchyard.ts';
import { type Emulator, startEmulator } from '../testing/emulator/index.ts';
import { createProviderTypeTable } from './provider-type-table.ts';
import { ConfigError, parseConfig, parseConfigYaml } from './config.ts';

const env = { ANTHROPIC_API_KEY: 'test-key-anthropic', OPENAI_API_KEY: 'test-key-openai' };

describe('resolution order: exact, then alias, then globs in order, then provider:name', () => {
  const sy = createSwitchyard({
    env,
    logger: createMemoryLogger(),
    config: {
      models: {
        'openai:gpt-5': { aliases: ['fast'], tier: 'balanced' },
        'anthropic:claude-opus-4-1': { aliases: ['gpt-4o'], wire_name: 'claude-opus-4-1-20250805' },
        'openai:gpt-4*': { tier: 'legacy' },
        'openai:gpt-*': { tier: 'any-gpt' },
      },
    },
  });

  it('an exact id wins over everything', () => {
    expect(sy.resolve('openai:gpt-5')).toMatchObject({
      id: 'openai:gpt-5',
      matchedBy: 'exact',
      tier: 'balanced',
    });
  });
  it('an alias maps to its entry and wire name, before any glob', () => {
    expect(sy.resolve('fast')).toMatchObject({ id: 'openai:gpt-5', matchedBy: 'alias' });
    expect(sy.resolve('gpt-4o')).toMatchObject({
      id: 'anthropic:claude-opus-4-1-20250805',
      provider: 'anthropic',
      matchedBy: 'alias',
    });
  });
  it('globs are tried in order: the first match wins, for ids and bare names', () => {
    expect(sy.resolve('openai:gpt-4.1-mini')).toMatchObject({
      matchedBy: 'glob',
      entry: 'openai:gpt-4*',
      tier: 'legacy',
    });
    expect(sy.resolve('gpt-4.1-mini')).toMatchObject({ id: 'openai:gpt-4.1-mini', entry: 'openai:gpt-4*' });
    expect(sy.resolve('gpt-5-nano')).toMatchObject({ id: 'openai:gpt-5-nano', entry: 'openai:gpt-*' });
    expect(sy.resolve('claude-haiku-4-5')).toMatchObject({
      id: 'anthropic:claude-haiku-4-5',
      entry: 'anthropic:claude-*',
    });
    expect(sy.resolve('gemini-2.5-flash')).toMatchObject({ provider: 'gemini', configured: false });
  });
  it('any provider:name of a known adapter is served as is', () => {
    expect(sy.resolve('groq:llama-3.3-70b-versatile')).toMatchObject({
      matchedBy: 'provider',
      provider: 'groq',
    });
  });
  it('a `vertex` adapter takes both families’ names (Claude’s `@version` too) and refuses a path', () => {
    const vertex = createSwitchyard({
      logger: createMemoryLogger(),
      config: {
        builtins: false,
        adapters: { gcp: { type: 'vertex', api_key: 'k' } },
        models: { 'gcp:claude-sonnet-4-5@20250929': { aliases: ['claude'] } },
      },
    });
    expect(vertex.resolve('claude')).toMatchObject({ wireName: 'claude-sonnet-4-5@20250929' });
    expect(vertex.resolve('gcp:gemini-2.5-flash')).toMatchObject({ wireName: 'gemini-2.5-flash' });
    expect(() => vertex.resolve('gcp:models/../x')).toThrow(/invalid model name|model name/);
  });
  it('an unknown name is a classified invalid request', () => {
    const attempt = () => sy.resolve('no-such-model');
    expect(attempt).toThrow(/unknown model "no-such-model"/);
    try {
      attempt();
    } catch (error) {
      expect(isInvalidRequestError(error)).toBe(true);
    }
  });
  it('the bundled aliases serve the three-line example', () => {
    expect(sy.resolve('sonnet').id).toBe('anthropic:claude-sonnet-4-5');
    expect(sy.resolve('flash').id).toBe('gemini:gemini-2.5-flash');
  });
  it('facts merge the catalog, the adapter and overrides', () => {
    const facts = sy.resolve('anthropic:claude-3-7-sonnet-20250219').facts;
    expect(facts).toMatchObject({
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
      tools: true,
      images: true,
    });
    expect(facts.sources).toEqual(['adapter', 'catalog']);
    const custom = createSwitchyard({
      env,
      config: { models: { 'openai:gpt-4o': { capabilities: { contextWindow: 1000, images: false } } } },
    });
    expect(custom.resolve('openai:gpt-4o').facts).toMatchObject({ contextWindow: 1000, images: false });
    expect(custom.resolve('openai:gpt-4o').facts.sources).toEqual(['adapter', 'catalog', 'config']);
  });
  it('models() lists configured entries and catalog models with their status', () => {
    const models = sy.models();
    expect(models.find((model) => model.id === 'openai:gpt-5')).toMatchObject({
      configured: true,
      aliases: ['fast'],
    });
    expect(models.find((model) => model.id === 'gemini:gemini-2.5-pro')).toMatchObject({ configured: false });
    expect(models.length).toBeGreaterThan(100);
  });
  it('models() lists an entry with a wire name by its own key, which resolves to the entry and its pricing', () => {
    const priced = createSwitchyard({
      env: { ...env, LOCAL_KEY: 'k' },
      config: {
        adapters: {
          local: { type: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1', api_key_env: 'LOCAL_KEY' },
        },
        models: {
          'local:my-finetune': {
            wire_name: 'my-finetune-q4',
            aliases: ['mine'],
            pricing: { input_mtok: 0, output_mtok: 0 },
          },
        },
      },
    });
    const listed = priced.models().find((model) => model.aliases.includes('mine'));
    expect(listed?.id).toBe('local:my-finetune');
    expect(priced.resolve(listed!.id)).toMatchObject({
      id: 'local:my-finetune-q4',
      pricing: { input_mtok: 0 },
    });
  });
});

describe('config errors name the key and the line', () => {
  it('a wrong type, with its YAML line', () => {
    const yaml = [
      'adapters:',
      '  anthropic:',
      '    type: anthropic',
      '    max_retries: lots',
      'models: {}',
      '',
    ].join('\n');
    expect(() => parseConfigYaml(yaml, 'models.yaml')).toThrow(ConfigError);
    try {
      parseConfigYaml(yaml, 'models.yaml');
    } catch (error) {
      expect((error as ConfigError).issues).toEqual([
        { path: 'adapters.anthropic.max_retries', line: 4, message: expect.stringContaining('number') },
      ]);
      expect((error as Error).message).toContain('models.yaml');
      expect((error as Error).message).toContain('line 4: adapters.anthropic.max_retries');
    }
  });
  it('an unknown key, a bad model id and a bad alias list item', () => {
    const yaml = [
      'models:',
      '  anthropic:claude-x:',
      '    teir: deep',
      '  not-an-id:',
      '    tier: fast',
      '  openai:gpt-5:',
      '    aliases: [ok, 3]',
    ].join('\n');
    let issues: ConfigError['issues'] = [];
    try {
      parseConfigYaml(yaml);
    } catch (error) {
      issues = (error as ConfigError).issues;
    }
    expect(issues).toContainEqual(
      expect.objectContaining({ path: 'models.anthropic:claude-x.teir', line: 3 }),
    );
    expect(issues).toContainEqual(expect.objectContaining({ path: 'models.not-an-id', line: 4 }));
    expect(issues).toContainEqual(
      expect.objectContaining({ path: 'models.openai:gpt-5.aliases.1', line: 7 }),
    );
  });
  it('a YAML syntax error, with its line', () => {
    try {
      parseConfigYaml('adapters:\n  anthropic:\n    type: [unclosed\n');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).issues[0]?.line).toBeGreaterThanOrEqual(3);
    }
  });
  it('the object form names the key', () => {
    expect(() => parseConfig({ adapters: { x: { type: 'openai', timeout_seconds: -1 } } })).toThrow(
      /adapters\.x\.timeout_seconds/,
    );
  });
  it('a config file path is read and validated', () => {
    const directory = mkdtempSync(join(tmpdir(), 'switchyard-config-'));
    const file = join(directory, 'models.yaml');
    writeFileSync(file, 'models:\n  openai:gpt-5:\n    aliases: [five]\n');
    expect(createSwitchyard({ config: file, env }).resolve('five').id).toBe('openai:gpt-5');
    writeFileSync(file, 'models:\n  openai:gpt-5:\n    aliases: five\n');
    expect(() => createSwitchyard({ config: file, env })).toThrow(/line 3: models\.openai:gpt-5\.aliases/);
  });
  it('an unknown adapter type is named with every known type, or the one it is a typo of', () => {
    expect(() => createSwitchyard({ env, config: { adapters: { x: { type: 'smoke-signals' } } } })).toThrow(
      `adapters.x.type: unknown type 'smoke-signals' (this version supports ${[...createProviderTypeTable().keys()].join(', ')})`,
    );
    expect(() => createSwitchyard({ env, config: { adapters: { x: { type: 'antropic' } } } })).toThrow(
      "adapters.x.type: unknown type 'antropic' (did you mean 'anthropic'?)",
    );
  });
});

describe('a not_configured adapter is listed, never called, and named in the error', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator();
  });
  afterAll(async () => {
    await emulator.close();
  });

  it('fallback skips it with a reason; calling it directly fails without any HTTP call', async () => {
    const sy = createSwitchyard({
      env: { ANTHROPIC_API_KEY: 'test-key-anthropic' },
      logger: createMemoryLogger(),
      config: {
        adapters: {
          anthropic: { type: 'anthropic', base_url: `${emulator.url}/v1`, max_retries: 0 },
          openai: { type: 'openai', base_url: `${emulator.url}/v1` },
        },
        models: { 'openai:gpt-5': { aliases: ['five'], fallbacks: ['anthropic:claude-sonnet-4-5'] } },
      },
    });
    expect(sy.providers().find((provider) => provider.name === 'openai')).toEqual({
      name: 'openai',
      type: 'openai',
      configured: false,
      missing: ['OPENAI_API_KEY'],
    });
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'from claude' }] });
    const reply = await sy.complete({ model: 'five', transcript: [userText('Hi')] });
    expect(reply.text).toBe('from claude');
    expect(routingDecision(reply)?.attempts[0]).toEqual({
      model: 'openai:gpt-5',
      provider: 'openai',
      outcome: 'skipped',
      reason: 'not_configured',
    });
    const before = emulator.requests.length;
    const failure = await sy
      .complete({ model: 'openai:gpt-4o', transcript: [userText('Hi')] })
      .catch((error) => error);
    expect(isAuthError(failure)).toBe(true);
    expect(failure).toMatchObject({ providerCode: 'not_configured', provider: 'openai' });
    expect(failure.message).toBe('openai is not configured: set OPENAI_API_KEY');
    expect(routingDecisionOfError(failure)?.attempts).toHaveLength(1);
    expect(emulator.requests.length).toBe(before);
    expect(emulator.requests.every((request) => request.protocol !== 'openai-chat')).toBe(true);
    await sy.close();
  });
});

describe('config capability overrides reach the adapter, so its pre-flight check enforces them', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator();
  });
  afterAll(async () => {
    await emulator.close();
  });

  it('an entry’s maxOutputTokens is enforced by the adapter, and the router’s default and an alias’s cap are clamped to it', async () => {
    const sy = createSwitchyard({
      env,
      logger: createMemoryLogger(),
      config: {
        adapters: { anthropic: { type: 'anthropic', base_url: `${emulator.url}/v1`, max_retries: 0 } },
        models: {
          'anthropic:claude-sonnet-4-5': { aliases: ['small'], capabilities: { maxOutputTokens: 300 } },
        },
      },
    });
    expect(sy.resolve('small').facts.maxOutputTokens).toBe(300);
    const before = emulator.requests.length;
    // A cap above the limit of the model the caller named itself: the adapter's own pre-flight refusal.
    const named = await sy
      .complete({
        model: 'anthropic:claude-sonnet-4-5',
        transcript: [userText('Hi')],
        maxOutputTokens: 5_000,
      })
      .catch((error: unknown) => error);
    expect(named).toMatchObject({ providerCode: 'max_output_tokens_exceeded' });
    expect(emulator.requests.length).toBe(before);
    // Through an alias the router lowers it to the merged facts' limit instead.
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'lowered' }] });
    const aliased = await sy.complete({
      model: 'small',
      transcript: [userText('Hi')],
      maxOutputTokens: 5_000,
    });
    expect(aliased.text).toBe('lowered');
    expect(emulator.requests.at(-1)?.body).toMatchObject({ max_tokens: 300 });
    // The router's default output limit is clamped to the merged facts: the call goes through.
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
    const reply = await sy.complete({ model: 'small', transcript: [userText('Hi')] });
    expect(reply.text).toBe('ok');
    expect(emulator.requests.at(-1)?.body).toMatchObject({ max_tokens: 300 });
    await sy.close();
  });
});

describe('an unknown model’s suggestion is a name that resolves, never the name asked for', () => {
  const sy = createSwitchyard({
    env,
    logger: createMemoryLogger(),
    config: {
      builtins: false,
      adapters: { openai: { type: 'openai' }, anthropic: { type: 'anthropic' } },
      models: {
        'openai:gpt-5-mini': { aliases: ['up-chat'] },
        'anthropic:claude-sonnet-4-5': {},
        'openai:o4-mini*': {},
      },
    },
  });
  const message = (name: string) => {
    try {
      sy.resolve(name);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error(`${name} resolved`);
  };

  it.each([
    ['gpt-5-mini', 'openai:gpt-5-mini', 'the bare name of a configured id'],
    ['claude-sonnet-4-5', 'anthropic:claude-sonnet-4-5', 'the bare name of a configured id'],
    ['gpt-4.1-mini', 'openai:gpt-4.1-mini', 'a bare catalog name'],
    ['GPT-5-MINI', 'openai:gpt-5-mini', 'the bare name in other case'],
    ['o4-mimi', 'o4-mini', 'a bare catalog name a glob serves (it resolves as it is)'],
    ['up-chta', 'up-chat', 'an alias'],
  ])('%s suggests %s (%s)', (name, suggested) => {
    expect(message(name)).toContain(`(did you mean "${suggested}"?)`);
    expect(() => sy.resolve(suggested)).not.toThrow();
  });
});
