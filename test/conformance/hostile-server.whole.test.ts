/**
 * A whole response and what follows it: a server that holds the connection open after the finish
 * signal. With a terminal event (OpenAI `[DONE]`) reading stops at once; after Anthropic's
 * `message_stop`, which a concatenated message may follow, once nothing came for a short window;
 * where nothing says the response is over (a Chat stream's finish reason with neither usage nor
 * `[DONE]`) the idle timeout ends the stream as completed, with one WARN; a caller's cancellation
 * stays a cancellation in every case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/core/logger.ts';
import { userText } from '../../src/core/transcript.ts';
import { createAnthropic } from '../../src/providers/anthropic/index.ts';
import { createOpenAI } from '../../src/providers/openai-chat/index.ts';
import { collectStream } from '../../src/testing/collect.ts';
import { assertStreamInvariants } from '../../src/testing/invariants.ts';
import { type HostileServer, responseHead, startHostileServer } from '../support/hostile-server.ts';

const anthropicEvents = [
  [
    'message_start',
    {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [],
        usage: { input_tokens: 3, output_tokens: 1 },
      },
    },
  ],
  [
    'content_block_start',
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  ],
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Whole.' } },
  ],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  [
    'message_delta',
    { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } },
  ],
  ['message_stop', { type: 'message_stop' }],
] as const;
const anthropicBody = anthropicEvents
  .map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`)
  .join('');

const openaiChunks = [
  {
    id: 'c1',
    object: 'chat.completion.chunk',
    model: 'gpt-4.1-mini',
    choices: [{ index: 0, delta: { role: 'assistant', content: 'Whole.' }, finish_reason: null }],
  },
  {
    id: 'c1',
    object: 'chat.completion.chunk',
    model: 'gpt-4.1-mini',
    choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
  },
].map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`);
const openaiBody = openaiChunks.join('').concat('data: [DONE]\n\n');

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(async () => {
  await server.close();
});

/** Serves `body` as one chunk of a chunked response that never ends. */
function holdOpenAfter(body: string): void {
  server.use((socket) => {
    socket.write(
      responseHead(200, [
        ['content-type', 'text/event-stream'],
        ['transfer-encoding', 'chunked'],
      ]),
    );
    socket.write(`${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n`);
  });
}

const request = { transcript: [userText('hi')], maxOutputTokens: 16 };

describe('a whole response, then the connection held open', () => {
  it('Anthropic: message_stop ends the stream long before the idle timeout, the text kept, no WARN', async () => {
    holdOpenAfter(anthropicBody);
    const logger = createMemoryLogger();
    const adapter = createAnthropic({
      baseURL: `${server.url}/v1`,
      apiKey: 'k',
      idleTimeout: 60_000,
      timeout: 60_000,
      maxRetries: 0,
      logger,
    });
    const started = performance.now();
    const { events, error, response } = await collectStream(
      adapter.stream({ ...request, model: 'claude-sonnet-4-5' }),
    );
    const elapsed = performance.now() - started;
    await adapter.close();
    server.dropConnections();
    assertStreamInvariants(events);
    expect(error).toBeUndefined();
    expect(response).toMatchObject({
      finishReason: 'completed',
      content: [{ type: 'text', text: 'Whole.' }],
    });
    expect(elapsed).toBeLessThan(10_000);
    expect(logger.entries).toEqual([]);
  });

  it('OpenAI: a finish reason with neither usage nor [DONE]: the idle timeout ends the stream completed, one WARN', async () => {
    holdOpenAfter(openaiChunks.join(''));
    const logger = createMemoryLogger();
    const adapter = createOpenAI({
      baseURL: `${server.url}/v1`,
      apiKey: 'k',
      idleTimeout: 200,
      maxRetries: 0,
      logger,
    });
    const { events, error, response } = await collectStream(
      adapter.stream({ ...request, model: 'gpt-4.1-mini' }),
    );
    await adapter.close();
    server.dropConnections();
    assertStreamInvariants(events);
    expect(error).toBeUndefined();
    expect(response).toMatchObject({
      finishReason: 'completed',
      content: [{ type: 'text', text: 'Whole.' }],
    });
    const warnings = logger.entries.map((entry) => entry.message);
    expect(warnings).toContain('ignored a failure of the stream after the response was complete');
  });

  it('OpenAI: [DONE] ends reading at once, long before the idle timeout', async () => {
    holdOpenAfter(openaiBody);
    const adapter = createOpenAI({
      baseURL: `${server.url}/v1`,
      apiKey: 'k',
      idleTimeout: 60_000,
      timeout: 60_000,
      maxRetries: 0,
    });
    const started = performance.now();
    const { error, response } = await collectStream(adapter.stream({ ...request, model: 'gpt-4.1-mini' }));
    const elapsed = performance.now() - started;
    await adapter.close();
    server.dropConnections();
    expect(error).toBeUndefined();
    expect(response).toMatchObject({
      finishReason: 'completed',
      content: [{ type: 'text', text: 'Whole.' }],
    });
    // Far below the 60 s idle timeout: the stream did not wait for the server to close.
    expect(elapsed).toBeLessThan(10_000);
  });

  it('a cancellation while the server holds a whole response open is still a cancellation', async () => {
    holdOpenAfter(anthropicBody);
    const adapter = createAnthropic({
      baseURL: `${server.url}/v1`,
      apiKey: 'k',
      idleTimeout: 60_000,
      maxRetries: 0,
    });
    const controller = new AbortController();
    const stream = adapter.stream({ ...request, model: 'claude-sonnet-4-5' }, { signal: controller.signal });
    const events = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === 'text-end') controller.abort();
    }
    await adapter.close();
    server.dropConnections();
    assertStreamInvariants(events);
    expect(events.at(-1)).toMatchObject({ type: 'finish', response: { finishReason: 'cancelled' } });
  });
});
