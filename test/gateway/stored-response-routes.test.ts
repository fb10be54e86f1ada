/**
 * The stored-Responses routes the official `openai` SDK calls besides create:
 * `responses.retrieve` (`GET /v1/responses/{id}`), `responses.delete` (`DELETE …`) and
 * `responses.inputItems.list` (`GET …/input_items`). A retrieved reply is the one create returned
 * (its body, or its stream's `response.completed` object); a deleted one is a 404 everywhere; and
 * another key's, an expired, an unstored or a made-up id is a 404 naming it, in OpenAI's shape.
 */
import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GatewayHarness, gatewayWithStore, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;
const digest = (key: string) => `sha256:${createHash('sha256').update(key).digest('hex')}`;
const client = (key: string) =>
  new OpenAI({ baseURL: `${harness.server.url}/v1`, apiKey: key, maxRetries: 0 });
let a: OpenAI;
let b: OpenAI;

beforeAll(async () => {
  harness = await startGatewayHarness({
    keys: [
      { name: 'a', key: digest('key-a') },
      { name: 'b', key: digest('key-b') },
    ],
  });
  a = client('key-a');
  b = client('key-b');
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

/** A stored reply of key a (the SDK's create, not streamed). */
async function created(
  text = 'Hello.',
  body: Partial<OpenAI.Responses.ResponseCreateParamsNonStreaming> = {},
) {
  harness.emulator.enqueue(scriptedText(text));
  return a.responses.create({ model: 'up-responses', input: 'Hi', ...body });
}

/** What a 404 of `call` says: its status and message (the SDK's error). */
async function refusal(call: Promise<unknown>) {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(OpenAI.APIError);
  const { status, error: body } = error as InstanceType<typeof OpenAI.APIError>;
  return { status, ...(body as { message: string; type: string; param: string | null }) };
}

const raw = (path: string, init: RequestInit = {}, key = 'key-a') =>
  fetch(`${harness.server.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}` } });

describe('retrieve', () => {
  it('a non-streamed reply is retrieved exactly as create returned it', async () => {
    const reply = await created('Retrieved later.', { max_output_tokens: 50 });
    const retrieved = await a.responses.retrieve(reply.id);
    expect(retrieved).toEqual(reply);
    expect(retrieved.output_text).toBe('Retrieved later.');
    // The body as sent, byte for byte (no field the gateway would write again differently).
    const text = await (await raw(`/v1/responses/${reply.id}`)).text();
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify({ ...reply, output_text: undefined })));
  });

  it('a streamed reply is retrieved as its response.completed event carried it', async () => {
    harness.emulator.enqueue({
      type: 'scripted',
      content: [
        { type: 'reasoning', text: 'Thinking.' },
        { type: 'text', text: 'Streamed.' },
      ],
      usage: { input: 4, output: 6 },
    });
    const stream = await a.responses.create({ model: 'up-responses', input: 'Hi', stream: true });
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) if (event.type === 'response.completed') completed = event.response;
    expect(completed?.status).toBe('completed');
    const retrieved = await a.responses.retrieve(completed!.id);
    const { output_text: _text, ...fields } = retrieved;
    expect(fields).toEqual(completed);
    expect(retrieved.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
  });

  it('stream=true (a background response’s events) is refused with a 400 naming stream', async () => {
    const reply = await created();
    const answer = await refusal(a.responses.retrieve(reply.id, { stream: true }));
    expect(answer).toMatchObject({ status: 400, param: 'stream', type: 'invalid_request_error' });
    expect(answer.message).toContain('background');
    // stream=false and unknown parameters are served.
    const served = await raw(
      `/v1/responses/${reply.id}?stream=false&include[]=x&starting_after=3&whatever=1`,
    );
    expect(served.status).toBe(200);
  });

  it('an unknown or malformed id is a 404 naming it, as previous_response_id is', async () => {
    for (const id of ['resp_0123456789abcdef', 'not-a-response-id']) {
      const answer = await refusal(a.responses.retrieve(id));
      expect(answer).toMatchObject({ status: 404, type: 'invalid_request_error' });
      expect(answer.message).toBe(`Response with id '${id}' not found.`);
    }
    const escaped = await raw('/v1/responses/resp_%ZZ');
    expect(escaped.status).toBe(404);
  });

  it('another key’s response is a 404 to retrieve, list and delete; it stays its owner’s', async () => {
    const reply = await created();
    expect((await refusal(b.responses.retrieve(reply.id))).status).toBe(404);
    expect((await refusal(b.responses.inputItems.list(reply.id))).status).toBe(404);
    expect((await refusal(b.responses.delete(reply.id))).status).toBe(404);
    expect((await a.responses.retrieve(reply.id)).id).toBe(reply.id);
  });

  it('a reply created with store: false is a 404', async () => {
    const reply = await created('Not kept.', { store: false });
    expect((reply as unknown as { store: boolean }).store).toBe(false);
    const answer = await refusal(a.responses.retrieve(reply.id));
    expect(answer.status).toBe(404);
    expect(answer.message).toContain(reply.id);
    expect((await refusal(a.responses.inputItems.list(reply.id))).status).toBe(404);
  });

  it('another method on a response path is a 405 naming GET and DELETE', async () => {
    const response = await raw('/v1/responses/resp_1', { method: 'PUT' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, DELETE');
  });
});

