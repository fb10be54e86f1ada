/**
 * Bodies a client shapes against the gateway: absurd nesting, `__proto__` keys and built-in property
 * names, compressed bodies, and the log lines a body can cause.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayHarness, scriptedText, startGatewayHarness, useGatewayHarness } from './harness.ts';

const harness = useGatewayHarness({ body_limit_bytes: 4096 });
const hello = scriptedText;

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  harness.post(path, body, headers);

const chatBody = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }], ...extra });

describe('absurd nesting and __proto__ keys in a body', () => {
  let own: GatewayHarness;
  beforeAll(async () => {
    own = await startGatewayHarness();
  });
  afterAll(async () => {
    await own?.close();
  });
  const send = (path: string, body: string) =>
    fetch(`${own.server.url}${path}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
  /** `{"type":"object","properties":{"a": … }}` nested `depth` times. */
  const deepSchema = (depth: number) =>
    `${'{"type":"object","properties":{"a":'.repeat(depth)}{"type":"string"}${'}}'.repeat(depth)}`;
  const geminiTool = (schema: string) =>
    `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":${schema}}]}]}`;
  it.each([
    ['/v1beta/models/up-chat:generateContent', geminiTool(deepSchema(20_000))],
    ['/v1beta/models/up-chat:countTokens', geminiTool(deepSchema(20_000))],
    [
      '/v1/messages/count_tokens',
      `{"model":"up-chat","messages":[{"role":"user","content":"Hi"}],"tools":[{"name":"f","input_schema":${deepSchema(20_000)}}]}`,
    ],
  ])('%s: 20,000 levels is a 400 naming the path, not a stack overflow (500)', async (path, body) => {
    const before = own.emulator.requests.length;
    const response = await send(path, body);
    expect(response.status).toBe(400);
    const text = await response.text();
    // The path is the client's own, its middle elided: the message stays short.
    expect(text).toMatch(/tools\.0\.[a-zA-Z_.0-9]+\.…\.[a-zA-Z_.0-9]+: nested deeper than 512 levels/);
    expect(text.length).toBeLessThan(1000);
    expect(own.emulator.requests.length).toBe(before);
  });

  it('a __proto__ property in a Gemini schema is refused by its path in the body', async () => {
    const response = await send(
      '/v1beta/models/up-chat:generateContent',
      geminiTool('{"type":"object","properties":{"__proto__":{"type":"string"}}}'),
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(
      'tools.0.functionDeclarations.0.parameters.properties.__proto__: the key \\"__proto__\\" is not allowed',
    );
  });
});

describe('model names that are built-in property names', () => {
  it.each([
    'openai:constructor',
    'anthropic:toString',
    'openai:hasOwnProperty-latest',
    'openai:__proto__-20250101',
  ])('%s is answered as any other model name: sent to its provider as it is (never a 500)', async (model) => {
    harness.emulator.enqueue(hello());
    const response = await post('/v1/chat/completions', chatBody({ model }));
    expect(response.status).toBe(200);
    const sent = harness.emulator.requests.at(-1)?.body as { model: string };
    expect(sent.model).toBe(model.slice(model.indexOf(':') + 1));
  });
});

it('tools the gateway does not offer are one WARN per request, with a count and the first few details cut to 200 characters', async () => {
  const before = harness.logger.entries.length;
  harness.emulator.enqueue(hello());
  const tools = [
    { type: `x${'y'.repeat(300)}` },
    ...Array.from({ length: 39 }, (_, index) => ({ type: `x${index}` })),
  ];
  const response = await post('/v1/responses', JSON.stringify({ model: 'up-chat', input: 'Hi', tools }));
  expect(response.status).toBe(200);
  const lines = harness.logger.entries
    .slice(before)
    .filter((entry) => entry.message === 'gateway: part of the request was left out');
  expect(lines).toHaveLength(1);
  expect(lines[0]!.fields).toMatchObject({ count: 40 });
  const details = lines[0]!.fields.details as string[];
  expect(details).toHaveLength(5);
  for (const detail of details) expect(detail.length).toBeLessThanOrEqual(201);
});

it.each(['gzip', 'br', 'deflate'])(
  'a body sent with content-encoding %s is a 415 saying so (never inflated), in the protocol’s error shape',
  async (coding) => {
    const response = await post('/v1/messages', '\u001f\u008b\u0008', { 'content-encoding': coding });
    expect(response.status).toBe(415);
    const body = (await response.json()) as { type: string; error: { message: string } };
    expect(body.type).toBe('error');
    expect(body.error.message).toContain(`content-encoding '${coding}' is not accepted`);
  },
);

it('a body sent with transfer-encoding gzip, chunked is a 415 saying so (Node removes only the chunking), not a JSON error', async () => {
  const { port } = new URL(harness.server.url);
  const reply = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () =>
      socket.write(
        'POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
          'anthropic-version: 2023-06-01\r\ntransfer-encoding: gzip, chunked\r\nconnection: close\r\n\r\n' +
          '3\r\n\u001f\u008b\u0008\r\n0\r\n\r\n',
        'latin1',
      ),
    );
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
  expect(reply).toMatch(/^HTTP\/1\.1 415 /);
  expect(reply).toContain("transfer-encoding 'gzip, chunked' is not accepted");
});
