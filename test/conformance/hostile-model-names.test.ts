/**
 * The hostile model-name matrix (#18 point 1): every adapter × every hostile name, checked on the
 * wire. A wire model name either matches its provider's grammar or is refused with an
 * `InvalidRequestError` (`invalid_model_name`) before any request — no URL, no body, no key sent —
 * and a valid name put in a URL is encoded per path segment. The front door (globs, provider
 * prefixes, `resolve`) refuses the same names.
 */
import { describe, expect, it } from 'vitest';
import type { Adapter } from '../../src/core/adapter.ts';
import { isInvalidRequestError } from '../../src/core/errors/guards.ts';
import { userText } from '../../src/core/transcript.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { encodePathSegments, modelNameProblem } from '../../src/core/model-name.ts';
import { createAnthropic } from '../../src/providers/anthropic/index.ts';
import { createGemini } from '../../src/providers/gemini/index.ts';
import { createOpenAI } from '../../src/providers/openai-chat/index.ts';
import { createAzureOpenAI } from '../../src/providers/openai-compatible/azure.ts';
import { createOpenAICompatible, presets } from '../../src/providers/openai-compatible/index.ts';
import {
  createAzureOpenAIResponses,
  createOpenAIResponses,
  createOpenResponses,
  createXaiResponses,
} from '../../src/providers/openai-responses/index.ts';
import { createVertex } from '../../src/providers/vertex/index.ts';
import { createSwitchyard } from '../../src/switchyard.ts';

const key = 'sk-hostile-model-name-test-key-0123456789';

/** A fetch that records every request and answers nothing useful (a request reaching it is the failure). */
function wire() {
  const calls: string[] = [];
  const fetch = (async (url: string | URL | Request) => {
    calls.push(String(url instanceof Request ? url.url : url));
    return new Response('{"error":{"message":"no"}}', { status: 418 });
  }) as typeof globalThis.fetch;
  return { calls, fetch };
}

type Factory = (fetch: typeof globalThis.fetch) => Adapter;
const common = (fetch: typeof globalThis.fetch) => ({
  apiKey: key,
  fetch,
  logger: silentLogger,
  maxRetries: 0,
});

/** Every adapter a user can create: the native ones, every Chat Completions preset, every Responses host, Azure. */
const adapters: Array<[string, Factory]> = [
  ['anthropic', (fetch) => createAnthropic(common(fetch))],
  ['openai', (fetch) => createOpenAI(common(fetch))],
  ['openai-responses', (fetch) => createOpenAIResponses(common(fetch))],
  ['xai-responses', (fetch) => createXaiResponses(common(fetch))],
  ['open-responses', (fetch) => createOpenResponses({ ...common(fetch), baseURL: 'http://127.0.0.1:9/v1' })],
  ['gemini', (fetch) => createGemini(common(fetch))],
  // Vertex: publisher paths and the OpenAI-compatible endpoint; `publisher/model` names take one slash.
  ['vertex', (fetch) => createVertex({ ...common(fetch), project: 'p', location: 'us-east5', env: {} })],
  [
    'azure chat (deployment URLs)',
    (fetch) => createAzureOpenAI({ ...common(fetch), resourceName: 'res', deploymentUrls: true }),
  ],
  ['azure responses', (fetch) => createAzureOpenAIResponses({ ...common(fetch), resourceName: 'res' })],
  ...Object.keys(presets).map((name): [string, Factory] => [
    `openai-compatible ${name}`,
    (fetch) =>
      createOpenAICompatible(
        { name, extends: name as keyof typeof presets, baseURL: 'http://127.0.0.1:9/v1' },
        common(fetch),
      ),
  ]),
];