describe('delete', () => {
  it('answers OpenAI’s deletion object; the id is then a 404 to retrieve, input_items, previous_response_id, item_reference and delete', async () => {
    const reply = await created('Soon gone.');
    const message = reply.output.find((item) => item.type === 'message')!;
    const response = await raw(`/v1/responses/${reply.id}`, { method: 'DELETE' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: reply.id, object: 'response', deleted: true });
    expect((await refusal(a.responses.retrieve(reply.id))).status).toBe(404);
    expect((await refusal(a.responses.inputItems.list(reply.id))).status).toBe(404);
    expect((await refusal(a.responses.delete(reply.id))).status).toBe(404);
    const upstreamCalls = harness.emulator.requests.length;
    const continued = await refusal(
      a.responses.create({ model: 'up-responses', input: 'And?', previous_response_id: reply.id }),
    );
    expect(continued).toMatchObject({ status: 404, param: 'previous_response_id' });
    const referenced = await refusal(
      a.responses.create({
        model: 'up-responses',
        input: [
          { type: 'item_reference', id: message.id },
          { role: 'user', content: 'And?' },
        ],
      }),
    );
    expect(referenced.status).toBe(404);
    expect(referenced.message).toContain(message.id);
    expect(harness.emulator.requests).toHaveLength(upstreamCalls);
  });

  it('the SDK’s delete resolves with the deletion object; retrieve is then a 404', async () => {
    const reply = await created();
    await expect(a.responses.delete(reply.id)).resolves.toEqual({
      id: reply.id,
      object: 'response',
      deleted: true,
    });
    expect((await refusal(a.responses.retrieve(reply.id))).status).toBe(404);
  });
});

describe('input_items', () => {
  const input: OpenAI.Responses.ResponseInput = [
    { role: 'developer', content: 'Be brief.' },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Call f.' }] },
    { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}', id: 'fc_client' },
    { type: 'function_call_output', call_id: 'call_1', output: 'done' },
    { role: 'assistant', content: 'It is done.' },
    { role: 'user', content: [{ type: 'input_text', text: 'Thanks.' }] },
  ];
  const tools: OpenAI.Responses.Tool[] = [
    { type: 'function', name: 'f', parameters: { type: 'object', properties: {} }, strict: false },
  ];

  it('lists the request’s input newest first by default, each item with an id and its wire shape', async () => {
    const reply = await created('You are welcome.', { input, tools });
    const page = await a.responses.inputItems.list(reply.id);
    expect(page.data.map((item) => ('role' in item ? `${item.type}:${item.role}` : item.type))).toEqual([
      'message:user',
      'message:assistant',
      'function_call_output',
      'function_call',
      'message:user',
      'message:developer',
    ]);
    expect(page.has_more).toBe(false);
    const [thanks, done, output, call, , developer] = page.data as unknown as Array<Record<string, unknown>>;
    expect(developer).toMatchObject({
      type: 'message',
      role: 'developer',
      status: 'completed',
      content: [{ type: 'input_text', text: 'Be brief.' }],
    });
    expect(done).toMatchObject({ content: [{ type: 'output_text', text: 'It is done.', annotations: [] }] });
    expect(call).toMatchObject({ id: 'fc_client', call_id: 'call_1', name: 'f' });
    expect(output).toMatchObject({ type: 'function_call_output', call_id: 'call_1', output: 'done' });
    const ids = page.data.map((item) => item.id);
    expect(new Set(ids).size).toBe(6);
    expect(thanks!.id).toMatch(/^msg_/);
    // The same ids on every read.
    expect((await a.responses.inputItems.list(reply.id)).data.map((item) => item.id)).toEqual(ids);
  });

  it('pages by limit and after, in either order; the SDK’s auto-pagination walks them all', async () => {
    const reply = await created('Paged.', { input, tools });
    const ascending = (await a.responses.inputItems.list(reply.id, { order: 'asc', limit: 100 })).data;
    const ids = ascending.map((item) => item.id);
    expect(ascending[2]!.id).toBe('fc_client');
    const first = await a.responses.inputItems.list(reply.id, { order: 'asc', limit: 4 });
    expect(first.data.map((item) => item.id)).toEqual(ids.slice(0, 4));
    expect(first.has_more).toBe(true);
    const body = first.getPaginatedItems().length;
    expect(body).toBe(4);
    const second = await a.responses.inputItems.list(reply.id, { order: 'asc', limit: 4, after: ids[3]! });
    expect(second.data.map((item) => item.id)).toEqual(ids.slice(4));
    expect(second.has_more).toBe(false);
    const walked: string[] = [];
    for await (const item of a.responses.inputItems.list(reply.id, { limit: 2 })) walked.push(item.id);
    expect(walked).toEqual(ids.toReversed());
    const listed = (await (await raw(`/v1/responses/${reply.id}/input_items?limit=2&order=desc`)).json()) as {
      object: string;
      first_id: string;
      last_id: string;
      has_more: boolean;
    };
    expect(listed).toMatchObject({ object: 'list', first_id: ids[5], last_id: ids[4], has_more: true });
  });

  it('a string input is one user message with input_text', async () => {
    const reply = await created('Hi back.');
    const { data } = await a.responses.inputItems.list(reply.id);
    expect(data).toEqual([
      {
        id: expect.stringMatching(/^msg_[0-9a-f]+_in0$/) as string,
        type: 'message',
        role: 'user',
        status: 'completed',
        content: [{ type: 'input_text', text: 'Hi' }],
      },
    ]);
  });

  it('an inline image is listed without its bytes; a remote one keeps its URL', async () => {
    const pixel = `data:image/png;base64,${'A'.repeat(64)}`;
    const reply = await created('An image.', {
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is it?' },
            { type: 'input_image', image_url: pixel, detail: 'auto' },
            { type: 'input_image', image_url: 'https://example.com/cat.png', detail: 'auto' },
          ],
        },
      ],
    });
    const [message] = (await a.responses.inputItems.list(reply.id)).data as unknown as Array<{
      content: Array<Record<string, unknown>>;
    }>;
    expect(message!.content).toEqual([
      { type: 'input_text', text: 'What is it?' },
      { type: 'input_image', detail: 'auto' },
      { type: 'input_image', image_url: 'https://example.com/cat.png', detail: 'auto' },
    ]);
  });

  it('a bad limit, order or cursor is a 400 naming it', async () => {
    const reply = await created();
    for (const [query, param] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=2.5', 'limit'],
      ['order=up', 'order'],
      ['after=msg_nope', 'after'],
    ] as const) {
      const response = await raw(`/v1/responses/${reply.id}/input_items?${query}`);
      expect(response.status, query).toBe(400);
      const { error } = (await response.json()) as { error: { param: string; type: string } };
      expect(error).toMatchObject({ param, type: 'invalid_request_error' });
    }
  });
});

