/** The one pre-flight check, on every adapter, against the loopback emulator: nothing refused reaches the wire. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Adapter } from '../../core/adapter.ts';
import { type AdapterError, isAdapterError } from '../../core/errors/index.ts';
import { createMemoryLogger } from '../../core/logger.ts';
import type { ToolCallId } from '../../core/ids.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { type Item, type Part, systemText, userText } from '../../core/transcript.ts';
import { type Emulator, type EmulatorProtocolId, startEmulator } from '../../testing/emulator/index.ts';
import { createAnthropic } from '../anthropic/index.ts';
import { createGemini } from '../gemini/index.ts';
import { createOpenAI } from '../openai-chat/index.ts';
import { createOpenAICompatible, presets } from '../openai-compatible/index.ts';
import { createOpenAIResponses } from '../openai-responses/index.ts';
import type { AdapterOptions } from './options.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

type Factory = (options: AdapterOptions) => Adapter;
const factories: Record<string, { create: Factory; model: string; protocol: string }> = {
  anthropic: {
    create: (options) => createAnthropic({ ...options, baseURL: `${emulator.url}/v1` }),
    model: 'claude-sonnet-4-5',
    protocol: 'anthropic-messages',
  },
  openai: {
    create: (options) => createOpenAI({ ...options, baseURL: `${emulator.url}/v1` }),
    model: 'gpt-4o',
    protocol: 'openai-chat',
  },
  'openai-responses': {
    create: (options) => createOpenAIResponses({ ...options, baseURL: `${emulator.url}/v1` }),
    model: 'gpt-4o',
    protocol: 'openai-responses',
  },
  gemini: {
    create: (options) => createGemini({ ...options, baseURL: `${emulator.url}/v1beta` }),
    model: 'gemini-2.5-flash',
    protocol: 'gemini',
  },
  groq: {
    create: (options) => createOpenAICompatible(presets.groq, { ...options, baseURL: `${emulator.url}/v1` }),
    model: 'meta-llama/llama-4-scout-17b-16e-instruct',
    protocol: 'openai-chat',
  },
};

function adapterFor(name: string, options: AdapterOptions = {}): Adapter {
  return factories[name]!.create({ apiKey: 'test-key-0000', maxRetries: 0, ...options });
}

function request(name: string, extra: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return { model: factories[name]!.model, transcript: [userText('hi')], maxOutputTokens: 100, ...extra };
}

const image = (mimeType: string): Part => ({
  type: 'media',
  modality: 'image',
  mimeType,
  data: { type: 'base64', data: 'AAAA' },
});

/** Calls `complete`, expects a classified error and no request on the wire. */
async function refused(adapter: Adapter, call: CanonicalRequest): Promise<AdapterError> {
  const before = emulator.requests.length;
  const error = await adapter.complete(call).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(emulator.requests.length, 'nothing reached the wire').toBe(before);
  if (!isAdapterError(error)) throw new Error(`expected an AdapterError, got ${String(error)}`);
  return error;
}

