/**
 * The request id a client's SDK reads: the OpenAI SDK reads `x-request-id`, the Anthropic SDK
 * `request-id` (into a message's `_request_id` and an error's `requestID`); the gateway sends both
 * to Anthropic clients, the one it logs, on replies and on errors.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import WebSocket from 'ws';
import { protocolError } from 'switchyard-ai/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorScript } from '../../src/testing/emulator/types.ts';
import { type GatewayHarness, startGatewayHarness, upstreams } from './harness.ts';

let harness: GatewayHarness;
beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(() => harness.close());

const answer = { type: 'scripted', content: [{ type: 'text', text: 'Hi.' }] } as EmulatorScript;
const logged = () => harness.accessLog.at(-1)!.requestId;

describe('request ids the SDKs read', () => {
  it('Anthropic SDK: a message’s _request_id and an error’s requestID are the logged request id', async () => {
    const client = new Anthropic({ baseURL: harness.server.url, apiKey: 'k', maxRetries: 0 });
    const ask = () =>
      client.messages.create({
        model: upstreams['openai-chat'].alias,
        max_tokens: 32,
        messages: [{ role: 'user', content: 'Hi' }],
      });
    harness.emulator.enqueue(answer);
    const message = await ask();
    expect(message._request_id).toBe(logged());
    harness.emulator.enqueue(protocolError('openai-chat', 'server_error'));
    const failure = (await ask().catch((error: unknown) => error)) as InstanceType<typeof Anthropic.APIError>;
    expect(failure).toBeInstanceOf(Anthropic.APIError);
    expect(failure.requestID).toBe(logged());
  });

  it('OpenAI SDK: a completion’s _request_id is the logged request id', async () => {
    const client = new OpenAI({ baseURL: `${harness.server.url}/v1`, apiKey: 'k', maxRetries: 0 });
    harness.emulator.enqueue(answer);
    const completion = await client.chat.completions.create({
      model: upstreams['anthropic-messages'].alias,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(completion._request_id).toBe(logged());
  });
});

describe('one request id per request', () => {
  it('Anthropic SDK: a token count, a model and the model list carry the logged request id', async () => {
    const client = new Anthropic({ baseURL: harness.server.url, apiKey: 'k', maxRetries: 0 });
    const alias = upstreams['openai-chat'].alias;
    const count = await client.messages.countTokens({
      model: alias,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(count._request_id).toBe(logged());
    const model = await client.models.retrieve(alias);
    expect(model._request_id).toBe(logged());
    const page = await client.models.list().withResponse();
    expect(page.request_id).toBe(logged());
  });

  it('an Anthropic error body’s request_id is the request-id header and the logged id', async () => {
    for (const headers of [{ 'x-request-id': 'client-given-1' }, {}] as Array<Record<string, string>>) {
      const response = await harness.post('/v1/messages', '{}', {
        'x-api-key': 'k',
        'anthropic-version': '2023-06-01',
        ...headers,
      });
      const body = (await response.json()) as { request_id: string };
      expect(response.status).toBe(400);
      expect(body.request_id).toBe(response.headers.get('request-id'));
      expect(body.request_id).toBe(logged());
    }
    expect(harness.accessLog.at(-2)!.requestId).toBe('client-given-1');
  });

  const nativeIds = (text: string) => [
    ...new Set([...text.matchAll(/"requestId":"([^"]+)"/g)].map((m) => m[1])),
  ];
  const native = (extra: Record<string, unknown> = {}) => ({
    model: upstreams['openai-chat'].alias,
    transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
    ...extra,
  });

  it('POST /switchyard/v1/stream: the events, x-request-id and the log name one id — the body’s requestId, else the header’s', async () => {
    for (const [extra, expected] of [
      [{}, 'header-id'],
      [{ requestId: 'body-id' }, 'body-id'],
    ] as const) {
      harness.emulator.enqueue(answer);
      const response = await harness.post('/switchyard/v1/stream', native(extra), {
        'x-request-id': 'header-id',
      });
      const text = await response.text();
      expect(nativeIds(text)).toEqual([expected]);
      expect(response.headers.get('x-request-id')).toBe(expected);
      expect(logged()).toBe(expected);
    }
  });

  it('the WebSocket: a request’s events and its log line name one id — its requestId, else a generated one', async () => {
    const socket = new WebSocket(`${harness.server.url.replace('http', 'ws')}/switchyard/v1/ws`);
    const frames: Array<{ id: string; type: string }> = [];
    let text = '';
    socket.on('message', (data) => {
      text += String(data);
      frames.push(JSON.parse(String(data)) as { id: string; type: string });
    });
    await new Promise((resolve) => socket.once('open', resolve));
    for (const [id, extra] of [
      ['a', {}],
      ['b', { requestId: 'socket-given' }],
    ] as const) {
      text = '';
      harness.emulator.enqueue(answer);
      socket.send(JSON.stringify({ type: 'request', id, request: native(extra) }));
      while (!frames.some((frame) => frame.id === id && frame.type === 'done'))
        await new Promise((resolve) => setTimeout(resolve, 10));
      const ids = nativeIds(text);
      expect(ids).toHaveLength(1);
      if (id === 'b') expect(ids).toEqual(['socket-given']);
      for (let waited = 0; waited < 20 && logged() !== ids[0]; waited++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(logged()).toBe(ids[0]);
    }
    socket.close();
  });
});
