/**
 * Google's error object written raw into a 200 Gemini stream (lines that are no SSE field, which
 * SSE ignores), on the Gemini API and on Vertex: the classified error it names — the recorded 429
 * a rate limit, `UNAVAILABLE` a server error — with the text received before it kept. It read as
 * `stream_truncated` (the body ended before a chunk with a finishReason), as Claude's stream on
 * Vertex once did (providers/vertex/stream.test.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../core/logger.ts';
import { collectStream } from '../../testing/collect.ts';
import { listRecorded } from '../../../test/support/fixtures.ts';
import { createVertex } from '../vertex/index.ts';
import { createGemini } from './index.ts';

const recorded = (name: string) =>
  readFileSync(
    listRecorded('google').find((path) => path.endsWith(`/${name}`))!,
    'utf8',
  );

/** The recorded Gemini stream's first chunk (text, no finishReason yet), as an SSE event. */
const firstChunk = `data: ${recorded('google-text.chunks.txt').split('\n')[0]}\n\n`;
const firstText = 'There are **3**';
/** Google's recorded 429 body, pretty-printed as Google writes it. */
const google429 = recorded('google-429-retry-info.json');
const google503 = {
  error: { code: 503, message: 'The service is currently unavailable.', status: 'UNAVAILABLE' },
};

const hosts = [
  [
    'the Gemini API',
    'gemini:gemini-2.5-flash',
    (fetch: typeof globalThis.fetch) =>
      createGemini({ apiKey: 'gemini-key-0123', fetch, maxRetries: 0, logger: silentLogger, env: {} }),
  ],
  [
    'Vertex',
    'vertex:gemini-2.5-flash',
    (fetch: typeof globalThis.fetch) =>
      createVertex({
        project: 'p',
        location: 'us-central1',
        getAccessToken: async () => 'ya29.raw-lines',
        env: {},
        fetch,
        maxRetries: 0,
        logger: silentLogger,
      }),
  ],
] as const;

describe.each(hosts)("Google's error object in Gemini's stream on %s", (_host, model, create) => {
  async function stream(body: string) {
    const fetch = (async () =>
      new Response(body, {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
      })) as typeof globalThis.fetch;
    return collectStream(
      create(fetch).stream({
        model,
        transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
        maxOutputTokens: 64,
      }),
    );
  }

  it.each([
    ['a data: event', `data: ${JSON.stringify(JSON.parse(google429))}\n\n`],
    ['raw lines, pretty-printed', google429],
    ['one raw line', `${JSON.stringify(JSON.parse(google429))}\n`],
    ['a raw list', `${JSON.stringify([JSON.parse(google429)], null, 2)}\n`],
  ])('as %s: the rate limit it is, its message and the text received kept', async (_form, error) => {
    const { error: thrown, response } = await stream(firstChunk + error);
    expect(thrown).toMatchObject({
      errorClass: 'rate_limit',
      providerCode: 'RESOURCE_EXHAUSTED',
      retryable: true,
    });
    expect((thrown as Error).message).toContain('You exceeded your current quota, please check your plan.');
    expect(response?.finishReason).toBe('error');
    expect(response?.content).toMatchObject([{ type: 'text', text: firstText }]);
  });

  it.each([
    ['pretty-printed', google429],
    ['one line', `${JSON.stringify(JSON.parse(google429))}\n`],
  ])(
    '%s, split across two reads at every position: classified whole, its message kept',
    async (_form, error) => {
      // eventsource-parser drops a partial line that cannot begin an SSE field: the decoder holds it.
      const encoder = new TextEncoder();
      for (let at = 1; at < error.length; at++) {
        const pieces = [firstChunk + error.slice(0, at), error.slice(at)];
        const fetch = (async () =>
          new Response(
            new ReadableStream<Uint8Array>({
              pull(controller) {
                const piece = pieces.shift();
                if (piece === undefined) controller.close();
                else controller.enqueue(encoder.encode(piece));
              },
            }),
            { status: 200, headers: { 'content-type': 'text/event-stream' } },
          )) as typeof globalThis.fetch;
        const { error: thrown } = await collectStream(
          create(fetch).stream({
            model,
            transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
            maxOutputTokens: 64,
          }),
        );
        expect(thrown, `split at ${at}`).toMatchObject({
          errorClass: 'rate_limit',
          providerCode: 'RESOURCE_EXHAUSTED',
        });
        expect((thrown as Error).message, `split at ${at}`).toContain('You exceeded your current quota');
      }
    },
  );

  it('UNAVAILABLE as a raw line is a server error', async () => {
    const { error } = await stream(`${firstChunk}${JSON.stringify(google503)}\n`);
    expect(error).toMatchObject({ errorClass: 'server_error', providerCode: 'UNAVAILABLE' });
  });

  it('raw lines that are no error leave a body without a finishReason stream_truncated', async () => {
    const { error, response } = await stream(`${firstChunk}{"note": "not an error"}\nplain words\n`);
    expect(error).toMatchObject({ errorClass: 'network', providerCode: 'stream_truncated' });
    expect(response?.content).toMatchObject([{ type: 'text', text: firstText }]);
  });
});
