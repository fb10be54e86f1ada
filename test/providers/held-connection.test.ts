/**
 * A stream ends at its protocol's last event, not when the server closes the connection: a server
 * (or proxy) that writes a whole, recorded stream and then holds the connection open costs a few
 * ms, not the idle timeout (5 s here, 120 s by default), and the connection is closed, not left
 * open. Where the last event is not final (Anthropic's `message_stop`, Gemini's finish chunk, a
 * Chat stream without `[DONE]`) a message that follows within the window is still read. Bedrock's
 * rows are in bedrock-trailing-frame.test.ts.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Adapter } from '../../src/core/adapter.ts';
import { createMemoryLogger } from '../../src/core/logger.ts';
import { createAnthropic } from '../../src/providers/anthropic/index.ts';
import { createGemini } from '../../src/providers/gemini/index.ts';
import {
  azurePreset,
  createOpenAICompatible,
  presetNames,
  presets,
} from '../../src/providers/openai-compatible/index.ts';
import { createOpenAI } from '../../src/providers/openai-chat/index.ts';
import { createOpenAIResponses } from '../../src/providers/openai-responses/index.ts';
import { createVertex } from '../../src/providers/vertex/index.ts';
import { collectStream } from '../../src/testing/collect.ts';
import { listRecorded, readRecorded } from '../support/fixtures.ts';

/** The recorded events of `name` (one JSON event a line) in `folder`. */
function recorded(folder: string, name: string): string[] {
  const path = listRecorded(folder).find((file) => file.endsWith(`/${name}`));
  if (path === undefined) throw new Error(`no recording ${folder}/${name}`);
  return readRecorded(path)
    .split('\n')
    .filter((line) => line.trim() !== '');
}

