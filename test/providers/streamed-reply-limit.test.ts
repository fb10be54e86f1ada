/**
 * A hostile upstream that streams without end in small events — each under the SSE event limit —
 * is cut at the streamed-reply limit with a classified `response_too_large`, whatever the deltas
 * are (tool arguments, text), instead of holding them until V8 aborts the process.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { maxStreamedChars } from '../../src/core/stream-builder.ts';
import { createOpenAI } from '../../src/providers/openai-chat/index.ts';

const piece = 'x'.repeat(1024 * 1024);
const chunk = (delta: Record<string, unknown>) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
let server: Server;
let baseURL: string;
let kind: 'tool' | 'text' = 'tool';
let written = 0;
beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    written = 0;
    if (kind === 'tool')
      response.write(
        chunk({
          tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }],
        }),
      );
    // Well past the limit, unless the client stops reading (backpressure) and goes.
    const more = () => {
      while (written < maxStreamedChars / piece.length + 16) {
        written++;
        const delta =
          kind === 'tool'
            ? { tool_calls: [{ index: 0, function: { arguments: piece } }] }
            : { content: piece };
        if (!response.write(chunk(delta))) {
          response.once('drain', more);
          return;
        }
      }
      response.end('data: [DONE]\n\n');
    };
    response.on('close', () => response.removeAllListeners('drain'));
    more();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it.each(['tool', 'text'] as const)(
  'endless %s deltas end the stream with response_too_large at the limit, the content before it kept',
  async (which) => {
    kind = which;
    const adapter = createOpenAI({ baseURL, apiKey: 'sk-test', maxRetries: 0 });
    const stream = adapter.stream({
      model: 'openai:gpt-4.1-mini',
      transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
      maxOutputTokens: 64,
    });
    let deltas = 0;
    let failure: unknown;
    try {
      for await (const event of stream) if (event.type.endsWith('-delta')) deltas++;
    } catch (error) {
      failure = error;
    }
    const error =
      failure ??
      (await stream.result().then(
        () => undefined,
        (rejected: unknown) => rejected,
      ));
    expect(error).toMatchObject({
      errorClass: 'server_error',
      providerCode: 'response_too_large',
      retryable: false,
    });
    expect(String((error as Error).message)).toContain(`${maxStreamedChars} characters`);
    expect(deltas).toBe(maxStreamedChars / piece.length);
    // The upstream was not read to its end.
    expect(written).toBeLessThan(maxStreamedChars / piece.length + 16);
  },
  30_000,
);