describe('expiry', () => {
  let short: GatewayHarness;
  beforeAll(async () => {
    short = await startGatewayHarness({ state_ttl_seconds: 0.3 });
  });
  afterAll(async () => {
    await short?.close();
  });

  it('a reply past the state TTL is a 404 to retrieve and input_items', async () => {
    const sdk = new OpenAI({ baseURL: `${short.server.url}/v1`, apiKey: 'none', maxRetries: 0 });
    short.emulator.enqueue(scriptedText('Brief.'));
    const reply = await sdk.responses.create({ model: 'up-responses', input: 'Hi' });
    expect((await sdk.responses.retrieve(reply.id)).id).toBe(reply.id);
    await new Promise((resolve) => setTimeout(resolve, 450));
    const answer = await refusal(sdk.responses.retrieve(reply.id));
    expect(answer.status).toBe(404);
    expect(answer.message).toContain(reply.id);
    expect((await refusal(sdk.responses.inputItems.list(reply.id))).status).toBe(404);
  });
});

describe('a reply the store could not read back', () => {
  it('one whose entry holds more object keys written with escapes than a parse takes is not stored: store: false, a WARN, and its id a 404 as any unstored reply’s', async () => {
    // Each call's arguments are within a parse's bound (100,000 escaped keys); the conversation holds both.
    const keys = JSON.stringify(
      Object.fromEntries(Array.from({ length: 51_000 }, (_, index) => [`"${index}`, 0])),
    );
    const input = [0, 1].flatMap((index) => [
      { type: 'function_call', call_id: `call_${index}`, name: 'f', arguments: keys },
      { type: 'function_call_output', call_id: `call_${index}`, output: 'done' },
    ]);
    const before = harness.logger.entries.length;
    const reply = await created('Read back?', {
      // Gemini 2.5 Flash: a context window (1M) that takes the ~600k tokens estimated.
      model: 'up-gemini',
      input: [{ role: 'user', content: 'Hi' }, ...input] as OpenAI.Responses.ResponseInput,
      tools: [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: false }],
    });
    expect((reply as { store?: boolean }).store).toBe(false);
    expect(
      harness.logger.entries
        .slice(before)
        .filter((entry) => entry.message === 'gateway: a response was not stored: it could not be read back'),
    ).toHaveLength(1);
    expect((await refusal(a.responses.retrieve(reply.id))).status).toBe(404);
  }, 30_000);
});

describe('a store that fails', () => {
  it('a streamed reply the store could not keep ends with response.completed saying store: false', async () => {
    const failing = {
      get: async () => undefined,
      put: async () => {
        throw new Error('store down');
      },
    };
    const gateway = gatewayWithStore(harness.emulator.url, failing);
    harness.emulator.enqueue(scriptedText('Paid for.'));
    const response = await gateway.app.request('/v1/responses', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'store-responses', input: 'Hi', stream: true }),
    });
    expect(response.status).toBe(200);
    const events = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { type: string; response?: { store: boolean } });
    const completed = events.find((event) => event.type === 'response.completed');
    expect(completed?.response?.store).toBe(false);
    expect(events.find((event) => event.type === 'response.created')?.response?.store).toBe(true);
    await gateway.switchyard.close();
  });
});