describe('media types are checked before any HTTP call', () => {
  it.each(['openai', 'openai-responses', 'groq'])(
    '%s refuses an image/tiff image (OpenAI takes png, jpeg, gif, webp)',
    async (name) => {
      const transcript: Item[] = [
        { kind: 'user', parts: [{ type: 'text', text: 'look' }, image('image/tiff')] },
      ];
      const error = await refused(adapterFor(name), request(name, { transcript }));
      expect(error).toMatchObject({ errorClass: 'invalid_request', providerCode: 'unsupported_media_type' });
      expect(error.message).toContain(
        `${factories[name]!.model} does not take image type image/tiff (transcript[0].parts[1])`,
      );
      expect(error.message).toContain(name === 'groq' ? 'groq:' : 'openai:');
    },
  );

  it.each(['openai'])(
    '%s (Chat Completions) refuses a PDF given by URL before the call: it sends documents inline only, and never drops one',
    async (name) => {
      const pdf = {
        type: 'file' as const,
        mimeType: 'application/pdf',
        data: { type: 'uri' as const, uri: 'https://example.com/a.pdf' },
      };
      const transcript: Item[] = [{ kind: 'user', parts: [{ type: 'text', text: 'read' }, pdf] }];
      const error = await refused(adapterFor(name), request(name, { transcript }));
      expect(error).toMatchObject({ errorClass: 'invalid_request', providerCode: 'unsupported_media_type' });
      expect(error.message).toContain(
        'takes documents inline only (base64), not by URL (transcript[0].parts[1])',
      );
    },
  );

  it('gemini refuses an image/gif image (Gemini takes png, jpeg, webp, heic, heif)', async () => {
    const transcript: Item[] = [{ kind: 'user', parts: [image('image/gif')] }];
    const error = await refused(adapterFor('gemini'), request('gemini', { transcript }));
    expect(error).toMatchObject({ providerCode: 'unsupported_media_type' });
    expect(error.message).toMatch(/gemini: model gemini-2\.5-flash does not take image type image\/gif/);
  });

  it('anthropic refuses an image file of a type the Messages API does not take, inside a tool result too', async () => {
    const transcript: Item[] = [
      userText('go'),
      { kind: 'assistant', parts: [{ type: 'tool-call', id: 'c1' as ToolCallId, name: 'shot', input: {} }] },
      {
        kind: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId: 'c1' as ToolCallId,
            isError: false,
            output: { type: 'parts', parts: [image('image/bmp')] },
          },
        ],
      },
    ];
    const error = await refused(adapterFor('anthropic'), request('anthropic', { transcript }));
    expect(error.providerCode).toBe('unsupported_media_type');
    expect(error.message).toContain('image/bmp (transcript[2].parts[0].output.parts[0])');
  });

  it('openai refuses audio other than wav/mp3, and gemini takes flac', async () => {
    const flac: Part = {
      type: 'media',
      modality: 'audio',
      mimeType: 'audio/flac',
      data: { type: 'base64', data: 'AAAA' },
    };
    const openai = adapterFor('openai');
    const error = await refused(
      openai,
      request('openai', { model: 'gpt-4o-audio-preview', transcript: [{ kind: 'user', parts: [flac] }] }),
    );
    expect(error).toMatchObject({ providerCode: 'unsupported_media_type' });
    expect(error.message).toContain('audio type audio/flac');
    emulator.enqueue({ type: 'scripted', protocol: 'gemini', content: [{ type: 'text', text: 'heard' }] });
    const response = await adapterFor('gemini').complete(
      request('gemini', { transcript: [{ kind: 'user', parts: [flac] }] }),
    );
    expect(response.content).toEqual([expect.objectContaining({ type: 'text', text: 'heard' })]);
  });

  it('document types: a .docx file is refused by OpenAI Chat and Anthropic, text/markdown is taken by Anthropic', async () => {
    const docx: Part = {
      type: 'file',
      mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      data: { type: 'base64', data: 'AAAA' },
    };
    for (const name of ['openai', 'anthropic']) {
      const error = await refused(
        adapterFor(name),
        request(name, { transcript: [{ kind: 'user', parts: [docx] }] }),
      );
      expect(error.providerCode).toBe('unsupported_media_type');
      expect(error.message).toContain('document type application/vnd.openxmlformats');
    }
    const markdown: Part = {
      type: 'file',
      mimeType: 'text/markdown',
      data: { type: 'base64', data: 'IyBoaQ==' },
    };
    emulator.enqueue({
      type: 'scripted',
      protocol: 'anthropic-messages',
      content: [{ type: 'text', text: 'read' }],
    });
    const response = await adapterFor('anthropic').complete(
      request('anthropic', { transcript: [{ kind: 'user', parts: [markdown] }] }),
    );
    expect(response.finishReason).toBe('completed');
  });
});

describe('the output limit is checked before any HTTP call', () => {
  it.each(Object.keys(factories))(
    '%s refuses maxOutputTokens above the model limit, naming both',
    async (name) => {
      const adapter = adapterFor(name);
      const limit = adapter.capabilities(factories[name]!.model).maxOutputTokens;
      expect(limit).toBeGreaterThan(0);
      const error = await refused(adapter, request(name, { maxOutputTokens: limit + 1 }));
      expect(error).toMatchObject({
        errorClass: 'invalid_request',
        providerCode: 'max_output_tokens_exceeded',
      });
      expect(error.message).toContain(
        `takes at most ${limit} output tokens, got maxOutputTokens ${limit + 1}`,
      );
    },
  );

  it('an unknown model has no known limit: the provider decides', async () => {
    emulator.enqueue({ type: 'scripted', protocol: 'openai-chat', content: [{ type: 'text', text: 'ok' }] });
    const adapter = adapterFor('groq');
    expect(adapter.capabilities('some-new-model').maxOutputTokens).toBe(0);
    const response = await adapter.complete(
      request('groq', { model: 'some-new-model', maxOutputTokens: 1_000_000 }),
    );
    expect(response.finishReason).toBe('completed');
  });
});