/** Names that must never reach any provider: traversal, URL syntax, encodings, controls, size, look-alikes. */
const hostileNames: Array<[string, string]> = [
  ['path traversal into another endpoint', 'gemini-2.5-flash/../../cachedContents#'],
  ['leading ..', '../../v1/files'],
  ['a . segment', 'models/./gemini-2.5-flash'],
  ['a trailing ..', 'meta-llama/..'],
  ['an absolute path', '/v1/files'],
  ['an empty segment', 'a//b'],
  ['a trailing slash', 'gpt-4o/'],
  ['a full URL', 'https://evil.example/steal'],
  ['a query', 'gpt-4o?key=x'],
  ['a fragment', 'gpt-4o#x'],
  ['percent-encoded slash', 'gpt-4o%2F..%2Ffiles'],
  ['percent-encoded dots', '%2e%2e'],
  ['a backslash', 'gpt-4o\\..\\files'],
  ['a NUL', 'gpt-4o\u0000'],
  ['CR LF header injection', 'gpt-4o\r\nx-injected: 1'],
  ['a tab', 'gpt\t4o'],
  ['DEL', 'gpt-4o\u007f'],
  ['a space', 'gpt 4o'],
  ['leading whitespace', ' gpt-4o'],
  ['10 kB', `gpt-${'x'.repeat(10_240)}`],
  ['257 characters', 'a'.repeat(257)],
  ['Cyrillic look-alike', 'gpt-4\u043e'],
  ['hyphen look-alike (U+2010)', 'gpt\u20104o'],
  ['fullwidth slash', 'a\uff0f..\uff0fb'],
  ['division slash', 'a\u2215..\u2215b'],
  ['zero-width space', 'gpt-4o\u200b'],
  ['right-to-left override', 'gpt-4o\u202e'],
  ['an emoji', 'gpt-🙂'],
  ['a quote', 'gpt-4o"'],
  ['angle brackets', '<script>'],
  ['a semicolon', 'gpt-4o;rm'],
];

function expectRefused(error: unknown, name: string): void {
  expect(isInvalidRequestError(error), String(error)).toBe(true);
  expect((error as { providerCode?: string }).providerCode).toBe('invalid_model_name');
  // The message quotes the name escaped and cut: no control character, never 10 kB.
  const message = (error as Error).message;
  // eslint-disable-next-line no-control-regex
  expect(message).not.toMatch(/[\u0000-\u001f\u007f]/);
  expect(message.length).toBeLessThan(600);
  expect(message).not.toContain(key);
  if (name.length > 200) expect(message).not.toContain(name);
}

describe('hostile model names × every adapter: refused before the wire', () => {
  describe.each(adapters)('%s', (_label, create) => {
    it.each(hostileNames)('%s: complete() and stream() send nothing', async (_kind, name) => {
      const { calls, fetch } = wire();
      const adapter = create(fetch);
      try {
        const model = `${adapter.name}:${name}`;
        const completed = await adapter
          .complete({ model, transcript: [userText('hi')], maxOutputTokens: 16 })
          .then(
            () => undefined,
            (error: unknown) => error,
          );
        expectRefused(completed, name);
        const stream = adapter.stream({ model, transcript: [userText('hi')], maxOutputTokens: 16 });
        const events: unknown[] = [];
        let streamed: unknown;
        try {
          for await (const event of stream) events.push(event);
        } catch (error) {
          streamed = error;
        }
        expectRefused(streamed, name);
        expect((events.at(-1) as { type?: string } | undefined)?.type).toBe('finish');
        // The finish event never carries the hostile name back.
        expect(JSON.stringify(events)).not.toContain(JSON.stringify(name).slice(1, -1));
        expect(calls).toEqual([]);
      } finally {
        await adapter.close();
      }
    });
  });
});

