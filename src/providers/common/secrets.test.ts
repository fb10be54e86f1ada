/** One redaction module: keys never reach an error, a log line or a cassette, whatever the server sends. */
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryLogger, consoleLogger } from '../../core/logger.ts';
import { redactSecrets, redactUrl } from '../../core/redaction.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { userText } from '../../core/transcript.ts';
import { createRedaction, redactText, secretHeaderNames } from '../../testing/cassette/redact.ts';
import { collectStream } from '../../testing/collect.ts';
import { redactHeaderValues } from '../../transport/http.ts';
import { createAnthropic } from '../anthropic/index.ts';
import { createOpenAICompatible, presets } from '../openai-compatible/index.ts';
import { redactSecrets as redactProviderText } from './errors.ts';

const request: CanonicalRequest = { model: 'model-x', transcript: [userText('hi')], maxOutputTokens: 10 };
const keys = {
  // Built from pieces so that the source itself holds nothing shaped like a real key.
  anthropic: ['sk', 'ant', 'api03', 'AbCdEfGhIjKlMnOpQrStUv'].join('-'),
  openai: 'sk-proj-AbCdEfGhIjKlMnOpQrStUv0123',
  google: ['AIza', 'SyAbCdEfGhIjKlMnOpQrStUvWxYz0123456'].join(''),
  groq: 'gsk_AbCdEfGhIjKlMnOpQrStUvWxYz012345',
  xai: 'xai-AbCdEfGhIjKlMnOpQrStUvWxYz012345',
};

let server: Server | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await new Promise<void>((resolve) => {
    server?.closeAllConnections();
    if (server === undefined) resolve();
    else server.close(() => resolve());
  });
  server = undefined;
});

async function serve(status: number, contentType: string, body: string): Promise<string> {
  server = createServer((_incoming, response) => {
    response.writeHead(status, { 'content-type': contentType });
    response.end(body);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe('one list of key shapes for transport errors, provider errors, the logger and cassettes', () => {
  it.each(Object.entries(keys))('a %s key is removed by every redaction path', (_provider, key) => {
    const text = `token ${key} leaked`;
    const cassette = createRedaction(secretHeaderNames(), []);
    const results = [
      redactSecrets(text),
      redactProviderText(text, undefined),
      redactHeaderValues(text, {}),
      redactText(text, cassette),
      redactUrl(`https://host/v1?x=${key}`),
    ];
    for (const result of results) expect(result).not.toContain(key.slice(4, 16));
  });

  it('the default logger writes no key shape, in the message or in the fields', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    consoleLogger.warn(`saw ${keys.groq}`, { nested: { value: [keys.xai] } });
    const line = String(write.mock.calls[0]?.[0]);
    expect(line).not.toContain('gsk_');
    expect(line).not.toContain('xai-Ab');
    expect(line).toContain('[REDACTED]');
  });
});

describe('no provider payload reaches an error or a log line unredacted', () => {
  it('a message cut inside the key loses the piece at its end (no pattern could match it)', () => {
    const key = 'house.secret.ShapelessKey0123456789';
    expect(redactProviderText(`denied for ${key.slice(0, 9)}`, key)).toBe('denied for [REDACTED]');
    expect(redactProviderText(`denied for ${key} and more`, key)).toBe('denied for [REDACTED] and more');
    expect(redactProviderText('a message ending in hou', key)).toBe('a message ending in hou');
  });

  it('a malformed data line starting with the key: neither message nor cause holds any of it', async () => {
    const baseURL = await serve(200, 'text/event-stream', `data: ${keys.anthropic} and more\n\n`);
    const adapter = createAnthropic({ baseURL, apiKey: keys.anthropic, maxRetries: 0 });
    const { error } = await collectStream(adapter.stream({ ...request, model: 'claude-sonnet-4-5' }));
    expect(error).toMatchObject({ errorClass: 'server_error', providerCode: 'invalid_stream' });
    const exposed = `${(error as Error).message} ${String((error as Error).cause)} ${JSON.stringify(error)}`;
    expect(exposed).not.toMatch(/sk-ant|AbCdEf/);
  });

  it('a provider error body echoing a Groq key is redacted in message and providerMessage', async () => {
    const body = JSON.stringify({
      error: { message: `Invalid API Key: ${keys.groq}`, code: 'invalid_api_key' },
    });
    const baseURL = await serve(401, 'application/json', body);
    const groq = createOpenAICompatible(presets.groq, {
      baseURL,
      apiKey: 'gsk_other0000000000000000000',
      maxRetries: 0,
    });
    const error = (await groq.complete(request).catch((caught: unknown) => caught)) as Error & {
      providerMessage?: string;
    };
    expect(error).toMatchObject({ errorClass: 'auth' });
    expect(`${error.message} ${error.providerMessage}`).not.toContain('AbCdEf');
  });

  it('an unknown Anthropic event type carrying a key is logged neither verbatim nor unredacted', async () => {
    const events = [
      {
        type: 'message_start',
        message: { id: 'msg_1', model: 'claude-sonnet-4-5', usage: { input_tokens: 1, output_tokens: 0 } },
      },
      { type: `${keys.xai} <script>` },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } },
      { type: 'message_stop' },
    ];
    const baseURL = await serve(
      200,
      'text/event-stream',
      events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(''),
    );
    const logger = createMemoryLogger();
    const adapter = createAnthropic({ baseURL, apiKey: keys.anthropic, maxRetries: 0, logger });
    await collectStream(adapter.stream({ ...request, model: 'claude-sonnet-4-5' }));
    const logged = JSON.stringify(logger.entries);
    expect(logged).toContain('unknown event type');
    expect(logged).not.toContain('AbCdEf');
    expect(logged).not.toContain('<script>');
  });
});
