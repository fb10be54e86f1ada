/**
 * Secrets outside the key's usual shape (#18 point 3): a key pasted into `api_key_env`, a password
 * in a `base_url`, user secret headers, errors of a custom `fetch`, and the exact configured key
 * values of every configured adapter (not only key-shaped strings) — never in errors, logs,
 * observer events or JSON lines.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/core/logger.ts';
import { redactSecrets, redactUrl } from '../../src/core/redaction.ts';
import { userText } from '../../src/core/transcript.ts';
import { createJsonLinesReporter } from '../../src/observers/jsonl.ts';
import type { CallEvent } from '../../src/observers/types.ts';
import { createAnthropic } from '../../src/providers/anthropic/index.ts';
import { createOpenAICompatible } from '../../src/providers/openai-compatible/index.ts';
import { ConfigError, parseConfigYaml } from '../../src/registry/config.ts';
import { createSwitchyard } from '../../src/switchyard.ts';

/** Pieces joined at run time: the source holds nothing shaped like a real key. */
const pastedKeys: Array<[string, string]> = [
  ['an Anthropic key', ['sk', 'ant', 'api03', 'AbCdEfGhIjKlMnOpQrStUv'].join('-')],
  ['an OpenAI project key', ['sk', 'proj', 'AbCdEfGhIjKlMnOpQrStUv0123'].join('-')],
  ['a Google key', ['AIza', 'SyAbCdEfGhIjKlMnOpQrStUvWxYz0123456'].join('')],
  ['a Groq key (a valid identifier!)', ['gsk', 'AbCdEfGhIjKlMnOpQrStUvWxYz012345'].join('_')],
  ['a shapeless proxy key', ['Zq8', 'pLm2', 'Xw9Rt4', 'Kv7Ny3Bh6', 'Tz5Qa1Wc'].join('')],
  ['a key with a space', 'Bearer abcdef0123456789'],
];

/** Everything a user can see of a call: the error (message, cause chain, JSON), logs, events, JSON lines. */
function visibleText(parts: {
  error?: unknown;
  logs?: unknown;
  events?: CallEvent[];
  lines?: string[];
}): string {
  const chunks: string[] = [];
  let error = parts.error as (Error & { cause?: unknown }) | undefined;
  for (let depth = 0; error !== undefined && depth < 5; depth++) {
    chunks.push(String(error), error.message ?? '', error.stack ?? '', JSON.stringify(error));
    error = error.cause as typeof error;
  }
  chunks.push(JSON.stringify(parts.logs ?? []));
  for (const event of parts.events ?? []) {
    chunks.push(
      JSON.stringify(event),
      event.type === 'call-failed' ? `${event.error.message} ${String(event.error.cause)}` : '',
    );
  }
  chunks.push(...(parts.lines ?? []));
  return chunks.join('\n');
}

describe('a key pasted into api_key_env is refused with a ConfigError that does not echo it', () => {
  it.each(pastedKeys)('%s (object config and YAML)', (_label, value) => {
    let objectError: unknown;
    try {
      createSwitchyard({
        env: {},
        config: { adapters: { anthropic: { type: 'anthropic', api_key_env: value } } },
      });
    } catch (error) {
      objectError = error;
    }
    expect(objectError).toBeInstanceOf(ConfigError);
    expect((objectError as Error).message).toMatch(/adapters\.anthropic\.api_key_env/);
    expect(visibleText({ error: objectError })).not.toContain(value);
    let yamlError: unknown;
    try {
      parseConfigYaml(`adapters:\n  anthropic:\n    type: anthropic\n    api_key_env: "${value}"\n`);
    } catch (error) {
      yamlError = error;
    }
    expect(yamlError).toBeInstanceOf(ConfigError);
    expect((yamlError as Error).message).toMatch(/line 4: adapters\.anthropic\.api_key_env/);
    expect(visibleText({ error: yamlError })).not.toContain(value);
  });

  it('ordinary variable names still work', () => {
    const sy = createSwitchyard({
      env: { MY_PROXY_KEY: 'value-0123456789' },
      config: { adapters: { anthropic: { type: 'anthropic', api_key_env: 'MY_PROXY_KEY' } } },
    });
    expect(sy.providers().find((provider) => provider.name === 'anthropic')?.configured).toBe(true);
  });
});

