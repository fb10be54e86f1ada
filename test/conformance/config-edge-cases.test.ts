/**
 * Config edge cases (#18 point 9): a timeout a timer cannot wait is refused (config) or clamped
 * (adapter option); config mistakes are ConfigErrors naming the key, never a TypeError; a
 * misconfigured URL is a non-retryable configuration error, never a retried `network` error; large
 * configs and globs with many `*` parse and match in bounded time.
 */
import { describe, expect, it } from 'vitest';
import { matchesGlob } from '../../src/core/glob.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { userText } from '../../src/core/transcript.ts';
import { createAnthropic } from '../../src/providers/anthropic/index.ts';
import { ConfigError, parseConfigYaml } from '../../src/registry/config.ts';
import { createSwitchyard } from '../../src/switchyard.ts';

function configError(build: () => unknown): ConfigError {
  let caught: unknown;
  try {
    build();
  } catch (error) {
    caught = error;
  }
  expect(caught, String(caught)).toBeInstanceOf(ConfigError);
  return caught as ConfigError;
}

const base = { env: { ANTHROPIC_API_KEY: 'edge-case-key-0123456789' }, logger: silentLogger };

describe('timeouts a timer cannot wait', () => {
  it('timeout_seconds ≥ 2,147,484 is refused at creation, naming the key', () => {
    const error = configError(() =>
      createSwitchyard({
        ...base,
        config: { adapters: { anthropic: { type: 'anthropic', timeout_seconds: 2_147_484 } } },
      }),
    );
    expect(error.message).toMatch(/adapters\.anthropic\.timeout_seconds: at most 2147483/);
  });

  it('first_byte_timeout_seconds has the same bound', () => {
    const error = configError(() =>
      createSwitchyard({
        ...base,
        config: { adapters: { anthropic: { type: 'anthropic', first_byte_timeout_seconds: 2_147_484 } } },
      }),
    );
    expect(error.message).toMatch(/adapters\.anthropic\.first_byte_timeout_seconds: at most 2147483/);
  });

  it('an adapter given a huge timeout clamps it: the call is not failed by an overflowed timer', async () => {
    const fetch = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return new Response(
        JSON.stringify({
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'text', text: 'ok' }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 1, output_tokens: 1 },
        }),
        { headers: { 'content-type': 'application/json' } },
      );
    }) as unknown as typeof globalThis.fetch;
    const adapter = createAnthropic({
      apiKey: 'k-0123456789',
      fetch,
      timeout: 1e12,
      firstByteTimeout: 1e12,
      idleTimeout: 1e12,
      maxRetries: 0,
    });
    const response = await adapter.complete({
      model: 'anthropic:claude-sonnet-4-5',
      transcript: [userText('hi')],
      maxOutputTokens: 8,
    });
    expect(response.finishReason).toBe('completed');
    await adapter.close();
  });
});

