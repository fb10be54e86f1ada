/**
 * Claude on Vertex (`:streamRawPredict`) with Google's front end reporting a failure inside the
 * 200 stream in its own envelope (`{"error":{"code","message","status"}}`, the recorded Google 429
 * here): the classified error it is, its message and the content received kept — not a
 * `stream_truncated` (which it was: the Anthropic parser skipped the event without a `type`, SSE
 * ignored the raw lines, and the body then ended before `message_stop`).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../core/logger.ts';
import { collectStream } from '../../testing/collect.ts';
import { listRecorded } from '../../../test/support/fixtures.ts';
import { createVertex } from './index.ts';

const recorded = (folder: string, name: string) =>
  readFileSync(
    listRecorded(folder).find((path) => path.endsWith(`/${name}`))!,
    'utf8',
  );

/** The recorded Claude stream's first events (up to its first text delta), as SSE. */
const claudeHead = recorded('anthropic', 'anthropic-text.chunks.txt')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .slice(0, 4)
  .map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`)
  .join('');
/** Google's recorded 429 body, pretty-printed as Google writes it. */
const google429 = recorded('google', 'google-429-retry-info.json');
const google503 = {
  error: { code: 503, message: 'The service is currently unavailable.', status: 'UNAVAILABLE' },
};

async function streamClaude(body: string) {
  const fetch = (async () =>
    new Response(body, {
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
    })) as typeof globalThis.fetch;
  const adapter = createVertex({
    project: 'p',
    location: 'us-east5',
    getAccessToken: async () => 'ya29.stream-test',
    env: {},
    fetch,
    maxRetries: 0,
    logger: silentLogger,
  });
  return collectStream(
    adapter.stream({
      model: 'vertex:claude-sonnet-4-5@20250929',
      transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
      maxOutputTokens: 64,
    }),
  );
}

describe("Google's error object inside Claude's stream on Vertex", () => {
  it.each([
    ['a data: event', `data: ${JSON.stringify(JSON.parse(google429))}\n\n`],
    ['an event: error', `event: error\ndata: ${JSON.stringify(JSON.parse(google429))}\n\n`],
    ['a data: event holding a list', `data: ${JSON.stringify([JSON.parse(google429)])}\n\n`],
    ['raw lines, pretty-printed', google429],
    ['one raw line', `${JSON.stringify(JSON.parse(google429))}\n`],
  ])('as %s: the rate limit it is, its message and the text received kept', async (_form, error) => {
    const { error: thrown, response } = await streamClaude(claudeHead + error);
    expect(thrown).toMatchObject({
      errorClass: 'rate_limit',
      providerCode: 'RESOURCE_EXHAUSTED',
      retryable: true,
    });
    expect((thrown as Error).message).toContain('You exceeded your current quota, please check your plan.');
    expect(response?.finishReason).toBe('error');
    expect(response?.content).toMatchObject([{ type: 'text', text: 'Hello' }]);
  });

  it('UNAVAILABLE (503) is a server error', async () => {
    const { error } = await streamClaude(`${claudeHead}data: ${JSON.stringify(google503)}\n\n`);
    expect(error).toMatchObject({ errorClass: 'server_error', providerCode: 'UNAVAILABLE' });
    expect((error as Error).message).toContain('The service is currently unavailable.');
  });

  it("Claude's own error event keeps Anthropic's classification", async () => {
    const overloaded = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
    const { error } = await streamClaude(
      `${claudeHead}event: error\ndata: ${JSON.stringify(overloaded)}\n\n`,
    );
    expect(error).toMatchObject({ errorClass: 'server_error', providerCode: 'overloaded_error' });
  });

  it('a body that ends before message_stop with no error in it is still stream_truncated', async () => {
    const { error, response } = await streamClaude(`${claudeHead}{"note": "not an error"}\n`);
    expect(error).toMatchObject({ providerCode: 'stream_truncated' });
    expect(response?.content).toMatchObject([{ type: 'text', text: 'Hello' }]);
  });
});

describe('raw lines that are not an error, from a hostile front end', () => {
  // `{}`, 16,000 blanks, then a letter: a line that opens like JSON and never closes a value.
  // Whether it may close one was asked of a regular expression that backtracks over the blanks:
  // ~105 ms a line, 800 of them held the event loop past this test's time limit (20 s).
  const line = `{}${' '.repeat(16_000)}x\n`;

  it('cost their length once: the stream ends as truncated in time, its text kept', async () => {
    const { error, response } = await streamClaude(claudeHead + line.repeat(800));
    expect(error).toMatchObject({ providerCode: 'stream_truncated' });
    expect(response?.content).toMatchObject([{ type: 'text', text: 'Hello' }]);
  });

  it("are not joined to Google's error after them: still the rate limit", async () => {
    const { error } = await streamClaude(claudeHead + line + google429);
    expect(error).toMatchObject({ errorClass: 'rate_limit', providerCode: 'RESOURCE_EXHAUSTED' });
  });
});
