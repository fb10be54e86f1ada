/**
 * Vertex's publishers on the wire: each model goes to its publisher's endpoint in its protocol
 * (`publishers.ts`) — Gemini and Claude at their publisher paths, Mistral AI at
 * `publishers/mistralai/models/{m}:rawPredict` with a Chat Completions body, the MaaS open models at
 * the project's OpenAI-compatible `endpoints/openapi/chat/completions` named `{publisher}/{model}`
 * — and a model of a publisher the adapter does not serve, or a name that could step out of its
 * path segment, is refused before any request (never sent to `publishers/google`).
 */
import { describe, expect, it } from 'vitest';
import { isInvalidRequestError } from '../../core/errors/guards.ts';
import { silentLogger } from '../../core/logger.ts';
import { provenanceFields } from '../common/projection.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { userText } from '../../core/transcript.ts';
import { createVertexDefinition } from './definition.ts';
import { createVertex } from './index.ts';
import type { VertexOptions } from './options.ts';
import { estimateInputTokens } from './tokens.ts';

const endpoint = 'https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5';

/**
 * A fetch that records each request's URL, JSON body and headers and answers 418 (nothing is
 * parsed); the adapter has a project and an OAuth token unless `options` say otherwise.
 */
function wire(
  options: VertexOptions = {
    project: 'p',
    location: 'us-east5',
    getAccessToken: async () => 'ya29.publishers-test',
  },
) {
  const calls: Array<{ url: string; body: Record<string, unknown>; headers: Headers }> = [];
  const fetch = (async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({
      url: String(url),
      body: JSON.parse(String(init?.body ?? '{}')) as Record<string, unknown>,
      headers: new Headers(init?.headers),
    });
    return new Response('{"error":{"code":418,"message":"no","status":"UNKNOWN"}}', { status: 418 });
  }) as typeof globalThis.fetch;
  const adapter = createVertex({ ...options, env: {}, fetch, maxRetries: 0, logger: silentLogger });
  return { calls, adapter };
}

const request = (model: string, extra: Partial<CanonicalRequest> = {}): CanonicalRequest => ({
  model: `vertex:${model}`,
  transcript: [userText('Hi')],
  maxOutputTokens: 64,
  ...extra,
});

/** One complete() and one stream() of `model`: the two requests the wire saw. */
async function sent(model: string, extra: Partial<CanonicalRequest> = {}, options?: VertexOptions) {
  const { calls, adapter } = wire(options);
  await adapter.complete(request(model, extra)).catch(() => undefined);
  try {
    for await (const _event of adapter.stream(request(model, extra)));
  } catch {
    // The 418 ends the stream; only the request matters here.
  }
  await adapter.close();
  return calls;
}

