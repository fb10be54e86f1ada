import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMemoryLogger } from '../../core/logger.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { catalog as openaiCatalog } from '../catalog/openai.generated.ts';
import { createCapabilityResolver, matchesGlob } from '../openai-chat/capabilities.ts';
import { openaiQuirks } from '../openai-chat/quirks.ts';
import { textOf, userRequest } from '../openai-chat/test-support.ts';
import { estimateInputTokens } from '../openai-chat/tokens.ts';
import { defaultQuirks, mergeQuirks, parseQuirks } from '../openai-chat/quirks.ts';
import { createOpenAICompatible, parseHostConfig, presetNames, presets } from './index.ts';

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator.close();
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('quirks as JSON data', () => {
  it('validates a partial quirk object and completes it from the defaults', () => {
    const quirks = parseQuirks({
      baseURL: 'https://llm.example/v1',
      maxTokensField: 'max_completion_tokens',
    });
    expect(quirks).toEqual({
      ...defaultQuirks,
      baseURL: 'https://llm.example/v1',
      maxTokensField: 'max_completion_tokens',
    });
  });

  it('names every invalid field, unknown keys included', () => {
    const invalid = { maxTokensField: 'max_output', streamOptionz: true, models: { x: { tools: 'no' } } };
    expect(() => parseQuirks(invalid)).toThrowError(TypeError);
    const message = (() => {
      try {
        parseQuirks(invalid);
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toContain('maxTokensField: Invalid option');
    expect(message).toContain('models.x.tools: Invalid input: expected boolean');
    expect(message).toContain('Unrecognized key: "streamOptionz"');
  });

  it('round-trips every preset through JSON', () => {
    for (const name of presetNames) {
      const json = JSON.parse(JSON.stringify({ name, quirks: presets[name].quirks }));
      expect(parseHostConfig(json), name).toEqual({ name, quirks: presets[name].quirks });
      expect(parseQuirks(presets[name].quirks), name).toEqual(
        mergeQuirks(defaultQuirks, presets[name].quirks),
      );
    }
  });

  it('defines a host in JSON on top of a preset', () => {
    const config = parseHostConfig({
      name: 'groq-eu',
      extends: 'groq',
      baseURL: 'https://eu.groq.example/openai/v1',
      apiKeyEnv: 'GROQ_EU_KEY',
      quirks: { streamOptions: false },
      models: { 'llama-3.1-8b*': { tools: false } },
    });
    expect(config.quirks).toMatchObject({ maxTokensField: 'max_completion_tokens', streamOptions: false });
    vi.stubEnv('GROQ_EU_KEY', 'eu-key');
    const adapter = createOpenAICompatible(config);
    expect(adapter.name).toBe('groq-eu');
    expect(adapter.capabilities('llama-3.1-8b-instant').tools).toBe(false);
    expect(adapter.capabilities('meta-llama/llama-4-scout-17b').images).toBe(true);
  });

  it('a host that extends a preset under another name keeps the preset catalog and quirks', () => {
    const preset = createOpenAICompatible(presets.groq, { apiKey: 'k' });
    const model = 'llama-3.3-70b-versatile';
    const known = preset.capabilities(model);
    expect(known.contextWindow).toBeGreaterThan(0);
    const fromJson = createOpenAICompatible(parseHostConfig({ name: 'groq-eu', extends: 'groq' }), {
      apiKey: 'k',
    });
    const fromCode = createOpenAICompatible(
      { name: 'groq-eu', extends: 'groq', baseURL: 'https://eu.groq.example/openai/v1' },
      { apiKey: 'k' },
    );
    for (const adapter of [fromJson, fromCode]) {
      expect(adapter.name).toBe('groq-eu');
      expect(adapter.capabilities(model)).toMatchObject({
        contextWindow: known.contextWindow,
        maxOutputTokens: known.maxOutputTokens,
      });
    }
    // Without `extends`, a host of another name has no catalog: its limits are unknown (0).
    const plain = createOpenAICompatible(
      { name: 'groq-eu', baseURL: 'https://eu.groq.example/openai/v1' },
      { apiKey: 'k' },
    );
    expect(plain.capabilities(model).contextWindow).toBe(0);
  });

  it('refuses a host that extends an unknown preset, naming the presets', () => {
    expect(() =>
      createOpenAICompatible({ name: 'x', extends: 'nope' as never, baseURL: 'https://x.example/v1' }),
    ).toThrowError(/extends must name a preset \(openrouter, groq/);
  });

  it('rejects keys and bad names in JSON host definitions', () => {
    expect(() => parseHostConfig({ name: 'x', apiKey: 'sk-inline' })).toThrowError(/apiKey/);
    expect(() => parseHostConfig({ name: 'bad name' })).toThrowError(/name/);
    expect(() => parseHostConfig({ name: 'x', extends: 'nope' })).toThrowError(/extends/);
  });
});

describe('createOpenAICompatible', () => {
  it('names the adapter after the preset and speaks openai-chat', () => {
    const names = presetNames.map((name) => {
      const adapter = createOpenAICompatible(presets[name], { apiKey: 'k' });
      expect(adapter.protocol).toBe('openai-chat');
      return adapter.name;
    });
    expect(names).toEqual(presetNames);
  });

  it('needs no key for local servers and sends no authorization header then', async () => {
    vi.stubEnv('VLLM_API_KEY', '');
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'local' }], allowNoAuth: true });
    const response = await createOpenAICompatible(presets.vllm, { baseURL: `${emulator.url}/v1` }).complete(
      userRequest('x', { model: 'vllm:m' }),
    );
    expect(textOf(response)).toBe('local');
    expect(emulator.requests.at(-1)?.headers).not.toHaveProperty('authorization');
  });

  it('prefers the option key over the config key over the environment', async () => {
    vi.stubEnv('HOST_KEY', 'from-env');
    const host = {
      name: 'host',
      baseURL: `${emulator.url}/v1`,
      apiKeyEnv: 'HOST_KEY',
      quirks: { apiKeyRequired: true },
    };
    for (const [adapter, expected] of [
      [createOpenAICompatible(host), 'Bearer from-env'],
      [createOpenAICompatible({ ...host, apiKey: 'from-config' }), 'Bearer from-config'],
      [
        createOpenAICompatible({ ...host, apiKey: 'from-config' }, { apiKey: 'from-option' }),
        'Bearer from-option',
      ],
    ] as const) {
      emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
      await adapter.complete(userRequest('x', { model: 'host:m' }));
      expect(emulator.requests.at(-1)?.headers.authorization).toBe(expected);
    }
  });

  it("one host's baseURL and key variable never become another host's defaults", () => {
    const before = structuredClone(defaultQuirks);
    createOpenAICompatible({ name: 'first', baseURL: 'https://first.example/v1', apiKeyEnv: 'FIRST_KEY' });
    expect(defaultQuirks).toEqual(before);
    // A later host without a base URL must not inherit the first one's (its key would go there).
    expect(() => createOpenAICompatible({ name: 'second' })).toThrowError(/needs a baseURL/);
  });

  it('refuses a host without a base URL, or with a name that would break canonical ids', () => {
    expect(() => createOpenAICompatible({ name: 'nowhere' })).toThrowError(/needs a baseURL/);
    expect(() => createOpenAICompatible({ name: 'my:host', baseURL: 'http://x.test' })).toThrowError(
      /colons/,
    );
  });

  it('lists models with canonical ids', async () => {
    const models = await createOpenAICompatible(presets.groq, {
      apiKey: 'k',
      baseURL: `${emulator.url}/v1`,
    }).listModels();
    expect(models.map((model) => model.id)).toEqual([
      'groq:gpt-4.1-nano-2025-04-14',
      'groq:gpt-5-mini-2025-08-07',
    ]);
  });

  it('drops past tool calls with a WARN for a model without tool support', async () => {
    const logger = createMemoryLogger();
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
    const perplexity = createOpenAICompatible(presets.perplexity, {
      apiKey: 'k',
      baseURL: `${emulator.url}/v1`,
      logger,
    });
    await perplexity.complete({
      model: 'perplexity:sonar',
      maxOutputTokens: 5,
      transcript: [
        { kind: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
        { kind: 'assistant', parts: [{ type: 'tool-call', id: 'tu_1' as never, name: 'w', input: {} }] },
        {
          kind: 'tool',
          parts: [
            {
              type: 'tool-result',
              callId: 'tu_1' as never,
              output: { type: 'text', text: '21C' },
              isError: false,
            },
          ],
        },
        { kind: 'user', parts: [{ type: 'text', text: 'Thanks' }] },
      ],
    });
    expect(emulator.requests.at(-1)?.body).toMatchObject({
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'user', content: 'Thanks' },
      ],
    });
    expect(logger.entries.map((entry) => entry.fields.reason)).toEqual([
      'the model has no tool support',
      'the model has no tool support',
    ]);
  });
});