describe('a password in a base_url never appears', () => {
  const password = 'hunter2-base-url-password';

  it('the config refuses userinfo (ConfigError, not echoed)', () => {
    let caught: unknown;
    try {
      createSwitchyard({
        env: {},
        config: {
          adapters: {
            anthropic: { type: 'anthropic', base_url: `https://user:${password}@proxy.example/v1` },
          },
        },
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect(visibleText({ error: caught })).not.toContain(password);
  });

  it('an adapter given one directly prints no userinfo in any error or log', async () => {
    const logger = createMemoryLogger();
    const adapter = createAnthropic({
      apiKey: 'k-0123456789abcdef',
      baseURL: `http://admin:${password}@127.0.0.1:9/v1`,
      logger,
      maxRetries: 0,
    });
    const error = await adapter
      .complete({ model: 'anthropic:claude-sonnet-4-5', transcript: [userText('hi')], maxOutputTokens: 8 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    const visible = visibleText({ error, logs: logger.entries });
    expect(visible).not.toContain(password);
    expect(visible).not.toContain('admin:');
    await adapter.close();
  });

  it('redactUrl and redactSecrets remove userinfo wherever a URL is printed', () => {
    expect(redactUrl(`https://u:${password}@host.example/v1?key=x`)).toBe(
      'https://[REDACTED]@host.example/v1?key=[REDACTED]',
    );
    expect(redactSecrets(`GET http://${password}@h/x failed`)).not.toContain(password);
  });
});

describe('a SigV4 signature is removed however its name and separator are written', () => {
  const hex = '0123456789abcdef'.repeat(4);
  it.each([
    [`Authorization: AWS4-HMAC-SHA256 SignedHeaders=host, Signature=${hex}`, 'Signature=[REDACTED]'],
    [`https://x.amazonaws.com/?X-Amz-Signature=${hex}&x=1`, 'X-Amz-Signature=[REDACTED]&x=1'],
    [`https://x.amazonaws.com/?X-Amz-Signature%3D${hex}`, 'X-Amz-Signature%3D[REDACTED]'],
    [`{"signature": "${hex}"}`, '{"signature": "[REDACTED]"}'],
    [`{\\"signature\\":\\"${hex}\\"}`, '{\\"signature\\":\\"[REDACTED]\\"}'],
    [`SIGNATURE=${hex}`, 'SIGNATURE=[REDACTED]'],
    [`x-amz-signature%3d${hex}`, 'x-amz-signature%3d[REDACTED]'],
    [`signature: ${hex}`, 'signature: [REDACTED]'],
    [`Signature = ${hex}`, 'Signature = [REDACTED]'],
  ])('%s', (text, shown) => {
    const redacted = redactSecrets(text);
    expect(redacted).not.toContain(hex);
    expect(redacted).toContain(shown);
  });

  it('hex after another name, or too short to be a signature, stays', () => {
    expect(redactSecrets(`sha256=${hex} Signature=abc123`)).toBe(`sha256=${hex} Signature=abc123`);
  });
});

describe('redactUrl: secret query parameters by name, in linear time, the text around kept', () => {
  it.each([
    'key',
    'api_key',
    'api-key',
    'x-api-key',
    'subscription-key',
    'accessToken',
    'X-Amz-Security-Token',
    'X-Amz-Signature',
    'X-Amz-Credential',
    'sig',
    'code',
    'client_secret',
  ])('?%s= is redacted', (name) => {
    expect(redactUrl(`https://h.example/p?a=1&${name}=Zq83secretvalue&b=2`)).toBe(
      `https://h.example/p?a=1&${name}=[REDACTED]&b=2`,
    );
  });

  it('a name written percent-encoded (shared%5Fsig) is judged decoded', () => {
    expect(redactUrl('https://h.example/p?shared%5Fsig=Zq83secretvalue')).toBe(
      'https://h.example/p?shared%5Fsig=[REDACTED]',
    );
  });

  it.each(['max_tokens', 'session_expired', 'token_type', 'model'])('?%s= is kept', (name) => {
    expect(redactUrl(`https://h.example/p?${name}=4096`)).toBe(`https://h.example/p?${name}=4096`);
  });

  it('a value ends at a blank: the message after a URL in free text is kept', () => {
    expect(redactUrl('sign in at https://idp.example/login?token=abc then reconnect (ECONNRESET)')).toBe(
      'sign in at https://idp.example/login?token=[REDACTED] then reconnect (ECONNRESET)',
    );
  });

  it('a text of many ? and & with no = is scanned in linear time (it took 11 s for 9,600 characters)', () => {
    const text = '?&'.repeat(50_000);
    const started = performance.now();
    expect(redactUrl(text)).toBe(text);
    // 100,000 characters; the cubic pattern would take hours. Linear: a few ms.
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('user secret headers and custom-fetch errors are redacted', () => {
  const headerValue = 'portkey-secret-value-0123';
  const names = [
    'x-portkey-api-key',
    'X-Auth-Token',
    'x-client-secret',
    'proxy-authorization',
    'x-session-id',
    'cf-access-client-secret',
  ];

  it.each(names)(
    '%s: a custom fetch echoing it in its error (message and cause) leaks nothing',
    async (name) => {
      const value = `${headerValue}-${name.length}`;
      const logger = createMemoryLogger();
      const fetch = (async (_url: string, init: RequestInit) => {
        const headers = init.headers as Record<string, string>;
        throw new Error(`proxy refused: ${JSON.stringify(headers)}`);
      }) as unknown as typeof globalThis.fetch;
      const events: CallEvent[] = [];
      const lines: string[] = [];
      const sy = createSwitchyard({
        env: {},
        fetch,
        logger,
        observers: [
          { onEvent: (event) => void events.push(event) },
          createJsonLinesReporter({ write: (line) => lines.push(line) }),
        ],
        config: {
          builtins: false,
          adapters: {
            proxy: {
              type: 'openai-compatible',
              base_url: 'http://127.0.0.1:9/v1',
              headers: { [name]: value },
              max_retries: 0,
            },
          },
        },
      });
      const error = await sy
        .complete({ model: 'proxy:some-model', transcript: [userText('hi')] })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Error);
      expect(events.some((event) => event.type === 'call-failed')).toBe(true);
      expect(visibleText({ error, logs: logger.entries, events, lines })).not.toContain(value);
      await sy.close();
    },
  );
});

describe('the exact configured key values of every adapter are removed, not only key shapes', () => {
  const keyA = 'plain-proxy-key-AAAA-1111';
  const keyB = 'plain-proxy-key-BBBB-2222';

  function sseFetch(body: string, status = 200, contentType = 'text/event-stream') {
    return (async () =>
      new Response(body, {
        status,
        headers: { 'content-type': contentType },
      })) as unknown as typeof globalThis.fetch;
  }

  it('a provider event whose type is the key never reaches a WARN line', async () => {
    const logger = createMemoryLogger();
    const stream = [
      `event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","usage":{"input_tokens":3,"output_tokens":0}}}\n\n`,
      `event: ${keyA}\ndata: {"type":"${keyA}"}\n\n`,
      `event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}\n\n`,
      `event: message_stop\ndata: {"type":"message_stop"}\n\n`,
    ].join('');
    const adapter = createAnthropic({ apiKey: keyA, fetch: sseFetch(stream), logger });
    const response = await adapter
      .stream({ model: 'anthropic:claude-sonnet-4-5', transcript: [userText('hi')], maxOutputTokens: 8 })
      .result();
    expect(response.finishReason).toBe('completed');
    expect(logger.entries.length).toBeGreaterThan(0);
    expect(JSON.stringify(logger.entries)).not.toContain(keyA);
    await adapter.close();
  });

  it("an error body echoing the key as its code or message, or another adapter's key, is redacted", async () => {
    const logger = createMemoryLogger();
    const events: CallEvent[] = [];
    const lines: string[] = [];
    const body = JSON.stringify({
      type: 'error',
      error: { type: keyA, message: `bad key ${keyA}; other ${keyB}` },
    });
    const sy = createSwitchyard({
      env: {},
      fetch: sseFetch(body, 400, 'application/json'),
      logger,
      observers: [
        { onEvent: (event) => void events.push(event) },
        createJsonLinesReporter({ write: (line) => lines.push(line) }),
      ],
      config: {
        builtins: false,
        adapters: {
          anthropic: { type: 'anthropic', api_key: keyA, max_retries: 0 },
          other: { type: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1', api_key: keyB },
        },
      },
    });
    const error = await sy
      .complete({ model: 'anthropic:claude-sonnet-4-5', transcript: [userText('hi')] })
      .catch((caught: unknown) => caught);
    const visible = visibleText({ error, logs: logger.entries, events, lines });
    expect(visible).toContain('[REDACTED]');
    expect(visible).not.toContain(keyA);
    expect(visible).not.toContain(keyB);
    await sy.close();
  });

  it('an openai-compatible host echoing its shapeless key in a stream error is redacted', async () => {
    const key = 'shapeless-host-key-0987654321';
    const adapter = createOpenAICompatible(
      { name: 'host', baseURL: 'http://127.0.0.1:9/v1' },
      {
        apiKey: key,
        fetch: sseFetch(`data: {"error":{"message":"invalid key ${key}","code":"${key}"}}\n\n`),
        maxRetries: 0,
      },
    );
    const error = await adapter
      .stream({ model: 'host:m', transcript: [userText('hi')], maxOutputTokens: 8 })
      .result()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(visibleText({ error })).not.toContain(key);
    await adapter.close();
  });
});
