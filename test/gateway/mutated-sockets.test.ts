/**
 * Messages on the gateway's two WebSockets changed in one to three places (fast-check; a fixed
 * seed, so a failure replays): the native socket's request and the Responses socket's
 * `response.create`. Whatever a message asks, it ends with one terminal message — the native
 * `done` or `error`, the Responses terminal event or `error` — never a JavaScript error's text, and
 * the socket stays open for the next.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type GatewayHarness, scriptedText, startGatewayHarness, upstreams } from './harness.ts';
import { internalFault, mutate, mutations, propertyOptions, scriptedCall } from './mutations.ts';

let harness: GatewayHarness;
let native: Socket;
let responses: Socket;

/** One open socket: the messages it received since the last `take`, and whether it closed. */
interface Socket {
  socket: WebSocket;
  received: string[];
  closed: boolean;
}

async function open(path: string): Promise<Socket> {
  const socket = new WebSocket(`${harness.server.url.replace('http', 'ws')}${path}`);
  const state: Socket = { socket, received: [], closed: false };
  socket.on('message', (data: Buffer) => state.received.push(data.toString('utf8')));
  socket.on('close', () => (state.closed = true));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return state;
}

beforeAll(async () => {
  harness = await startGatewayHarness();
  native = await open('/switchyard/v1/ws');
  responses = await open('/v1/responses');
});
afterAll(async () => {
  native?.socket.close();
  responses?.socket.close();
  await harness?.close();
});

const schema = { type: 'object', properties: { a: { type: 'string' } } };
const models = Object.values(upstreams).map(({ alias }) => alias);

/** The native request and the Responses create, each using most of what its route takes. */
function messages(model: string): Array<{
  socket: () => Socket;
  body: Record<string, unknown>;
  wrap(body: unknown): object;
  ends(message: { type?: unknown }): boolean;
}> {
  return [
    {
      socket: () => native,
      body: {
        model,
        maxOutputTokens: 100,
        transcript: [
          { kind: 'system', parts: [{ type: 'text', text: 'sys' }] },
          { kind: 'user', parts: [{ type: 'text', text: 'hi' }] },
          { kind: 'assistant', parts: [{ type: 'tool-call', id: 'call_1', name: 'get', input: { a: 'x' } }] },
          {
            kind: 'tool',
            parts: [
              { type: 'tool-result', callId: 'call_1', output: { type: 'text', text: 'r1' }, isError: false },
            ],
          },
        ],
        tools: [{ name: 'get', inputSchema: schema }],
      },
      wrap: (request) => ({ type: 'request', id: 'r', request }),
      ends: (message) => message.type === 'done' || message.type === 'error',
    },
    {
      socket: () => responses,
      body: {
        model,
        store: false,
        instructions: 'be brief',
        input: [
          { role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
          { type: 'function_call', call_id: 'call_1', name: 'get', arguments: '{"a":"x"}' },
          { type: 'function_call_output', call_id: 'call_1', output: 'r1' },
        ],
        tools: [{ type: 'function', name: 'get', parameters: schema }],
        reasoning: { effort: 'low' },
      },
      wrap: (body) => ({
        ...(typeof body === 'object' && body !== null ? body : { input: body }),
        type: 'response.create',
      }),
      ends: (message) =>
        message.type === 'error' ||
        message.type === 'response.completed' ||
        message.type === 'response.failed' ||
        message.type === 'response.incomplete',
    },
  ];
}

it.each(models)('every unchanged socket message to %s is served to its end', async (model) => {
  for (const message of messages(model)) {
    harness.emulator.clear();
    harness.emulator.enqueue(scriptedText('Hi.'));
    const socket = message.socket();
    socket.received.length = 0;
    socket.socket.send(JSON.stringify(message.wrap(message.body)));
    await expect
      .poll(() => socket.received.map((text) => JSON.parse(text) as { type?: unknown }).find(message.ends))
      .toBeDefined();
    const last = JSON.parse(socket.received.at(-1)!) as { type?: unknown };
    expect(last.type === 'done' || last.type === 'response.completed', socket.received.at(-1)).toBe(true);
  }
});

it('a changed socket message ends with one terminal message, never an internal fault, the socket open', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...models), fc.nat(1), mutations, async (model, route, changes) => {
      const message = messages(model)[route]!;
      const socket = message.socket();
      harness.emulator.clear();
      harness.emulator.enqueue(scriptedCall);
      socket.received.length = 0;
      socket.socket.send(JSON.stringify(message.wrap(mutate(message.body, changes))));
      await expect
        .poll(
          () =>
            socket.received.map((text) => JSON.parse(text) as { type?: unknown }).filter(message.ends).length,
          {
            timeout: 10_000,
            interval: 5,
          },
        )
        .toBe(1);
      const text = socket.received.join('\n');
      expect(text).not.toMatch(internalFault);
      expect(socket.closed, text.slice(0, 300)).toBe(false);
    }),
    propertyOptions(100),
  );
}, 600_000);
