/**
 * OpenAI's Responses WebSocket mode at `/v1/responses`, through the official SDK's own client
 * (`ResponsesWS`) over a real socket, with an emulator upstream of each protocol: the events the
 * HTTP stream carries, a tool round trip continued by `previous_response_id` with `store: false`
 * (the connection's own state), failures before content (the `error` event) and after it
 * (`response.failed`), and a client's close cancelling the upstream call.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import WebSocket from 'ws';
import type { ResponsesServerEvent } from 'openai/resources/responses/responses';
import { ResponsesWS } from 'openai/resources/responses/ws';
import { protocolError } from 'switchyard-ai/testing';
import type { ScriptedContent } from '../../src/testing/emulator/types.ts';
import { type GatewayHarness, startGatewayHarness, type UpstreamProtocol, upstreams } from './harness.ts';

let harness: GatewayHarness;
const digest = (key: string) => `sha256:${createHash('sha256').update(key).digest('hex')}`;

beforeAll(async () => {
  harness = await startGatewayHarness({
    body_limit_bytes: 65_536,
    keys: [
      { name: 'team', key: digest('team-key') },
      { name: 'chat-only', key: digest('chat-key'), models: ['up-chat'] },
    ],
  });
});
beforeEach(() => {
  harness.emulator.clear();
  harness.accessLog.length = 0;
});
afterAll(async () => {
  await harness?.close();
});

type Event = ResponsesServerEvent;
const terminal = new Set(['response.completed', 'response.failed', 'response.incomplete', 'error']);

/** A `ResponsesWS` of the official SDK on the gateway, under `key`: each turn's events, up to its last. */
function openSession(key = 'team-key') {
  const client = new OpenAI({ baseURL: `${harness.server.url}/v1`, apiKey: key, maxRetries: 0 });
  const ws = new ResponsesWS(client);
  const events: Event[] = [];
  const errors: Error[] = [];
  let wake: (() => void) | undefined;
  ws.on('event', (event) => {
    events.push(event);
    wake?.();
  });
  // The SDK raises each `error` event here too (without a listener, as an unhandled rejection).
  ws.on('error', (error) => errors.push(error));
  let isClosed = false;
  const closed = new Promise<number>((resolve) =>
    ws.on('close', (code) => {
      isClosed = true;
      wake?.();
      resolve(code);
    }),
  );
  /** Waits for `test` to hold; throws when the socket closes first. */
  const until = async (test: () => boolean) => {
    while (!test()) {
      if (isClosed) throw new Error('the socket closed');
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  /** Sends a `response.create` and gives its events, up to the one that ends it. */
  const turn = async (params: Record<string, unknown>): Promise<Event[]> => {
    const from = events.length;
    ws.send({ type: 'response.create', ...params } as Parameters<ResponsesWS['send']>[0]);
    await until(() => events.slice(from).some((event) => terminal.has(event.type)));
    return events.slice(from);
  };
  return { ws, events, errors, until, turn, closed };
}

const scripted = (content: ScriptedContent[], extra: Record<string, unknown> = {}) => ({
  type: 'scripted' as const,
  content,
  usage: { input: 5, output: 3 },
  ...extra,
});

const textOf = (events: Event[]) =>
  events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('');

const last = <T extends Event['type']>(events: Event[], type: T) =>
  events.findLast((event) => event.type === type) as Extract<Event, { type: T }> | undefined;

const weatherTool = {
  type: 'function',
  name: 'get_weather',
  strict: false,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe.each(Object.keys(upstreams) as UpstreamProtocol[])('a %s upstream', (upstream) => {
  const model = upstreams[upstream].alias;

  it('streams the HTTP stream’s events, one JSON text message each; logged per response.create', async () => {
    const session = openSession();
    harness.emulator.enqueue(scripted([{ type: 'text', text: 'Hello over the socket.' }], { chunkSize: 6 }));
    const events = await session.turn({ model, input: 'Hi' });
    expect(events[0]!.type).toBe('response.created');
    expect(events.filter((event) => event.type === 'response.output_text.delta').length).toBeGreaterThan(1);
    expect(textOf(events)).toBe('Hello over the socket.');
    const completed = last(events, 'response.completed')!;
    expect(completed.response).toMatchObject({ status: 'completed', model });
    expect(session.errors).toEqual([]);
    expect(harness.accessLog.at(-1)).toMatchObject({
      protocol: 'openai-responses',
      path: '/v1/responses',
      key: 'team',
      status: 200,
      stream: true,
    });
    session.ws.close();
  });

  it('a tool round trip: the second turn names the first by previous_response_id with store: false (the connection’s own state)', async () => {
    const session = openSession();
    const signed = upstream !== 'openai-chat';
    harness.emulator.enqueue(
      scripted([
        ...(signed
          ? [{ type: 'reasoning' as const, text: 'Look it up.', signature: 'sig-on-the-socket' }]
          : []),
        { type: 'tool-call', name: 'get_weather', input: { city: 'Paris' } },
      ]),
    );
    const first = await session.turn({
      model,
      store: false,
      input: 'Weather in Paris?',
      tools: [weatherTool],
      include: ['reasoning.encrypted_content'],
    });
    const done = last(first, 'response.completed')!.response;
    expect(done).toMatchObject({ store: false });
    const call = done.output.find((item) => item.type === 'function_call')!;
    expect(call).toMatchObject({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    harness.emulator.enqueue(scripted([{ type: 'text', text: 'Sunny in Paris.' }]));
    const second = await session.turn({
      model,
      store: false,
      previous_response_id: done.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny, 24 C' }],
      tools: [weatherTool],
    });
    expect(textOf(second)).toBe('Sunny in Paris.');
    expect(last(second, 'response.completed')!.response.previous_response_id).toBe(done.id);
    // The upstream got the whole conversation: the first turn's question and call, then the result.
    const sent = JSON.stringify(harness.emulator.requests.at(-1)!.body);
    expect(sent).toContain('Weather in Paris?');
    expect(sent).toContain('get_weather');
    expect(sent).toContain('sunny, 24 C');
    // The reasoning's signature went back to the provider that made it.
    if (signed) expect(sent).toContain('sig-on-the-socket');
    expect(session.errors).toEqual([]);
    // Not stored: over HTTP (or another connection) the id is not found.
    const http = await harness.post(
      '/v1/responses',
      { model, previous_response_id: done.id, input: 'And tomorrow?' },
      { authorization: 'Bearer team-key' },
    );
    expect(http.status).toBe(404);
    session.ws.close();
  });

  it('an upstream failure before content is the documented error event; the connection serves the next response', async () => {
    const session = openSession();
    harness.emulator.enqueue(protocolError(upstream, 'auth'));
    const failed = await session.turn({ model, input: 'Hi' });
    expect(failed.map((event) => event.type)).toEqual(['error']);
    expect(failed[0]).toMatchObject({
      status: 502,
      error: { type: 'server_error', message: expect.stringMatching(/credentials/) as unknown },
    });
    expect(JSON.stringify(session.events)).not.toContain('upstream-secret-key');
    expect(JSON.stringify(session.events)).not.toContain('team-key');
    expect(session.errors).toHaveLength(1);
    harness.emulator.enqueue(scripted([{ type: 'text', text: 'Back again.' }]));
    expect(textOf(await session.turn({ model, input: 'Hi again' }))).toBe('Back again.');
    session.ws.close();
  });

  it('an upstream cut mid-stream ends the response with response.failed, never response.completed', async () => {
    const session = openSession();
    harness.emulator.enqueue(
      scripted([{ type: 'text', text: 'x'.repeat(160) }], {
        chunkSize: 8,
        fault: { disconnectAfterEvents: 8 },
      }),
    );
    const events = await session.turn({ model, input: 'Long answer' });
    expect(textOf(events).length).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({ type: 'response.failed', response: { status: 'failed' } });
    expect(events.some((event) => event.type === 'response.completed')).toBe(false);
    expect(harness.accessLog.at(-1)).toMatchObject({ protocol: 'openai-responses', status: 502 });
    session.ws.close();
  });

  it('the client closing the socket mid-response cancels the upstream call (logged 499)', async () => {
    const session = openSession();
    harness.emulator.enqueue(
      scripted([{ type: 'text', text: 'y'.repeat(160) }], { chunkSize: 8, fault: { stallAfterEvents: 6 } }),
    );
    const served = harness.nextServed();
    session.ws.send({ type: 'response.create', model, input: 'Long answer' });
    await session.until(() => session.events.some((event) => event.type === 'response.output_text.delta'));
    session.ws.close();
    expect(await served).toMatchObject({ complete: false });
    while (harness.accessLog.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(harness.accessLog.at(-1)).toMatchObject({ protocol: 'openai-responses', status: 499 });
  });
});

it('previous_response_id also continues from a response the gateway stored (POST /v1/responses, or store: true on the socket: a DELETE reaches it)', async () => {
  harness.emulator.enqueue(scripted([{ type: 'text', text: 'Stored answer.' }]));
  const stored = (await (
    await harness.post(
      '/v1/responses',
      { model: 'up-chat', input: 'Remember the word teal.' },
      { authorization: 'Bearer team-key' },
    )
  ).json()) as { id: string };
  const session = openSession();
  harness.emulator.enqueue(scripted([{ type: 'text', text: 'Teal.' }]));
  const events = await session.turn({
    model: 'up-chat',
    previous_response_id: stored.id,
    input: 'Which word?',
  });
  expect(textOf(events)).toBe('Teal.');
  const sent = JSON.stringify(harness.emulator.requests.at(-1)!.body);
  expect(sent).toContain('Remember the word teal.');
  expect(sent).toContain('Stored answer.');
  // A stored response of this connection is read from the store: once deleted, it is not found.
  harness.emulator.enqueue(scripted([{ type: 'text', text: 'Stored on the socket.' }]));
  const onSocket = last(
    await session.turn({ model: 'up-chat', input: 'Hi' }),
    'response.completed',
  )!.response;
  expect(onSocket).toMatchObject({ store: true });
  const deleted = await fetch(`${harness.server.url}/v1/responses/${onSocket.id}`, {
    method: 'DELETE',
    headers: { authorization: 'Bearer team-key' },
  });
  expect(deleted.status).toBe(200);
  const gone = await session.turn({ model: 'up-chat', previous_response_id: onSocket.id, input: 'Hi' });
  expect(gone[0]).toMatchObject({
    type: 'error',
    status: 404,
    error: { code: 'previous_response_not_found' },
  });
  // An id neither stored nor this connection's: the error event names it.
  const missing = await session.turn({ model: 'up-chat', previous_response_id: 'resp_unknown', input: 'Hi' });
  expect(missing[0]).toMatchObject({
    type: 'error',
    status: 404,
    error: {
      type: 'invalid_request_error',
      code: 'previous_response_not_found',
      param: 'previous_response_id',
      message: "Previous response with id 'resp_unknown' not found.",
    },
  });
  session.ws.close();
});

it('the key’s models apply per response.create: another model is a 403 error event, never sent upstream', async () => {
  const session = openSession('chat-key');
  const before = harness.emulator.requests.length;
  const refused = await session.turn({ model: 'up-anthropic', input: 'Hi' });
  expect(refused[0]).toMatchObject({ type: 'error', status: 403 });
  expect(harness.emulator.requests.length).toBe(before);
  expect(harness.accessLog.at(-1)).toMatchObject({
    key: 'chat-only',
    status: 403,
    protocol: 'openai-responses',
  });
  harness.emulator.enqueue(scripted([{ type: 'text', text: 'Allowed.' }]));
  expect(textOf(await session.turn({ model: 'up-chat', input: 'Hi' }))).toBe('Allowed.');
  session.ws.close();
});

/** Upstream requests the emulator got since `from` (its request count then). */
const upstreamSince = (from: number) => harness.emulator.requests.length - from;

/** A plain `ws` socket on `/v1/responses` (no SDK): the messages it gets as JSON, and its close code. */
async function rawSocket(key = 'team-key') {
  const socket = new WebSocket(`${harness.server.url.replace('http', 'ws')}/v1/responses`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const messages: Array<Record<string, unknown>> = [];
  let wake: (() => void) | undefined;
  socket.on('message', (data) => {
    messages.push(JSON.parse(String(data)) as Record<string, unknown>);
    wake?.();
  });
  let isClosed = false;
  const closed = new Promise<number>((resolve) =>
    socket.on('close', (code) => {
      isClosed = true;
      wake?.();
      resolve(code);
    }),
  );
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  /** The next message after the `count` already received; throws when the socket closes first. */
  const next = async (count = messages.length) => {
    while (messages.length <= count) {
      if (isClosed) throw new Error('the socket closed');
      await new Promise<void>((resolve) => (wake = resolve));
    }
    return messages[count]!;
  };
  return { socket, messages, closed, next };
}

it('a frame that is no JSON object is answered with an error event; the connection serves the next response', async () => {
  const { socket, messages, next } = await rawSocket();
  const answers = [];
  for (const frame of ['not json', '[1, 2]', '"response.create"']) {
    const count = messages.length;
    socket.send(frame);
    answers.push(await next(count));
  }
  let count = messages.length;
  socket.send(Buffer.from([0xff, 0xfe, 0x7b]), { binary: true });
  answers.push(await next(count));
  expect(answers.map((answer) => (answer.error as { message: string }).message)).toEqual([
    'the message is not valid JSON text',
    'every message is a JSON object',
    'every message is a JSON object',
    'the message is not valid JSON text',
  ]);
  for (const answer of answers)
    expect(answer).toMatchObject({ type: 'error', status: 400, error: { type: 'invalid_request_error' } });
  harness.emulator.enqueue(scripted([{ type: 'text', text: 'Still here.' }]));
  count = messages.length;
  socket.send(JSON.stringify({ type: 'response.create', model: 'up-chat', input: 'Hi' }));
  while (messages.at(-1)?.type !== 'response.completed') await next();
  expect(messages[count]).toMatchObject({ type: 'response.created' });
  socket.close();
});

it('a text frame that is not UTF-8 closes the socket with 1007, one over the body limit with 1009 (logged as the 400 and 413)', async () => {
  const from = harness.emulator.requests.length;
  const broken = await rawSocket();
  broken.socket.send(Buffer.from([0x7b, 0xff, 0x7d]), { binary: false });
  expect(await broken.closed).toBe(1007);
  expect(harness.accessLog.at(-1)).toMatchObject({
    protocol: 'openai-responses',
    path: '/v1/responses',
    key: 'team',
    status: 400,
    closeCode: 1007,
  });
  const large = await rawSocket();
  large.socket.send(JSON.stringify({ type: 'response.create', model: 'up-chat', input: 'x'.repeat(70_000) }));
  expect(await large.closed).toBe(1009);
  expect(harness.accessLog.at(-1)).toMatchObject({
    protocol: 'openai-responses',
    status: 413,
    closeCode: 1009,
  });
  expect(upstreamSince(from)).toBe(0);
});

it('response.steer, other client events, a stream_id and background are refused by name with an error event, never sent upstream', async () => {
  const from = harness.emulator.requests.length;
  const { socket, messages, next } = await rawSocket();
  const sent = [
    { type: 'response.steer', response_id: 'resp_1', input: 'Also check Lyon.' },
    { type: 'session.update', session: {} },
    { model: 'up-chat', input: 'Hi' },
    { type: 'response.create', stream_id: 'lane-1', model: 'up-chat', input: 'Hi' },
    { type: 'response.create', background: true, model: 'up-chat', input: 'Hi' },
  ];
  const answers = [];
  for (const message of sent) {
    const count = messages.length;
    socket.send(JSON.stringify(message));
    answers.push(await next(count));
  }
  expect(answers[0]).toMatchObject({
    type: 'error',
    status: 400,
    error: { type: 'invalid_request_error', code: 'unsupported_event_type', param: 'type' },
  });
  expect((answers[0]!.error as { message: string }).message).toContain("'response.steer'");
  expect((answers[1]!.error as { message: string }).message).toContain("'session.update'");
  expect(answers[2]).toMatchObject({ type: 'error', status: 400, error: { param: 'type' } });
  // The lane the SDK would route by sees its refusal.
  expect(answers[3]).toMatchObject({
    type: 'error',
    stream_id: 'lane-1',
    error: { code: 'unsupported_parameter', param: 'stream_id' },
  });
  expect(answers[4]).toMatchObject({ type: 'error', status: 400, error: { param: 'background' } });
  expect(upstreamSince(from)).toBe(0);
  socket.close();
});

it('messages sent back to back are answered in their order: a create refused after its checks leaves the connection free for the next, which is served', async () => {
  const from = harness.emulator.requests.length;
  const { socket, messages, next } = await rawSocket();
  harness.emulator.enqueue(scripted([{ type: 'text', text: 'Third.' }]));
  // No wait between them: the first is refused only after the gateway's checks.
  socket.send(JSON.stringify({ type: 'response.create', background: true, model: 'up-chat', input: 'Hi' }));
  socket.send(
    JSON.stringify({
      type: 'response.create',
      previous_response_id: 'resp_nope',
      model: 'up-chat',
      input: 'Hi',
    }),
  );
  socket.send(JSON.stringify({ type: 'response.create', model: 'up-chat', input: 'Third' }));
  while (messages.at(-1)?.type !== 'response.completed') await next();
  const errors = messages.filter((message) => message.type === 'error');
  expect(errors).toMatchObject([
    { status: 400, error: { param: 'background' } },
    { status: 404, error: { code: 'previous_response_not_found' } },
  ]);
  // Both refusals came before the third's first event, and the third ran: no `response_in_progress`.
  expect(messages.findIndex((message) => message.type !== 'error')).toBe(2);
  expect(upstreamSince(from)).toBe(1);
  socket.close();
});

it('a flood behind a create still being decided: 64 KiB of messages wait with their bytes, later ones are refused in their turn without them, and past 1,024 such refusals the socket closes (1008)', async () => {
  const { socket, messages, closed } = await rawSocket();
  // The first create waits on its upstream's headers while the flood arrives.
  harness.emulator.enqueue(
    scripted([{ type: 'text', text: 'First.' }], { fault: { delayHeadersMs: 2_000 } }),
  );
  socket.send(JSON.stringify({ type: 'response.create', model: 'up-chat', input: 'First' }));
  const kilobyte = JSON.stringify({ type: 'response.create', model: 'up-chat', input: 'x'.repeat(1000) });
  for (let index = 0; index < 1_200; index++) socket.send(kilobyte);
  expect(await closed).toBe(1008);
  // Nothing was answered before the first create was decided: the order holds to the end.
  expect(messages).toEqual([]);
});

it('a response.create while a response runs is refused (one response at a time per connection); the running one completes', async () => {
  const from = harness.emulator.requests.length;
  const { socket, messages, next } = await rawSocket();
  harness.emulator.enqueue(
    scripted([{ type: 'text', text: 'z'.repeat(80) }], { chunkSize: 8, fault: { dripMs: 30 } }),
  );
  socket.send(JSON.stringify({ type: 'response.create', model: 'up-chat', input: 'First' }));
  while (!messages.some((message) => message.type === 'response.output_text.delta')) await next();
  socket.send(JSON.stringify({ type: 'response.create', model: 'up-chat', input: 'Second' }));
  while (messages.at(-1)?.type !== 'response.completed') await next();
  const refusal = messages.find((message) => message.type === 'error');
  expect(refusal).toMatchObject({ status: 400, error: { code: 'response_in_progress' } });
  const text = messages.flatMap((message) =>
    message.type === 'response.output_text.delta' ? [message.delta as string] : [],
  );
  expect(text.join('')).toBe('z'.repeat(80));
  expect(upstreamSince(from)).toBe(1);
  socket.close();
});

it('the key is checked at the upgrade: a wrong or missing key is a 401 before any frame is read, logged and counted', async () => {
  const from = harness.emulator.requests.length;
  const url = `${harness.server.url.replace('http', 'ws')}/v1/responses`;
  for (const headers of [{ authorization: 'Bearer wrong-key' }, {}]) {
    const socket = new WebSocket(url, { headers });
    const status = await new Promise<number>((resolve) =>
      socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0)),
    );
    expect(status).toBe(401);
    socket.on('error', () => {});
    socket.terminate();
  }
  expect(harness.accessLog.slice(-2)).toMatchObject([
    { protocol: 'openai-responses', path: '/v1/responses', status: 401, key: null },
    { protocol: 'openai-responses', path: '/v1/responses', status: 401, key: null },
  ]);
  // The SDK's own client with a wrong key: the socket never opens.
  const session = openSession('wrong-key');
  session.ws.send({ type: 'response.create', model: 'up-chat', input: 'Hi' });
  await session.closed;
  expect(session.events).toEqual([]);
  expect(upstreamSince(from)).toBe(0);
});

it('shutdown: a response still running when the grace period ends fails once (a 503), then the socket closes (1001)', async () => {
  const own = await startGatewayHarness();
  const socket = new WebSocket(`${own.server.url.replace('http', 'ws')}/v1/responses`);
  const messages: Array<{ type: string }> = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as (typeof messages)[number]));
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  await new Promise((resolve) => socket.once('open', resolve));
  own.emulator.enqueue(
    scripted([{ type: 'text', text: 'z'.repeat(200) }], { fault: { stallAfterEvents: 4 } }),
  );
  socket.send(JSON.stringify({ type: 'response.create', model: 'up-chat', input: 'Long answer' }));
  while (!messages.some((message) => message.type === 'response.output_text.delta'))
    await new Promise((resolve) => setTimeout(resolve, 5));
  const [code] = await Promise.all([closed, own.server.close(100)]);
  expect(code).toBe(1001);
  // One end, whichever comes first: the 503 error event of the shutdown, or the stream's own failure.
  const ends = messages.filter((message) => message.type === 'error' || message.type === 'response.failed');
  expect(ends).toHaveLength(1);
  expect(ends[0]).toMatchObject(
    ends[0]!.type === 'error'
      ? { status: 503, error: { type: 'server_error' } }
      : { response: { error: { code: 'server_error' } } },
  );
  expect(messages.some((message) => message.type === 'response.completed')).toBe(false);
  while (own.accessLog.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(own.accessLog.at(-1)).toMatchObject({ protocol: 'openai-responses', status: 503 });
  await own.close();
});

it('a conversation kept on a connection holds its bytes against max_request_bytes_in_flight until the connection closes; one without room is not kept', async () => {
  const own = await startGatewayHarness({ body_limit_bytes: 200_000, max_request_bytes_in_flight: 350_000 });
  const client = new OpenAI({ baseURL: `${own.server.url}/v1`, apiKey: 'any', maxRetries: 0 });
  const large = 'x'.repeat(100_000);
  const sessions: ResponsesWS[] = [];
  try {
    const turnOn = async (ws: ResponsesWS, params: Record<string, unknown>) => {
      const events: Event[] = [];
      ws.on('error', () => {});
      const ended = new Promise<void>((resolve) =>
        ws.on('event', (event) => {
          events.push(event);
          if (terminal.has(event.type)) resolve();
        }),
      );
      ws.send({ type: 'response.create', model: 'up-chat', store: false, ...params } as Parameters<
        ResponsesWS['send']
      >[0]);
      await ended;
      return events;
    };
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) {
      const ws = new ResponsesWS(client);
      sessions.push(ws);
      own.emulator.enqueue(scripted([{ type: 'text', text: `Answer ${index}.` }]));
      ids.push(last(await turnOn(ws, { input: large }), 'response.completed')!.response.id);
    }
    // Two conversations of ~100 KB held; the third had no room (its request's body held too).
    expect(own.logger.entries.map((entry) => entry.message)).toContain(
      'gateway: a response was not kept on its connection: the request bytes in flight have no room for its conversation',
    );
    const continued = async (index: number) => {
      const ws = sessions[index]!;
      const fresh = new Promise<Event[]>((resolve) => {
        const events: Event[] = [];
        ws.on('event', (event) => {
          events.push(event);
          if (terminal.has(event.type)) resolve(events);
        });
      });
      own.emulator.enqueue(scripted([{ type: 'text', text: 'Continued.' }]));
      ws.send({
        type: 'response.create',
        model: 'up-chat',
        store: false,
        previous_response_id: ids[index]!,
        input: 'More?',
      });
      return (await fresh).at(-1)!;
    };
    expect(await continued(2)).toMatchObject({
      type: 'error',
      status: 404,
      error: { param: 'previous_response_id' },
    });
    expect(await continued(1)).toMatchObject({ type: 'response.completed' });
    // A closed connection gives its conversation's bytes back: a new one's is kept again.
    const warnings = () => own.logger.entries.filter((entry) => entry.message.includes('not kept')).length;
    expect(warnings()).toBe(1);
    const closing = sessions[0]!;
    await new Promise<void>((resolve) => {
      closing.on('close', () => resolve());
      closing.close();
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const ws = new ResponsesWS(client);
    sessions.push(ws);
    own.emulator.enqueue(scripted([{ type: 'text', text: 'Kept again.' }]));
    await turnOn(ws, { input: large });
    expect(warnings()).toBe(1);
  } finally {
    for (const ws of sessions) ws.close();
    await own.close();
  }
});

it.each([
  {
    bound: 'max_request_bytes_in_flight',
    gateway: { max_request_bytes_in_flight: 230_000 },
    key: 'any',
    refusal: { status: 503, error: { type: 'server_error', code: 'overloaded' } },
  },
  {
    bound: 'the key’s share of it',
    gateway: {
      max_request_bytes_in_flight: 1_000_000,
      max_request_bytes_in_flight_per_key: 230_000,
      keys: [
        { name: 'team', key: digest('team-key') },
        { name: 'other', key: digest('other-key') },
      ],
    },
    key: 'team-key',
    refusal: {
      status: 429,
      error: { code: 'rate_limit_exceeded', message: expect.stringContaining('230000') },
    },
  },
])(
  'a continuation of a kept conversation that would pass $bound is refused with an error event; the socket, and the conversation kept on it, serve the next response',
  async ({ gateway, key, refusal }) => {
    const own = await startGatewayHarness({ body_limit_bytes: 200_000, ...gateway });
    const client = new OpenAI({ baseURL: `${own.server.url}/v1`, apiKey: key, maxRetries: 0 });
    const ws = new ResponsesWS(client);
    try {
      const events: Event[] = [];
      let wake: (() => void) | undefined;
      ws.on('error', () => {});
      ws.on('event', (event) => {
        events.push(event);
        wake?.();
      });
      const turn = async (params: Record<string, unknown>) => {
        const from = events.length;
        ws.send({ type: 'response.create', model: 'up-chat', store: false, ...params } as Parameters<
          ResponsesWS['send']
        >[0]);
        while (!events.slice(from).some((event) => terminal.has(event.type)))
          await new Promise<void>((resolve) => (wake = resolve));
        return events.slice(from);
      };
      // ~100 KB kept on the connection (its request's ~100 KB body held beside it while it was kept).
      own.emulator.enqueue(scripted([{ type: 'text', text: 'Kept.' }]));
      const first = last(await turn({ input: 'x'.repeat(100_000) }), 'response.completed')!.response.id;
      const sent = own.emulator.requests.length;
      // Continued with 60 KB more: the kept ~100 KB, and the request's own copy of it and its input.
      const refused = await turn({ previous_response_id: first, input: 'y'.repeat(60_000) });
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatchObject({ type: 'error', ...refusal });
      expect(own.emulator.requests.length).toBe(sent);
      // Nothing of it is held after (or this one too would pass the bound): the kept conversation is
      // continued from, its ~100 KB sent upstream.
      own.emulator.enqueue(scripted([{ type: 'text', text: 'Continued.' }]));
      const continued = await turn({ previous_response_id: first, input: 'More?' });
      expect(textOf(continued)).toBe('Continued.');
      expect(JSON.stringify(own.emulator.requests.at(-1)!.body)).toContain('x'.repeat(100_000));
    } finally {
      ws.close();
      await own.close();
    }
  },
);