/** SSE with each event's `type` as its name (Anthropic, Responses). */
const named = (lines: string[]) =>
  lines.map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`).join('');
const unnamed = (lines: string[]) => lines.map((line) => `data: ${line}\n\n`).join('');

const anthropicLines = recorded('anthropic', 'anthropic-text.chunks.txt');
const anthropic = named(anthropicLines);
const chatLines = recorded('openai/chat', 'openai-text.chunks.txt');
const chat = `${unnamed(chatLines)}data: [DONE]\n\n`;
const responsesLines = recorded('openai/responses', 'openai-custom-tool.1.chunks.txt');
const responses = named(responsesLines);
const gemini = unnamed(recorded('google', 'google-text.chunks.txt'));

/** The Responses recording ended by `response.incomplete` (the output limit) instead. */
const responsesIncomplete = named(
  responsesLines.map((line) => {
    const event = JSON.parse(line) as { type: string; response?: Record<string, unknown> };
    if (event.type !== 'response.completed') return line;
    const response = {
      ...event.response,
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    };
    return JSON.stringify({ ...event, type: 'response.incomplete', response });
  }),
);

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** What the held server saw: the socket of each request, and when each closed. */
interface Held {
  url: string;
  sockets: Socket[];
}

/**
 * A server answering every request 200 with `write(response)` and never ending it, unless the
 * writer does (it gets the response to write more later).
 */
async function holdingServer(write: (response: ServerResponse) => void): Promise<Held> {
  const sockets: Socket[] = [];
  server = createServer((request, response) => {
    request.resume();
    sockets.push(request.socket);
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    write(response);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sockets };
}

const idleTimeout = 5_000;

function common(url: string, logger: ReturnType<typeof createMemoryLogger>) {
  return { baseURL: url, apiKey: 'test-key', maxRetries: 0, idleTimeout, logger, env: {} };
}

/** Streams `model` from the adapter `make` builds against `held`; how long it took, what it produced. */
async function timedStream(
  make: (url: string, logger: ReturnType<typeof createMemoryLogger>) => Adapter,
  model: string,
  held: Held,
) {
  const logger = createMemoryLogger();
  const adapter = make(held.url, logger);
  const began = performance.now();
  const stream = await collectStream(
    adapter.stream({
      model,
      transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
      maxOutputTokens: 64,
    }),
  );
  const ms = performance.now() - began;
  return { ...stream, ms, warnings: logger.entries.map((entry) => entry.message) };
}

/** Resolves once `socket` closed (the client let go of the connection), or false after 1 s. */
function closed(socket: Socket): Promise<boolean> {
  if (socket.destroyed) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), 1_000);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

const vertex = (url: string, logger: ReturnType<typeof createMemoryLogger>) =>
  createVertex({
    ...common(url, logger),
    project: 'p',
    location: 'us-east5',
    getAccessToken: async () => 'ya29.t',
  });

type Row = [string, (url: string, logger: ReturnType<typeof createMemoryLogger>) => Adapter, string, string];

const rows: Row[] = [
  [
    'Anthropic: message_stop',
    (url, logger) => createAnthropic(common(url, logger)),
    'anthropic:claude-sonnet-4-5',
    anthropic,
  ],
  ['OpenAI Chat: [DONE]', (url, logger) => createOpenAI(common(url, logger)), 'openai:gpt-4.1-nano', chat],
  [
    'OpenAI Chat: the finish reason and the usage, no [DONE]',
    (url, logger) => createOpenAI(common(url, logger)),
    'openai:gpt-4.1-nano',
    unnamed(chatLines),
  ],
  [
    'OpenAI Responses: response.completed',
    (url, logger) => createOpenAIResponses(common(url, logger)),
    'openai-responses:gpt-5-nano',
    responses,
  ],
  [
    'OpenAI Responses: response.incomplete',
    (url, logger) => createOpenAIResponses(common(url, logger)),
    'openai-responses:gpt-5-nano',
    responsesIncomplete,
  ],
  [
    'Gemini: the chunk with finishReason and usageMetadata',
    (url, logger) => createGemini(common(url, logger)),
    'gemini:gemini-3-pro-preview',
    gemini,
  ],
  ['Vertex Claude (streamRawPredict): message_stop', vertex, 'vertex:claude-sonnet-4-5@20250929', anthropic],
  ['Vertex Gemini: the chunk with finishReason and usageMetadata', vertex, 'vertex:gemini-2.5-flash', gemini],
  ['Vertex Mistral AI: [DONE]', vertex, 'vertex:mistral-medium-3', chat],
  ['Vertex MaaS (Llama): [DONE]', vertex, 'vertex:meta/llama-4-maverick-17b-128e-instruct-maas', chat],
  ...presetNames.map((name): Row => {
    const preset = { ...presets[name], quirks: { ...presets[name].quirks } };
    return [
      `compatible host ${name}: [DONE]`,
      (url, logger) =>
        createOpenAICompatible(
          { ...preset, quirks: { ...preset.quirks, baseURL: url } },
          common(url, logger),
        ),
      `${name}:some-model`,
      chat,
    ];
  }),
  [
    'compatible host azure: [DONE]',
    (url, logger) => createOpenAICompatible(azurePreset({ resourceName: 'r' }), common(url, logger)),
    'azure:gpt-4o',
    chat,
  ],
];

describe('a stream whose last event arrived ends without waiting for the connection to close', () => {
  it.each(rows)('%s, the server holding the connection open', async (_name, make, model, body) => {
    const held = await holdingServer((response) => response.write(body));
    const stream = await timedStream(make, model, held);
    expect(stream.error).toBeUndefined();
    expect(stream.response?.finishReason).toMatch(/^(completed|tool-call|max-tokens)$/);
    expect(stream.response?.content.length).toBeGreaterThan(0);
    expect(stream.ms).toBeLessThan(idleTimeout / 2);
    // No idle timeout was met (its WARN says so), and the connection was closed, not kept.
    expect(stream.warnings).not.toContain('ignored a failure of the stream after the response was complete');
    expect(await closed(held.sockets[0]!)).toBe(true);
  });
});

describe('the window after a last event that is not final', () => {
  it('Anthropic: a message that follows message_stop within the window is still merged', async () => {
    const second = anthropicLines.map((line) => line.replace('msg_01QC4g3HwBThD4BaNtBckFDJ', 'msg_second'));
    const held = await holdingServer((response) => {
      response.write(anthropic);
      setTimeout(() => response.write(named(second)), 10);
    });
    const stream = await timedStream(
      (url, logger) => createAnthropic(common(url, logger)),
      'anthropic:claude-sonnet-4-5',
      held,
    );
    expect(stream.error).toBeUndefined();
    expect(stream.ms).toBeLessThan(idleTimeout / 2);
    expect(stream.response?.content).toHaveLength(2);
    expect(stream.response?.metadata?.['anthropic.message_ids']).toEqual([
      'msg_01QC4g3HwBThD4BaNtBckFDJ',
      'msg_second',
    ]);
    expect(stream.response?.usage).toMatchObject({ input: 24, output: 60 });
  });

  it('Anthropic: a message that arrived while the process was busy past the window is still merged', async () => {
    // The process is held (other work: a gateway's other clients) from 5 ms to 65 ms; the second
    // message arrives at 30 ms, the window ends at ~50 ms. The bytes waiting in the socket are read
    // before the window counts as quiet (once, the quiet timer fired first and dropped them).
    const second = anthropicLines.map((line) => line.replace('msg_01QC4g3HwBThD4BaNtBckFDJ', 'msg_second'));
    const held = await holdingServer((response) => {
      response.write(anthropic);
      setTimeout(() => response.write(named(second)), 30);
      setTimeout(() => {
        setImmediate(() => {
          const until = performance.now() + 60;
          while (performance.now() < until);
        });
      }, 5);
    });
    const stream = await timedStream(
      (url, logger) => createAnthropic(common(url, logger)),
      'anthropic:claude-sonnet-4-5',
      held,
    );
    expect(stream.error).toBeUndefined();
    expect(stream.response?.metadata?.['anthropic.message_ids']).toEqual([
      'msg_01QC4g3HwBThD4BaNtBckFDJ',
      'msg_second',
    ]);
  });

  it('Anthropic: a body held open before message_stop is not ended by the window (the idle timeout fails it)', async () => {
    const held = await holdingServer((response) => response.write(named(anthropicLines.slice(0, -1))));
    const stream = await timedStream(
      (url, logger) => createAnthropic({ ...common(url, logger), idleTimeout: 300 }),
      'anthropic:claude-sonnet-4-5',
      held,
    );
    expect(stream.error).toMatchObject({ providerCode: 'timeout_idle' });
    expect(stream.response?.finishReason).toBe('error');
    expect(stream.response?.content).toMatchObject([{ type: 'text' }]);
  });

  it('Gemini: a body held open after a chunk without finishReason is not ended by the window', async () => {
    const lines = recorded('google', 'google-text.chunks.txt').slice(0, -1);
    const held = await holdingServer((response) => response.write(unnamed(lines)));
    const stream = await timedStream(
      (url, logger) => createGemini({ ...common(url, logger), idleTimeout: 300 }),
      'gemini:gemini-3-pro-preview',
      held,
    );
    expect(stream.error).toMatchObject({ providerCode: 'timeout_idle' });
  });

  it('a caller that aborts while the stream is in its window ends it cancelled, the connection closed', async () => {
    const held = await holdingServer((response) => response.write(anthropic));
    const controller = new AbortController();
    const adapter = createAnthropic(common(held.url, createMemoryLogger()));
    const events: string[] = [];
    let finishReason: string | undefined;
    for await (const event of adapter.stream(
      {
        model: 'anthropic:claude-sonnet-4-5',
        transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
        maxOutputTokens: 64,
      },
      { signal: controller.signal },
    )) {
      events.push(event.type);
      if (event.type === 'text-end') controller.abort();
      if (event.type === 'finish') finishReason = event.response.finishReason;
    }
    expect(finishReason).toBe('cancelled');
    expect(await closed(held.sockets[0]!)).toBe(true);
  });
});

describe('a server that ends the response just after the terminal event', () => {
  // The recorded stream's `[DONE]` (Chat) or `response.completed` (Responses), then the response's
  // end 5 ms later, in its own packet. The body's end was not awaited: the terminal event cancelled
  // it, closing the keep-alive connection (and undici opened a spare besides): 3 calls took 6
  // connections. Now the end is read and the connection reused: 1.
  it.each([
    [
      'OpenAI Chat: [DONE]',
      (url: string, logger: ReturnType<typeof createMemoryLogger>) => createOpenAI(common(url, logger)),
      'openai:gpt-4.1-nano',
      chat,
    ],
    [
      'OpenAI Responses: response.completed',
      (url: string, logger: ReturnType<typeof createMemoryLogger>) =>
        createOpenAIResponses(common(url, logger)),
      'openai-responses:gpt-5-nano',
      responses,
    ],
  ] as Row[])(
    '%s: the connection goes back to the pool, reused by the next calls',
    async (_name, make, model, body) => {
      const ended: Array<Promise<unknown>> = [];
      const held = await holdingServer((response) => {
        ended.push(new Promise((resolve) => response.once('finish', resolve)));
        response.write(body);
        setTimeout(() => response.end(), 5);
      });
      let connections = 0;
      server!.on('connection', () => connections++);
      const adapter = make(held.url, createMemoryLogger());
      for (let call = 0; call < 3; call++) {
        const stream = await collectStream(
          adapter.stream({
            model,
            transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
            maxOutputTokens: 64,
          }),
        );
        expect(stream.error).toBeUndefined();
        expect(stream.response?.finishReason).toMatch(/^(completed|tool-call)$/);
        // The server has ended the response, and the client has read that end (a poll phase, then
        // the check phase after it), so the connection is idle in the pool before the next call.
        await ended[call];
        for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(held.sockets).toHaveLength(3);
      expect(new Set(held.sockets).size).toBe(1);
      expect(connections).toBe(1);
      await adapter.close?.();
    },
  );
});