describe('Vertex publishers: each model at its publisher’s endpoint, in its protocol', () => {
  it.each([
    ['meta/llama-3.3-70b-instruct-maas', 'meta/llama-3.3-70b-instruct-maas'],
    ['llama-4-maverick-17b-128e-instruct-maas', 'meta/llama-4-maverick-17b-128e-instruct-maas'],
    ['deepseek-ai/deepseek-r1-0528-maas', 'deepseek-ai/deepseek-r1-0528-maas'],
    ['qwen/qwen3-235b-a22b-instruct-2507-maas', 'qwen/qwen3-235b-a22b-instruct-2507-maas'],
    ['gpt-oss-120b-maas', 'openai/gpt-oss-120b-maas'],
  ])(
    'MaaS %s: the OpenAI-compatible endpoint, model %s in a Chat Completions body',
    async (model, bodyModel) => {
      const [whole, streamed] = await sent(model);
      expect(whole!.url).toBe(`${endpoint}/endpoints/openapi/chat/completions`);
      expect(whole!.body).toEqual({
        model: bodyModel,
        messages: [{ role: 'user', content: 'Hi' }],
        max_tokens: 64,
      });
      expect(streamed!.url).toBe(`${endpoint}/endpoints/openapi/chat/completions`);
      expect(streamed!.body).toMatchObject({ model: bodyModel, stream: true });
      expect(streamed!.body).not.toHaveProperty('stream_options');
    },
  );

  it.each([
    ['mistral-medium-3', 'mistral-medium-3', 'mistral-medium-3'],
    ['mistralai/codestral-2', 'codestral-2', 'codestral-2'],
    ['mistral-large@2407', 'mistral-large@2407', 'mistral-large'],
  ])(
    'Mistral AI %s: publishers/mistralai rawPredict / streamRawPredict, a Chat Completions body',
    async (model, pathModel, bodyModel) => {
      const [whole, streamed] = await sent(model);
      expect(whole!.url).toBe(`${endpoint}/publishers/mistralai/models/${pathModel}:rawPredict`);
      expect(whole!.body).toEqual({
        model: bodyModel,
        messages: [{ role: 'user', content: 'Hi' }],
        max_tokens: 64,
      });
      expect(streamed!.url).toBe(`${endpoint}/publishers/mistralai/models/${pathModel}:streamRawPredict`);
      expect(streamed!.body).toMatchObject({ model: bodyModel, stream: true });
    },
  );

  it('Gemini and Claude as before, bare or named with their publisher', async () => {
    for (const model of ['gemini-2.5-flash', 'google/gemini-2.5-flash']) {
      const [whole, streamed] = await sent(model);
      expect(whole!.url).toBe(`${endpoint}/publishers/google/models/gemini-2.5-flash:generateContent`);
      expect(whole!.body).toHaveProperty('contents');
      expect(streamed!.url).toBe(
        `${endpoint}/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
      );
    }
    for (const model of ['claude-sonnet-4-5@20250929', 'anthropic/claude-sonnet-4-5@20250929']) {
      const [whole] = await sent(model);
      expect(whole!.url).toBe(
        `${endpoint}/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict`,
      );
      expect(whole!.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16' });
      expect(whole!.body).not.toHaveProperty('model');
    }
  });

  it('providerOptions.vertex.body is merged into a Chat Completions body as into the others', async () => {
    const providerOptions = { vertex: { body: { seed: 7, labels: { team: 'x' } } } };
    const [whole] = await sent('meta/llama-3.3-70b-instruct-maas', { providerOptions });
    expect(whole!.body).toMatchObject({ seed: 7, labels: { team: 'x' } });
    expect(whole!.body).not.toHaveProperty('body');
  });

  it('each publisher’s parts are tagged with it (vertex/meta, vertex/mistralai)', () => {
    const definition = createVertexDefinition({ env: {} });
    expect(provenanceFields(definition, 'meta/llama-3.3-70b-instruct-maas')).toEqual({
      provenance: 'vertex/meta',
    });
    expect(provenanceFields(definition, 'llama-3.3-70b-instruct-maas')).toEqual({
      provenance: 'vertex/meta',
    });
    expect(provenanceFields(definition, 'mistral-medium-3')).toEqual({ provenance: 'vertex/mistralai' });
  });
});

describe('Vertex models that cannot be served: refused before any request', () => {
  it.each(['ai21/jamba-1.5-large@001', 'cohere/command-r', 'publishers/gemini-2.5-flash'])(
    '%s: a publisher the adapter does not serve is an invalid request naming the model and what is served',
    async (model) => {
      const calls = await sent(model);
      expect(calls).toEqual([]);
      const { adapter } = wire();
      const error = await adapter.complete(request(model)).catch((caught: unknown) => caught);
      expect(isInvalidRequestError(error), String(error)).toBe(true);
      expect(error).toMatchObject({ providerCode: 'unsupported_model' });
      const message = (error as Error).message;
      expect(message).toContain(model);
      expect(message).toMatch(/google .*anthropic .*mistralai .*meta, deepseek-ai, qwen, openai/);
      await adapter.close();
    },
  );

  it.each([
    'meta/../../endpoints/other',
    'meta/llama/../../x',
    'meta/.hidden',
    'Meta/llama-3.3-70b-instruct-maas',
    '../publishers/google/models/x',
    'meta/llama-3.3:generateContent',
    'meta/llama?x=1',
    'meta/llama#x',
    'meta/llama%2F..%2Fx',
    '/meta/llama',
    'meta/',
  ])('%s: a name that could leave its path segment is invalid_model_name, nothing sent', async (model) => {
    const calls = await sent(model);
    expect(calls).toEqual([]);
    const { adapter } = wire();
    const error = await adapter.complete(request(model)).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorClass: 'invalid_request', providerCode: 'invalid_model_name' });
    await adapter.close();
  });
});

describe('Vertex express mode (an API key, no project): Gemini only', () => {
  const express: VertexOptions = { apiKey: 'AIzaExpressModeKey0001' };

  it('a Gemini model goes to the express endpoint with the key', async () => {
    const [whole, streamed] = await sent('gemini-2.5-flash', {}, express);
    expect(whole!.url).toBe(
      'https://aiplatform.googleapis.com/v1/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    expect(whole!.headers.get('x-goog-api-key')).toBe('AIzaExpressModeKey0001');
    expect(streamed!.url).toBe(
      'https://aiplatform.googleapis.com/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
    expect((await sent('google/gemini-2.5-flash', {}, express)).length).toBe(2);
  });

  it.each([
    ['meta/llama-3.3-70b-instruct-maas', 'meta'],
    ['llama-3.3-70b-instruct-maas', 'meta'],
    ['gpt-oss-120b-maas', 'openai'],
    ['mistral-medium-3', 'mistralai'],
    ['claude-sonnet-4-5@20250929', 'anthropic'],
    ['anthropic/claude-sonnet-4-5@20250929', 'anthropic'],
  ])(
    '%s (publisher %s): an invalid request naming express mode, before anything is sent (complete and stream)',
    async (model, publisher) => {
      const { calls, adapter } = wire(express);
      const errors = [await adapter.complete(request(model)).catch((error: unknown) => error)];
      try {
        for await (const _event of adapter.stream(request(model)));
      } catch (error) {
        errors.push(error);
      }
      await adapter.close();
      expect(calls).toEqual([]);
      expect(errors).toHaveLength(2);
      for (const error of errors) {
        expect(isInvalidRequestError(error), String(error)).toBe(true);
        expect(error).toMatchObject({ providerCode: 'unsupported_model' });
        const message = (error as Error).message;
        expect(message).toContain(model);
        expect(message).toContain(`publisher ${publisher}`);
        expect(message).toContain('express mode');
        expect(message).not.toContain('AIzaExpressModeKey0001');
      }
    },
  );

  it('the adapter says which models express mode cannot serve (the router skips them), and only in express mode', async () => {
    const { adapter } = wire(express);
    const reason = adapter.unservedReason?.('vertex:claude-sonnet-4-5@20250929');
    expect(reason).toContain('(publisher anthropic) is not served in express mode');
    expect(adapter.unservedReason?.('mistral-medium-3')).toContain('publisher mistralai');
    expect(adapter.unservedReason?.('vertex:gemini-2.5-flash')).toBeUndefined();
    expect(adapter.unservedReason?.('google/gemini-2.5-flash')).toBeUndefined();
    // A publisher the table lacks is left to the call, which names what is served.
    expect(adapter.unservedReason?.('acme/model-1')).toBeUndefined();
    await adapter.close();
    for (const options of [
      { ...express, project: 'p' },
      { ...express, baseURL: 'https://proxy.example/v1' },
    ]) {
      const other = wire(options).adapter;
      expect(other.unservedReason?.('claude-sonnet-4-5@20250929')).toBeUndefined();
      await other.close();
    }
  });

  it('a base URL of the user’s (a proxy, a project endpoint) is not express mode: routed as the URL says', async () => {
    const baseURL = 'https://vertex-proxy.example/v1/projects/p/locations/us-east5';
    const [whole] = await sent('claude-sonnet-4-5@20250929', {}, { ...express, baseURL });
    expect(whole!.url).toBe(`${baseURL}/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict`);
  });

  it('with a project the key is not express mode: partner models are routed as before', async () => {
    const [whole] = await sent(
      'meta/llama-3.3-70b-instruct-maas',
      {},
      { ...express, project: 'p', location: 'us-east5' },
    );
    expect(whole!.url).toBe(`${endpoint}/endpoints/openapi/chat/completions`);
  });
});

describe('the token estimate by publisher', () => {
  const request = {
    transcript: [
      userText('Tokenizers differ: 東京の天気は？ Ünïcödé, numbers 1234567, code `x => x * 2`.'.repeat(20)),
    ],
  };
  it("reads the model's publisher from a model id whatever the adapter is named (the router asks with `provider:name`)", () => {
    for (const model of ['meta/llama-3.3-70b-instruct-maas', 'claude-sonnet-4-5', 'gemini-2.5-pro']) {
      const bare = estimateInputTokens({ ...request, model });
      expect(estimateInputTokens({ ...request, model: `vertex:${model}` }), model).toBe(bare);
      expect(estimateInputTokens({ ...request, model: `vertex-eu:${model}` }), model).toBe(bare);
    }
    // Each publisher by its own calibration: the three differ on this text.
    const counts = new Set(
      ['meta/llama-3.3-70b-instruct-maas', 'claude-sonnet-4-5', 'gemini-2.5-pro'].map((model) =>
        estimateInputTokens({ ...request, model: `eu:${model}` }),
      ),
    );
    expect(counts.size).toBe(3);
  });
});
