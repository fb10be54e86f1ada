/**
 * An adapter configured under a name of its own (`work-claude` of type `anthropic`, `responses` of
 * type `openai-responses`) knows its provider's bundled catalog as the type's default-named adapter
 * does: the same facts for a catalogued model (context window, output limit, capabilities, display
 * name, prices), and the same models listed — by `registry.models()`, the gateway's `GET /v1/models`
 * and `switchyard models` — under the configured name. An OpenAI-compatible host of a preset named
 * otherwise (`groq-eu` of preset `groq`) is to its preset what `work-claude` is to `anthropic`. What is listed is what is configured: with
 * `builtins: false` and only `work-claude`, no `anthropic:` model is listed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.ts';
import { createGateway } from '../../src/gateway/index.ts';
import { createSwitchyard } from '../../src/switchyard.ts';
import { temporaryFolder } from '../support/pty-chat.ts';

/**
 * A front door with one adapter, `name`, of `type` (a key, so configured; nothing is sent); an
 * `openai-compatible` one of the preset its default-named adapter is named as (`groq`).
 */
const only = (name: string, type: string, provider?: string) =>
  createSwitchyard({
    env: {},
    config: {
      builtins: false,
      adapters: {
        [name]: {
          type,
          api_key: 'sk-test-0000',
          ...(type === 'openai-compatible' ? { preset: provider } : {}),
        },
      },
    },
  });

/** The listing of a front door, by wire name, without the provider prefix. */
const byWireName = (sy: ReturnType<typeof only>) =>
  new Map(
    sy
      .models()
      .map(({ id, provider, ...rest }) => [id.slice(provider.length + 1), { provider, ...rest }] as const),
  );

describe('an adapter named otherwise than its type knows its provider’s catalog', () => {
  it.each([
    ['work-claude', 'anthropic', 'anthropic', 'claude-3-5-haiku-20241022'],
    ['responses', 'openai-responses', 'openai', 'gpt-4.1'],
    ['groq-eu', 'openai-compatible', 'groq', 'llama-3.3-70b-versatile'],
  ])(
    '%s (type %s) resolves a catalogued model with the facts and prices %s: gives it (%s)',
    async (name, type, provider, wireName) => {
      const renamed = only(name, type, provider);
      const named = only(provider, type, provider);
      const own = renamed.resolve(`${name}:${wireName}`);
      const builtin = named.resolve(`${provider}:${wireName}`);
      expect(own.facts.sources).toContain('catalog');
      expect(own.facts).toEqual(builtin.facts);
      expect(own.ownName).toBe(provider);
      expect(await renamed.pricesOf(`${name}:${wireName}`)).toEqual(
        await named.pricesOf(`${provider}:${wireName}`),
      );
      await Promise.all([renamed.close(), named.close()]);
    },
  );

  it.each([
    ['work-claude', 'anthropic', 'anthropic'],
    ['responses', 'openai', 'openai-responses'],
    ['gem-b', 'gemini', 'gemini'],
    ['groq-eu', 'groq', 'openai-compatible'],
  ])(
    'registry.models() lists %s’s catalog models as it lists %s’s (type %s), under its own name only',
    async (name, provider, type) => {
      const renamed = only(name, type, provider);
      const named = only(provider, type, provider);
      const own = byWireName(renamed);
      const builtin = byWireName(named);
      expect(builtin.size).toBeGreaterThan(0);
      expect([...own.keys()]).toEqual([...builtin.keys()]);
      for (const [wireName, listing] of own) {
        expect(listing.provider).toBe(name);
        expect(listing).toEqual({ ...builtin.get(wireName), provider: name });
      }
      // What is configured is listed: the type's default name is not.
      expect(renamed.models().some((listing) => listing.provider === provider)).toBe(false);
      await Promise.all([renamed.close(), named.close()]);
    },
  );

  it('the gateway’s GET /v1/models lists the renamed adapter’s catalog models', async () => {
    const gateway = createGateway({
      env: {},
      accessLog: () => {},
      config: {
        builtins: false,
        adapters: { 'work-claude': { type: 'anthropic', api_key: 'sk-test-0000' } },
      },
    });
    const server = await gateway.listen({ host: '127.0.0.1', port: 0 });
    try {
      const response = await fetch(`${server.url}/v1/models`);
      expect(response.status).toBe(200);
      const ids = ((await response.json()) as { data: Array<{ id: string }> }).data.map((model) => model.id);
      expect(ids).toContain('work-claude:claude-3-5-haiku-20241022');
      expect(ids.every((id) => id.startsWith('work-claude:'))).toBe(true);
    } finally {
      await server.close(0);
      await gateway.switchyard.close();
    }
  });

  it('switchyard models lists them with their limits and prices, as anthropic: has them', async () => {
    const lines: string[] = [];
    const output = { stdout: (line: string) => lines.push(line), stderr: (line: string) => lines.push(line) };
    const rowsOf = async (name: string) => {
      const file = join(temporaryFolder(), 'switchyard.yaml');
      writeFileSync(
        file,
        ['builtins: false', 'adapters:', `  ${name}: { type: anthropic, api_key: sk-test-0000 }`, ''].join(
          '\n',
        ),
      );
      lines.length = 0;
      expect(await runCli(['models', '--config', file, '--json'], output)).toBe(0);
      return JSON.parse(lines.join('\n')) as Array<Record<string, unknown>>;
    };
    const builtin = await rowsOf('anthropic');
    const renamed = await rowsOf('work-claude');
    expect(builtin.length).toBeGreaterThan(0);
    expect(renamed).toEqual(
      builtin.map((row) => ({
        ...row,
        id: `work-claude:${String(row.id).slice('anthropic:'.length)}`,
        provider: 'work-claude',
      })),
    );
  });
});
