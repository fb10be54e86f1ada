/** The emulator server: recording, routing by path suffix, the script queue and built-in endpoints. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicError, type Emulator, googleError, openaiError, startEmulator } from './index.ts';
import {
  anthropicBody,
  anthropicHeaders,
  geminiHeaders,
  openaiHeaders,
  parseSse,
  payloads,
  postJson,
} from './test-support.ts';

let emulator: Emulator;

beforeEach(async () => {
  emulator = await startEmulator();
});

afterEach(async () => {
  await emulator.close();
});

const chatBody = { model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'Hi' }] };

describe('server', () => {
  it('listens on a loopback port chosen by the system', () => {
    expect(emulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(emulator.url).not.toMatch(/:0$/);
  });

  it('records method, path, query, lower-cased headers, parsed body and protocol of every request', async () => {
    emulator.enqueue({ type: 'json', body: {} });
    await postJson(`${emulator.url}/v1/messages?beta=true`, anthropicBody(), {
      ...anthropicHeaders,
      'X-Custom': 'Yes',
    });
    expect(emulator.requests).toHaveLength(1);
    expect(emulator.requests[0]).toMatchObject({
      method: 'POST',
      path: '/v1/messages',
      query: { beta: 'true' },
      headers: { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01', 'x-custom': 'Yes' },
      body: anthropicBody(),
      protocol: 'anthropic-messages',
    });
  });

  it('records a body that is not JSON as its raw text', async () => {
    emulator.enqueue({ type: 'json', body: {} });
    await fetch(`${emulator.url}/upload`, { method: 'POST', body: 'plain words' });
    expect(emulator.requests[0]).toMatchObject({ body: 'plain words', protocol: undefined });
  });

  it('matches endpoints on the path suffix so base-URL prefixes work', async () => {
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'routed' }] });
    const response = await postJson(
      `${emulator.url}/openrouter/api/v1/chat/completions`,
      chatBody,
      openaiHeaders,
    );
    const body = (await response.json()) as {
      object: string;
      choices: Array<{ message: { content: string } }>;
    };
    expect(body.object).toBe('chat.completion');
    expect(body.choices[0]?.message.content).toBe('routed');
    expect(emulator.requests[0]?.protocol).toBe('openai-chat');
  });

  it('serves queued scripts first in first out, then the default', async () => {
    emulator.enqueue({ type: 'json', body: { order: 1 } });
    emulator.enqueue({ type: 'json', body: { order: 2 } });
    emulator.setDefault({ type: 'json', body: { order: 'default' } });
    const orders = [];
    for (let index = 0; index < 4; index++) {
      orders.push(
        (
          (await (await postJson(`${emulator.url}/v1/chat/completions`, chatBody, openaiHeaders)).json()) as {
            order: unknown;
          }
        ).order,
      );
    }
    expect(orders).toEqual([1, 2, 'default', 'default']);
  });

  it('answers 500 saying no script is queued when the queue is exhausted', async () => {
    emulator.enqueue({ type: 'json', body: {} });
    await postJson(`${emulator.url}/v1/chat/completions`, chatBody, openaiHeaders);
    const response = await postJson(`${emulator.url}/v1/chat/completions`, chatBody, openaiHeaders);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      error: { type: 'emulator_error', message: 'emulator: no script queued' },
    });
  });

  it('serves a json script with any status, headers and string body', async () => {
    emulator.enqueue({
      type: 'json',
      status: 503,
      body: 'upstream down',
      headers: { 'content-type': 'text/plain' },
    });
    const response = await postJson(`${emulator.url}/v1/chat/completions`, chatBody, openaiHeaders);
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toBe('text/plain');
    expect(await response.text()).toBe('upstream down');
  });

  it.each([[null], [[1, 2]], [7], [{ output: null }]])(
    'serves a json script whose body is %j as it is, on the Responses path too (it remembers only a response object)',
    async (body) => {
      emulator.enqueue({ type: 'json', body });
      const response = await postJson(
        `${emulator.url}/v1/responses`,
        { model: 'gpt-5-mini', input: 'Hi' },
        openaiHeaders,
      );
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(body);
    },
  );

  it('serves an sse script as raw frames', async () => {
    emulator.enqueue({
      type: 'sse',
      events: [
        { event: 'error', data: { type: 'error', error: { type: 'overloaded_error' } } },
        { data: 'plain' },
      ],
    });
    const response = await postJson(
      `${emulator.url}/v1/messages`,
      anthropicBody({ stream: true }),
      anthropicHeaders,
    );
    expect(await response.text()).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error"}}\n\ndata: plain\n\n',
    );
  });

  it('writes each line of multi-line sse data as its own data line', async () => {
    emulator.enqueue({ type: 'sse', events: [{ event: 'note', data: 'one\ntwo\r\nthree\rfour' }] });
    const response = await postJson(`${emulator.url}/v1/chat/completions`, chatBody, openaiHeaders);
    expect(await response.text()).toBe('event: note\ndata: one\ndata: two\ndata: three\ndata: four\n\n');
  });

  it('closes while a keep-alive connection is idle', async () => {
    emulator.enqueue({ type: 'json', body: {} });
    await (await postJson(`${emulator.url}/v1/chat/completions`, chatBody, openaiHeaders)).text();
    const started = Date.now();
    await emulator.close();
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('error builders', () => {
  it('produce the providers error shapes as json scripts', async () => {
    emulator.enqueue(anthropicError(529, 'overloaded_error', 'Overloaded'));
    emulator.enqueue(
      openaiError(429, 'Rate limit reached', {
        code: 'rate_limit_exceeded',
        headers: { 'retry-after': '2' },
      }),
    );
    emulator.enqueue(googleError(503, 'The model is overloaded.'));
    const first = await postJson(`${emulator.url}/v1/messages`, anthropicBody(), anthropicHeaders);
    expect(first.status).toBe(529);
    expect(await first.json()).toMatchObject({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
    const second = await postJson(`${emulator.url}/v1/chat/completions`, chatBody, openaiHeaders);
    expect(second.headers.get('retry-after')).toBe('2');
    expect(await second.json()).toEqual({
      error: {
        message: 'Rate limit reached',
        type: 'invalid_request_error',
        param: null,
        code: 'rate_limit_exceeded',
      },
    });
    const third = await postJson(
      `${emulator.url}/v1beta/models/gemini-2.5-flash:generateContent`,
      { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] },
      geminiHeaders,
    );
    expect(await third.json()).toEqual({
      error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' },
    });
  });
});

describe('built-in endpoints', () => {
  it('lists models in each provider shape without consuming a script', async () => {
    emulator.enqueue({ type: 'json', body: { untouched: true } });
    const anthropic = (await (
      await fetch(`${emulator.url}/v1/models`, { headers: anthropicHeaders })
    ).json()) as {
      data: Array<{ type: string }>;
      has_more: boolean;
    };
    expect(anthropic.has_more).toBe(false);
    expect(anthropic.data[0]?.type).toBe('model');
    const openai = (await (await fetch(`${emulator.url}/v1/models`, { headers: openaiHeaders })).json()) as {
      object: string;
      data: Array<{ object: string }>;
    };
    expect(openai.object).toBe('list');
    expect(openai.data[0]?.object).toBe('model');
    const gemini = (await (
      await fetch(`${emulator.url}/v1beta/models`, { headers: geminiHeaders })
    ).json()) as {
      models: Array<{ name: string }>;
    };
    expect(gemini.models[0]?.name).toMatch(/^models\//);
    expect(emulator.requests.map((request) => request.protocol)).toEqual([
      'anthropic-messages',
      'openai-chat',
      'gemini',
    ]);
    const scripted = await postJson(`${emulator.url}/v1/chat/completions`, chatBody, openaiHeaders);
    expect(await scripted.json()).toEqual({ untouched: true });
  });

  it('creates a Gemini cachedContents entry and records the request', async () => {
    const body = {
      model: 'models/gemini-2.5-flash',
      contents: [{ role: 'user', parts: [{ text: 'A long document.' }] }],
      ttl: '300s',
    };
    const before = Date.now();
    const response = await postJson(`${emulator.url}/v1beta/cachedContents`, body, geminiHeaders);
    const created = (await response.json()) as { name: string; model: string; expireTime: string };
    expect(created.name).toMatch(/^cachedContents\/[a-z0-9]+$/);
    expect(created.model).toBe('models/gemini-2.5-flash');
    const expiresIn = Date.parse(created.expireTime) - before;
    expect(expiresIn).toBeGreaterThan(299_000);
    expect(expiresIn).toBeLessThan(302_000);
    expect(emulator.requests[0]).toMatchObject({
      method: 'POST',
      path: '/v1beta/cachedContents',
      protocol: 'gemini',
      body,
    });
    const fetched = await fetch(`${emulator.url}/v1beta/${created.name}`, { headers: geminiHeaders });
    expect(await fetched.json()).toEqual(created);
  });

  it('refuses a cachedContents entry to an API key other than the one that created it', async () => {
    const body = {
      model: 'models/gemini-2.5-flash',
      contents: [{ role: 'user', parts: [{ text: 'Doc.' }] }],
    };
    const response = await postJson(`${emulator.url}/v1beta/cachedContents`, body, geminiHeaders);
    const { name } = (await response.json()) as { name: string };
    const other = { ...geminiHeaders, 'x-goog-api-key': 'another-project-key' };
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'hi' }] });
    const generate = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], cachedContent: name };
    const url = `${emulator.url}/v1beta/models/gemini-2.5-flash:generateContent`;
    expect((await postJson(url, generate, other)).status).toBe(403);
    expect((await fetch(`${emulator.url}/v1beta/${name}`, { method: 'DELETE', headers: other })).status).toBe(
      403,
    );
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'hi' }] });
    expect((await postJson(url, generate, geminiHeaders)).status).toBe(200);
  });
});

describe('scripted protocol inference', () => {
  it('uses the protocol named by the script on an unknown path', async () => {
    emulator.enqueue({ type: 'scripted', protocol: 'openai-chat', content: [{ type: 'text', text: 'hi' }] });
    const response = await fetch(`${emulator.url}/proxy/complete`, {
      method: 'POST',
      body: '{"stream":true}',
    });
    const frames = parseSse(await response.text());
    expect(frames.at(-1)?.data).toBe('[DONE]');
    expect(payloads(frames)[0]).toMatchObject({ object: 'chat.completion.chunk' });
  });

  it('answers 500 when neither the script nor the path names an api', async () => {
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'hi' }] });
    const response = await fetch(`${emulator.url}/proxy/complete`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(500);
    expect(await response.text()).toContain('emulator: cannot infer the protocol of /proxy/complete');
  });
});

describe('token-count endpoints', () => {
  it('answer the three count endpoints in their protocol’s shape without taking a queued script, recorded', async () => {
    emulator.enqueue({ type: 'json', body: { kept: true }, enforce: false });
    const body = { model: 'm', messages: [{ role: 'user', content: 'Hello' }] };
    const tokens = Math.ceil(JSON.stringify(body).length / 4);
    const post = (path: string) =>
      fetch(`${emulator.url}${path}`, { method: 'POST', body: JSON.stringify(body) }).then((response) =>
        response.json(),
      );
    expect(await post('/v1/messages/count_tokens')).toEqual({ input_tokens: tokens });
    expect(await post('/v1beta/models/gemini-2.5-flash:countTokens')).toEqual({ totalTokens: tokens });
    expect(await post('/v1/responses/input_tokens')).toEqual({
      object: 'response.input_tokens',
      input_tokens: tokens,
    });
    expect(emulator.requests.map((request) => request.protocol)).toEqual([
      'anthropic-messages',
      'gemini',
      'openai-responses',
    ]);
    // The queued script is still there for the next generation request.
    expect(await post('/v1/chat/completions?x')).toEqual({ kept: true });
  });

  it('setCountScript answers them with its script until it is unset', async () => {
    emulator.setCountScript(anthropicError(503, 'overloaded_error', 'Overloaded'));
    const post = () => fetch(`${emulator.url}/v1/messages/count_tokens`, { method: 'POST', body: '{}' });
    expect((await post()).status).toBe(503);
    emulator.setCountScript(undefined);
    expect(await (await post()).json()).toEqual({ input_tokens: 1 });
  });
});
