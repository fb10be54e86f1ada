/** Keys, base URLs and proxies: one resolver and one transport behaviour for every adapter. */
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Adapter } from '../../core/adapter.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { userText } from '../../core/transcript.ts';
import { collectStream } from '../../testing/collect.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { createAnthropic } from '../anthropic/index.ts';
import { createGemini } from '../gemini/index.ts';
import { createOpenAI } from '../openai-chat/index.ts';
import { createOpenAICompatible, type OpenAICompatibleOptions, presets } from '../openai-compatible/index.ts';

const createGroq = (options?: OpenAICompatibleOptions) => createOpenAICompatible(presets.groq, options);
const createXai = (options?: OpenAICompatibleOptions) => createOpenAICompatible(presets.xai, options);

const request: CanonicalRequest = { model: 'model-x', transcript: [userText('hi')], maxOutputTokens: 10 };
const keyVariables = [
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GROQ_API_KEY',
  'XAI_API_KEY',
];
const proxyVariables = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'];

let emulator: Emulator;
beforeEach(async () => {
  emulator = await startEmulator();
  for (const name of [...keyVariables, ...proxyVariables]) vi.stubEnv(name, '');
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await emulator.close();
});

const factories: Array<[string, (options: { baseURL?: string; apiKey?: string }) => Adapter, RegExp]> = [
  ['anthropic', createAnthropic, /ANTHROPIC_API_KEY/],
  ['openai', createOpenAI, /OPENAI_API_KEY/],
  ['gemini', createGemini, /GEMINI_API_KEY or GOOGLE_API_KEY/],
  ['groq', createGroq, /GROQ_API_KEY/],
  ['xai', createXai, /XAI_API_KEY/],
];

describe('one API-key resolver', () => {
  it.each(factories)(
    '%s: creating without a key never throws; stream, complete and listModels fail before HTTP with not_configured',
    async (_name, create, variable) => {
      let adapter: Adapter | undefined;
      expect(() => {
        adapter = create({ baseURL: emulator.url });
      }).not.toThrow();
      const expected = {
        errorClass: 'auth',
        providerCode: 'not_configured',
        message: expect.stringMatching(variable),
      };
      await expect(adapter!.complete(request)).rejects.toMatchObject(expected);
      const { events, error } = await collectStream(adapter!.stream(request));
      expect(error).toMatchObject(expected);
      expect(events.at(-1)).toMatchObject({ type: 'finish', response: { finishReason: 'error' } });
      await expect(adapter!.listModels()).rejects.toMatchObject(expected);
      expect(emulator.requests).toHaveLength(0);
      await adapter!.close();
    },
  );

  it('a blank key counts as missing, from the option and from the environment', async () => {
    vi.stubEnv('OPENAI_API_KEY', '   ');
    await expect(createOpenAI({ baseURL: emulator.url, apiKey: '' }).complete(request)).rejects.toMatchObject(
      {
        providerCode: 'not_configured',
      },
    );
  });

  it('a credential header of the caller counts as configured (a gateway adds the real key)', async () => {
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
    const gemini = createGemini({ baseURL: emulator.url });
    const headers = { 'x-goog-api-key': 'gateway-issued-token' };
    await expect(
      gemini.complete({ ...request, model: 'gemini-2.5-flash' }, { headers }),
    ).resolves.toMatchObject({
      content: [{ type: 'text', text: 'ok' }],
    });
  });

  it('the environment key is read per adapter (GEMINI_API_KEY, else GOOGLE_API_KEY)', async () => {
    vi.stubEnv('GOOGLE_API_KEY', 'google-fallback-key');
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
    await createGemini({ baseURL: emulator.url }).complete({ ...request, model: 'gemini-2.5-flash' });
    expect(emulator.requests[0]?.headers['x-goog-api-key']).toBe('google-fallback-key');
  });
});