describe('capabilities', () => {
  it('matches model globs on the whole name', () => {
    expect(matchesGlob('gpt-4o*', 'gpt-4o-mini')).toBe(true);
    expect(matchesGlob('gpt-4', 'gpt-4o')).toBe(false);
    expect(matchesGlob('*vision*', 'moonshot-v1-8k-vision-preview')).toBe(true);
    expect(matchesGlob('a.b', 'axb')).toBe(false);
  });

  it('declares OpenAI model families honestly', () => {
    // As the OpenAI adapter serves them: its rows, with the models.dev rows' limits.
    const openai = createCapabilityResolver(openaiQuirks, { catalog: openaiCatalog });
    expect(openai('gpt-4o-2024-08-06')).toMatchObject({
      images: true,
      reasoning: false,
      contextWindow: 128_000,
    });
    expect(openai('gpt-4.1-mini')).toMatchObject({
      images: true,
      contextWindow: 1_047_576,
      maxOutputTokens: 32_768,
    });
    expect(openai('gpt-5-mini')).toMatchObject({ reasoning: true, contextWindow: 400_000 });
    expect(openai('gpt-5-chat-latest')).toMatchObject({ reasoning: false });
    expect(openai('o3-mini')).toMatchObject({ reasoning: true, images: false });
    expect(openai('o4-mini')).toMatchObject({ reasoning: true, images: true });
    expect(openai('gpt-3.5-turbo')).toMatchObject({
      images: false,
      structuredOutput: false,
      maxOutputTokens: 4_096,
    });
    expect(openai('gpt-4o-audio-preview')).toMatchObject({ audio: true, images: false });
  });

  it('applies user overrides after the host table, and hides structured output where the host has none', () => {
    const resolve = createCapabilityResolver(mergeQuirks(defaultQuirks, { structuredOutput: 'none' }), {
      capabilities: { images: true, structuredOutput: true },
      models: { 'tiny-*': { tools: false, images: false } },
    });
    expect(resolve('big-model')).toMatchObject({ images: true, tools: true, structuredOutput: false });
    expect(resolve('tiny-1b')).toMatchObject({ images: false, tools: false });
  });
});

describe('estimateInputTokens', () => {
  it('counts about four characters per token plus framing', () => {
    const text = 'word '.repeat(400);
    const estimate = estimateInputTokens({ transcript: userRequest(text).transcript });
    expect(estimate).toBeGreaterThanOrEqual(500);
    expect(estimate).toBeLessThanOrEqual(520);
    const withTool = estimateInputTokens({
      transcript: userRequest(text).transcript,
      tools: [{ name: 'weather', description: 'Current weather', inputSchema: { type: 'object' } }],
    });
    expect(withTool).toBeGreaterThan(estimate);
  });
});