describe('the context window is checked against the local estimate before any HTTP call', () => {
  it.each(Object.keys(factories))(
    '%s throws ContextOverflowError when the text is estimated far over the window',
    async (name) => {
      const adapter = adapterFor(name, { capabilities: { contextWindow: 1_000 } });
      const long = 'word '.repeat(5_000);
      const error = await refused(adapter, request(name, { transcript: [userText(long)] }));
      expect(error).toMatchObject({
        errorClass: 'context_overflow',
        providerCode: 'context_window_exceeded',
      });
      expect(error.message).toMatch(
        /has a context window of 1000 tokens; the input is estimated at \d+ tokens/,
      );
      expect(error.name).toBe('ContextOverflowError');
    },
  );

  it('an estimate within 1.5× of the window goes to the provider (estimate error is never a local overflow)', async () => {
    emulator.enqueue({
      type: 'scripted',
      protocol: 'anthropic-messages',
      content: [{ type: 'text', text: 'ok' }],
    });
    const adapter = adapterFor('anthropic', { capabilities: { contextWindow: 1_000 } });
    const estimate = adapter.estimateInputTokens({ transcript: [userText('word '.repeat(1_100))] });
    expect(estimate).toBeGreaterThan(1_000);
    expect(estimate).toBeLessThanOrEqual(1_500);
    const response = await adapter.complete(
      request('anthropic', { transcript: [userText('word '.repeat(1_100))] }),
    );
    expect(response.finishReason).toBe('completed');
  });

  it('media are left out of the estimate (their flat costs are guesses)', async () => {
    emulator.enqueue({
      type: 'scripted',
      protocol: 'anthropic-messages',
      content: [{ type: 'text', text: 'ok' }],
    });
    const adapter = adapterFor('anthropic', { capabilities: { contextWindow: 1_000 } });
    const images = Array.from({ length: 5 }, () => image('image/png'));
    expect(adapter.estimateInputTokens({ transcript: [{ kind: 'user', parts: images }] })).toBeGreaterThan(
      1_500,
    );
    const response = await adapter.complete(
      request('anthropic', { transcript: [{ kind: 'user', parts: images }] }),
    );
    expect(response.finishReason).toBe('completed');
  });
});

describe('system prompts and prompt caching', () => {
  it('a system prompt to a model without one is refused with the item path', async () => {
    const error = await refused(
      adapterFor('gemini'),
      request('gemini', { model: 'gemma-3-27b-it', transcript: [systemText('be brief'), userText('hi')] }),
    );
    expect(error).toMatchObject({ providerCode: 'unsupported_capability' });
    expect(error.message).toBe(
      'gemini: model gemma-3-27b-it does not support systemPrompt (transcript[0] (system))',
    );
  });

  it('a cache request on a model without prompt caching is dropped with one WARN, and the call goes on', async () => {
    const logger = createMemoryLogger();
    emulator.enqueue({ type: 'scripted', protocol: 'openai-chat', content: [{ type: 'text', text: 'ok' }] });
    const adapter = adapterFor('groq', { logger });
    const response = await adapter.complete(request('groq', { cache: { ttl: '5m' } }));
    expect(response.finishReason).toBe('completed');
    expect(logger.entries).toEqual([
      expect.objectContaining({
        message: 'prompt cache not used',
        fields: expect.objectContaining({
          adapter: 'groq',
          reason: expect.stringContaining('no prompt caching'),
        }),
      }),
    ]);
  });
});

describe('an effort without thinking (thinking: false)', () => {
  it.each(['openai', 'openai-responses'])(
    '%s: on a model that does not reason it is dropped with one WARN, not refused, and nothing reaches the wire',
    async (name) => {
      const logger = createMemoryLogger();
      emulator.enqueue({
        type: 'scripted',
        protocol: factories[name]!.protocol as EmulatorProtocolId,
        content: [{ type: 'text', text: 'ok' }],
      });
      const adapter = adapterFor(name, { logger });
      const response = await adapter.complete(
        request(name, { reasoning: { effort: 'low', thinking: false } }),
      );
      expect(response.finishReason).toBe('completed');
      const body = emulator.requests.at(-1)!.body as Record<string, unknown>;
      expect([body.reasoning_effort, body.reasoning]).toEqual([undefined, undefined]);
      expect(logger.entries).toEqual([
        expect.objectContaining({
          message: 'dropped the effort: the model does not reason',
          fields: expect.objectContaining({ model: 'gpt-4o', requested: 'low' }),
        }),
      ]);
    },
  );
});

describe('user capability overrides, on every adapter', () => {
  it.each(Object.keys(factories))(
    '%s applies `capabilities` then `models` globs over its own table',
    async (name) => {
      const model = factories[name]!.model;
      const adapter = adapterFor(name, {
        capabilities: { maxOutputTokens: 50 },
        models: { [`${model.slice(0, 4)}*`]: { tools: false } },
      });
      expect(adapter.capabilities(model)).toMatchObject({ maxOutputTokens: 50, tools: false });
      const error = await refused(adapter, request(name, { maxOutputTokens: 51 }));
      expect(error.providerCode).toBe('max_output_tokens_exceeded');
      const tools = [{ name: 'run', inputSchema: { type: 'object' } }];
      const noTools = await refused(adapter, request(name, { tools }));
      expect(noTools.message).toContain('does not support tools (tools)');
    },
  );

  it('an override can grant what the table denies (a deployment the table does not know)', async () => {
    emulator.enqueue({ type: 'scripted', protocol: 'gemini', content: [{ type: 'text', text: 'ok' }] });
    const adapter = adapterFor('gemini', { models: { 'gemma-*': { systemPrompt: true } } });
    const response = await adapter.complete(
      request('gemini', { model: 'gemma-3-27b-it', transcript: [systemText('be brief'), userText('hi')] }),
    );
    expect(response.finishReason).toBe('completed');
  });
});