describe('base URLs from the conventional environment variables', () => {
  it('ANTHROPIC_BASE_URL (host, /v1 appended as in the SDK)', async () => {
    vi.stubEnv('ANTHROPIC_BASE_URL', `${emulator.url}/`);
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
    await createAnthropic({ apiKey: 'anthropic-test-key' }).complete({
      ...request,
      model: 'claude-sonnet-4-5',
    });
    expect(emulator.requests[0]?.path).toBe('/v1/messages');
  });

  it('OPENAI_BASE_URL and GROQ_BASE_URL (used as given)', async () => {
    vi.stubEnv('OPENAI_BASE_URL', `${emulator.url}/v1`);
    vi.stubEnv('GROQ_BASE_URL', `${emulator.url}/groq/v1`);
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
    await createOpenAI({ apiKey: 'openai-test-key' }).complete({ ...request, model: 'gpt-4.1-mini' });
    await createGroq({ apiKey: 'groq-test-key' }).complete({ ...request, model: 'llama-3.3-70b-versatile' });
    expect(emulator.requests.map((recorded) => recorded.path)).toEqual([
      '/v1/chat/completions',
      '/groq/v1/chat/completions',
    ]);
  });

  it('GEMINI_BASE_URL (host, /v1beta appended); an explicit baseURL wins over the environment', async () => {
    vi.stubEnv('GEMINI_BASE_URL', emulator.url);
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
    await createGemini({ apiKey: 'gemini-test-key' }).complete({ ...request, model: 'gemini-2.5-flash' });
    expect(emulator.requests[0]?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    vi.stubEnv('OPENAI_BASE_URL', 'http://127.0.0.1:9/v1');
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
    await createOpenAI({ apiKey: 'k', baseURL: `${emulator.url}/v1` }).complete({
      ...request,
      model: 'gpt-4.1',
    });
    expect(emulator.requests).toHaveLength(2);
  });
});

/** A CONNECT proxy on loopback that records the targets it tunnels to. */
async function startProxy(): Promise<{ url: string; targets: string[]; close: () => Promise<void> }> {
  const targets: string[] = [];
  const server: Server = createServer((_request, response) => response.writeHead(405).end());
  server.on('connect', (connectRequest, clientSocket, head) => {
    targets.push(connectRequest.url ?? '');
    const [host, port] = (connectRequest.url ?? '').split(':');
    const upstream = connect(Number(port), host!, () => {
      clientSocket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(clientSocket);
      clientSocket.pipe(upstream);
    });
    upstream.on('error', () => clientSocket.destroy());
    clientSocket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    targets,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('the default transport honours the platform proxy settings', () => {
  it('HTTP_PROXY routes calls through the proxy; NO_PROXY exempts a host', async () => {
    const proxy = await startProxy();
    try {
      vi.stubEnv('HTTP_PROXY', proxy.url);
      emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'via proxy' }] });
      const proxied = createOpenAI({ apiKey: 'k', baseURL: `${emulator.url}/v1`, maxRetries: 0 });
      await expect(proxied.complete({ ...request, model: 'gpt-4.1' })).resolves.toMatchObject({
        content: [{ type: 'text', text: 'via proxy' }],
      });
      expect(proxy.targets).toEqual([new URL(emulator.url).host]);
      await proxied.close();

      vi.stubEnv('NO_PROXY', '127.0.0.1');
      emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'direct' }] });
      const direct = createOpenAI({ apiKey: 'k', baseURL: `${emulator.url}/v1`, maxRetries: 0 });
      await direct.complete({ ...request, model: 'gpt-4.1' });
      expect(proxy.targets).toHaveLength(1);
      await direct.close();
    } finally {
      await proxy.close();
    }
  });

  it('proxy: false ignores the environment; proxy: URL sets one explicitly', async () => {
    const proxy = await startProxy();
    try {
      vi.stubEnv('HTTP_PROXY', 'http://127.0.0.1:9');
      emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'a' }] });
      emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'b' }] });
      const none = createOpenAI({ apiKey: 'k', baseURL: `${emulator.url}/v1`, proxy: false, maxRetries: 0 });
      await none.complete({ ...request, model: 'gpt-4.1' });
      const explicit = createOpenAI({
        apiKey: 'k',
        baseURL: `${emulator.url}/v1`,
        proxy: proxy.url,
        maxRetries: 0,
      });
      await explicit.complete({ ...request, model: 'gpt-4.1' });
      expect(proxy.targets).toHaveLength(1);
      await Promise.all([none.close(), explicit.close()]);
    } finally {
      await proxy.close();
    }
  });
});
