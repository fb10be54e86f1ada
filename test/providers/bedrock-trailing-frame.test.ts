/**
 * A Bedrock stream whose response was whole (`messageStop` arrived) keeps it when what follows is
 * broken — a trailing frame cut short at the end of the body, or one with a bad CRC — with a WARN;
 * before `messageStop` the same damage fails the stream.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/core/logger.ts';
import { createBedrock } from '../../src/providers/bedrock/index.ts';
import { collectStream } from '../../src/testing/collect.ts';
import { encodeEventStreamMessage } from '../../src/transport/event-stream.ts';

const frame = (type: string, payload: object) =>
  Buffer.from(
    encodeEventStreamMessage(
      { ':message-type': 'event', ':event-type': type, ':content-type': 'application/json' },
      JSON.stringify(payload),
    ),
  );
const start = frame('messageStart', { role: 'assistant' });
const text = frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } });
const stop = frame('messageStop', { stopReason: 'end_turn' });
const metadata = frame('metadata', { usage: { inputTokens: 30, outputTokens: 20 } });

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** An InvokeModel `chunk` frame holding one Anthropic event. */
const chunk = (event: object) =>
  frame('chunk', { bytes: Buffer.from(JSON.stringify(event)).toString('base64') });

async function streamOf(
  body: Buffer,
  settings: { hold?: boolean; protocol?: 'invoke'; idleTimeout?: number } = {},
) {
  server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
    // Held: the server sends the whole answer and keeps the connection open.
    if (settings.hold === true) response.write(body);
    else response.end(body);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const logger = createMemoryLogger();
  const adapter = createBedrock({
    apiKey: 'ABSKtrailingframetest0001',
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    maxRetries: 0,
    logger,
    ...(settings.protocol === undefined ? {} : { protocol: settings.protocol }),
    ...(settings.idleTimeout === undefined ? {} : { idleTimeout: settings.idleTimeout }),
  });
  const stream = await collectStream(
    adapter.stream({
      model: 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
      maxOutputTokens: 64,
    }),
  );
  server.closeAllConnections();
  return { ...stream, warnings: logger.entries.map((entry) => entry.message) };
}

describe('Bedrock: damage after the response was whole', () => {
  it.each([
    ['cut short at the end of the body', metadata.subarray(0, 20)],
    [
      'with a bad message CRC',
      Buffer.concat([metadata.subarray(0, -1), Buffer.from([metadata.at(-1)! ^ 1])]),
    ],
  ])('a trailing metadata frame %s: the answer is kept, completed, with a WARN', async (_name, tail) => {
    const stream = await streamOf(Buffer.concat([start, text, stop, tail]));
    expect(stream.error).toBeUndefined();
    expect(stream.response).toMatchObject({
      finishReason: 'completed',
      content: [{ type: 'text', text: 'Hi' }],
    });
    expect(stream.warnings).toContain('ignored a failure of the stream after the response was complete');
  });

  it('the same cut before messageStop fails the stream (truncated), keeping the text', async () => {
    const stream = await streamOf(Buffer.concat([start, text, stop.subarray(0, 20)]));
    expect(stream.error).toMatchObject({ errorClass: 'network' });
    expect(stream.response?.finishReason).toBe('error');
    expect(stream.response?.content).toMatchObject([{ type: 'text', text: 'Hi' }]);
  });
});

describe('Bedrock: a stream whose last event arrived ends without waiting for the connection to close', () => {
  it('ConverseStream: messageStop and metadata arrived, the server holds the connection open', async () => {
    const began = performance.now();
    const stream = await streamOf(Buffer.concat([start, text, stop, metadata]), {
      hold: true,
      idleTimeout: 10_000,
    });
    expect(performance.now() - began).toBeLessThan(5_000);
    expect(stream.error).toBeUndefined();
    expect(stream.response).toMatchObject({ finishReason: 'completed', usage: { input: 30, output: 20 } });
    expect(stream.warnings).toEqual([]);
  });

  it("InvokeModel: Claude's message_stop arrived, the server holds the connection open", async () => {
    const events = [
      {
        type: 'message_start',
        message: { id: 'msg_bdrk_held', model: 'claude-sonnet-4-5', usage: { input_tokens: 30 } },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 20 } },
      {
        type: 'message_stop',
        'amazon-bedrock-invocationMetrics': { inputTokenCount: 30, outputTokenCount: 20 },
      },
    ];
    const began = performance.now();
    const stream = await streamOf(Buffer.concat(events.map(chunk)), {
      hold: true,
      protocol: 'invoke',
      idleTimeout: 10_000,
    });
    expect(performance.now() - began).toBeLessThan(5_000);
    expect(stream.error).toBeUndefined();
    expect(stream.response).toMatchObject({
      finishReason: 'completed',
      content: [{ type: 'text', text: 'Hi' }],
    });
    expect(stream.warnings).toEqual([]);
  });
});