describe('valid names: accepted, and a name in a URL is encoded per path segment', () => {
  it('gemini: tuned models keep their collection, each segment encoded', async () => {
    const { calls, fetch } = wire();
    const adapter = createGemini(common(fetch));
    await adapter
      .complete({ model: 'gemini:tunedModels/my-model-1', transcript: [userText('hi')], maxOutputTokens: 8 })
      .catch(() => undefined);
    expect(calls).toEqual([
      'https://generativelanguage.googleapis.com/v1beta/tunedModels/my-model-1:generateContent',
    ]);
    await adapter.close();
  });

  it('azure deployment URLs: the deployment name is one encoded segment', async () => {
    const { calls, fetch } = wire();
    const adapter = createAzureOpenAI({ ...common(fetch), resourceName: 'res', deploymentUrls: true });
    await adapter
      .complete({ model: 'azure:my_gpt-4o.v2', transcript: [userText('hi')], maxOutputTokens: 8 })
      .catch(() => undefined);
    expect(calls[0]).toBe(
      'https://res.openai.azure.com/openai/deployments/my_gpt-4o.v2/chat/completions?api-version=2024-10-21',
    );
    await adapter.close();
  });

  it.each([
    ['openrouter', 'anthropic/claude-3.5-haiku'],
    ['together', 'meta-llama/Llama-3.3-70B-Instruct-Turbo'],
    ['fireworks', 'accounts/fireworks/models/llama-v3p1-8b-instruct'],
    ['ollama', 'hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M'],
    ['openrouter', 'openai/gpt-4o:free'],
  ])('%s takes %s', async (host, name) => {
    const { calls, fetch } = wire();
    const adapter = createOpenAICompatible(
      { name: host, extends: host as keyof typeof presets, baseURL: 'http://127.0.0.1:9/v1' },
      common(fetch),
    );
    await adapter
      .complete({ model: `${host}:${name}`, transcript: [userText('hi')], maxOutputTokens: 8 })
      .catch(() => undefined);
    expect(calls).toEqual(['http://127.0.0.1:9/v1/chat/completions']);
    await adapter.close();
  });

  it('encodePathSegments encodes inside segments, never the separators', () => {
    expect(encodePathSegments('tunedModels/a b#?')).toBe('tunedModels/a%20b%23%3F');
  });

  it('every bundled catalog name passes its grammar', async () => {
    const { bundledCatalog } = await import('../../src/providers/catalog/index.ts');
    const protocolOf = (provider: string) =>
      provider === 'anthropic' ? 'anthropic-messages' : provider === 'gemini' ? 'gemini' : 'openai-chat';
    for (const [provider, catalog] of Object.entries(bundledCatalog)) {
      for (const name of Object.keys(catalog))
        expect(modelNameProblem(name, protocolOf(provider)), name).toBeUndefined();
    }
  });
});

describe('hostile model names at the front door: globs, provider prefixes and resolve refuse them', () => {
  const env = {
    GEMINI_API_KEY: 'gemini-front-door-key-0123456789',
    OPENROUTER_API_KEY: 'openrouter-front-door-key-0123456789',
    ANTHROPIC_API_KEY: 'anthropic-front-door-key-0123456789',
  };

  it.each(hostileNames)('%s', async (_kind, name) => {
    const { calls, fetch } = wire();
    const sy = createSwitchyard({
      env,
      fetch,
      logger: silentLogger,
      config: { models: { 'gemini:gemini-*': {}, 'anthropic:claude-*': {} } },
    });
    const requests = [
      `gemini:${name}`,
      `openrouter:${name}`,
      `anthropic:${name}`,
      `gemini-${name}`,
      `claude-${name}`,
    ];
    for (const model of requests) {
      const error = await sy.complete({ model, transcript: [userText('hi')] }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(isInvalidRequestError(error), `${model}: ${String(error)}`).toBe(true);
    }
    expect(calls).toEqual([]);
    await sy.close();
  });

  it('the example of the issue: a glob-served name steering the key to cachedContents is refused', async () => {
    const { calls, fetch } = wire();
    const sy = createSwitchyard({
      env,
      fetch,
      logger: silentLogger,
      config: { models: { 'gemini:gemini-*': {} } },
    });
    let error: unknown;
    try {
      sy.resolve('gemini-2.5-flash/../../cachedContents#');
    } catch (caught) {
      error = caught;
    }
    expectRefused(error, 'x');
    const completed = await sy
      .complete({ model: 'gemini:gemini-2.5-flash/../../cachedContents#', transcript: [userText('hi')] })
      .catch((caught: unknown) => caught);
    expectRefused(completed, 'x');
    expect(calls).toEqual([]);
    await sy.close();
  });

  it('a config whose wire_name breaks the grammar is refused at creation, naming the key', () => {
    expect(() =>
      createSwitchyard({
        env,
        logger: silentLogger,
        config: { models: { 'gemini:mine': { wire_name: '../../cachedContents' } } },
      }),
    ).toThrow(/models\.gemini:mine\.wire_name: invalid model name/);
  });
});