describe('config mistakes are ConfigErrors naming the key, never TypeError or ReferenceError', () => {
  it.each([
    [
      'an unknown type',
      { adapters: { mine: { type: 'antropic' } } },
      /adapters\.mine\.type: unknown type 'antropic' \(did you mean 'anthropic'\?\)/,
    ],
    [
      'an unknown preset',
      { adapters: { mine: { type: 'openai-compatible', preset: 'groqq' } } },
      /adapters\.mine\.preset: unknown preset 'groqq'/,
    ],
    [
      'a model naming an unknown adapter',
      { models: { 'x:y': { adapter: 'nowhere' } } },
      /models\.x:y\.adapter: no adapter named "nowhere"/,
    ],
    [
      'a base_url with another scheme',
      { adapters: { mine: { type: 'anthropic', base_url: 'ftp://files.example/v1' } } },
      /adapters\.mine\.base_url: expected an http/,
    ],
    [
      'a base_url that is no URL',
      { adapters: { mine: { type: 'anthropic', base_url: 'http://exa mple.com' } } },
      /adapters\.mine\.base_url: expected a URL/,
    ],
    [
      'api_key_env that is no variable name',
      { adapters: { mine: { type: 'anthropic', api_key_env: 'MY KEY' } } },
      /adapters\.mine\.api_key_env: expected an environment variable name/,
    ],
    // Before, undici refused it at the first call: every call failed as a network error.
    [
      'a pool of 0 connections',
      { adapters: { mine: { type: 'anthropic', options: { maxConnections: 0 } } } },
      /adapters\.mine\.options\.maxConnections: Too small/,
    ],
    [
      'a pool size that is no number',
      { adapters: { mine: { type: 'anthropic', options: { maxConnections: 'many' } } } },
      /adapters\.mine\.options\.maxConnections: Invalid input: expected number/,
    ],
  ])('%s', (_label, config, message) => {
    const error = configError(() => createSwitchyard({ ...base, config: config as never }));
    expect(error.message).toMatch(message);
  });

  it('options the adapter factory refuses surface as a ConfigError naming the adapter', async () => {
    const sy = createSwitchyard({
      ...base,
      config: {
        builtins: false,
        adapters: { host: { type: 'openai-compatible', quirks: { chatPath: 42 } } },
      },
    });
    const error = await sy
      .complete({ model: 'host:m', transcript: [userText('hi')] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/adapters\.host/);
  });
});

describe('a misconfigured URL is a non-retryable configuration error', () => {
  it.each(['ftp://files.example/v1', 'file:///etc/passwd', 'not a url', 'javascript:alert(1)'])(
    '%s',
    async (baseURL) => {
      let fetched = 0;
      const fetch = (async () => {
        fetched++;
        return new Response('{}');
      }) as unknown as typeof globalThis.fetch;
      const adapter = createAnthropic({ apiKey: 'k-0123456789', baseURL, fetch, maxRetries: 3 });
      const error = await adapter
        .complete({ model: 'anthropic:claude-sonnet-4-5', transcript: [userText('hi')], maxOutputTokens: 8 })
        .catch((caught: unknown) => caught);
      expect((error as { errorClass?: string }).errorClass).toBe('other');
      expect((error as { providerCode?: string }).providerCode).toBe('invalid_base_url');
      expect((error as { retryable?: boolean }).retryable).toBe(false);
      expect(fetched).toBe(0);
      await adapter.close();
    },
  );
});

describe('large configs and many-star globs stay bounded', () => {
  it('a glob with many * does not backtrack (and agrees with the regex semantics)', () => {
    const pattern = `${'*a'.repeat(40)}*b`;
    expect(matchesGlob(pattern, 'a'.repeat(5_000))).toBe(false);
    expect(matchesGlob(pattern, `${'a'.repeat(5_000)}b`)).toBe(true);
    const cases: Array<[string, string]> = [
      ['openai:gpt-*', 'openai:gpt-4.1'],
      ['*-mini', 'gpt-4.1-mini'],
      ['a*b*c', 'abc'],
      ['a*b*c', 'aXbYcZ'],
      ['*', ''],
      ['a**b', 'ab'],
      ['*x*', 'yyy'],
      ['gemini-*-flash', 'gemini-2.5-flash'],
      ['gemini-*-flash', 'gemini-2.5-flash-lite'],
    ];
    for (const [glob, name] of cases) {
      const regex = new RegExp(
        `^${glob
          .split('*')
          .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*')}$`,
        's',
      );
      expect(matchesGlob(glob, name), `${glob} ~ ${name}`).toBe(regex.test(name));
    }
  });

  it('a YAML config with 3,000 models and a 100-star glob parses and resolves', () => {
    const lines = ['models:'];
    for (let index = 0; index < 3_000; index++)
      lines.push(`  "anthropic:model-${index}": { tier: t${index % 7} }`);
    lines.push(`  "anthropic:${'*x'.repeat(100)}*": {}`);
    const config = parseConfigYaml(lines.join('\n'));
    const sy = createSwitchyard({ ...base, config });
    expect(sy.resolve('anthropic:model-2999').tier).toBe('t3');
    expect(() => sy.resolve(`claude-${'y'.repeat(3_000)}`)).toThrow();
  });
});

describe('hostile config text', () => {
  it('a YAML alias bomb is a ConfigError (yaml), not a raw ReferenceError', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 12; level++) {
      const previous = String.fromCharCode(96 + level);
      const next = String.fromCharCode(97 + level);
      lines.push(`${next}: &${next} [${Array(10).fill(`*${previous}`).join(', ')}]`);
    }
    const error = configError(() => parseConfigYaml(lines.join('\n')));
    expect(error.message).toMatch(/\(yaml\).*alias/i);
  });

  it.each([
    [{ 'x-a': 'v\r\nInjected: 1' }, /no CR, LF, NUL/],
    [{ 'bad name': 'v' }, /headers\.bad name: Invalid key/],
    [{ 'x-a': 'x\u2014y' }, /above U\+00FF/],
  ])(
    'headers %j are refused at creation, naming the key (not a retried network error on every call)',
    (headers, message) => {
      const error = configError(() =>
        createSwitchyard({ ...base, config: { adapters: { anthropic: { type: 'anthropic', headers } } } }),
      );
      expect(error.message).toMatch(/adapters\.anthropic\.headers/);
      expect(error.message).toMatch(message);
    },
  );
});
