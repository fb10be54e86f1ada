/**
 * Traps a new user met when trying the package (issue #19): each is written the way a user would
 * write it, against the emulator, and must work (or fail with a message that says what to do).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSwitchyard, tool, userText } from 'switchyard-ai';
import { toolOutput } from 'switchyard-ai/agent';
import { startEmulator, type Emulator } from 'switchyard-ai/testing';
import type { ToolCallId } from '../../src/core/ids.ts';
import { createMemoryLogger } from '../../src/core/logger.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

const quiet = () => ({ logger: createMemoryLogger() });

describe('createSwitchyard({ env }) is the environment', () => {
  it('accepts process.env as it is', async () => {
    const sy = createSwitchyard({ env: process.env, ...quiet() });
    expect(sy.resolve('sonnet').provider).toBe('anthropic');
    await sy.close();
  });

  it('reads base URLs from env, not from process.env', async () => {
    expect(process.env.ANTHROPIC_BASE_URL).toBeUndefined();
    const sy = createSwitchyard({
      env: { ANTHROPIC_API_KEY: 'test-key-env', ANTHROPIC_BASE_URL: emulator.url },
      ...quiet(),
    });
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'from env' }] });
    const reply = await sy.complete({ model: 'anthropic:claude-sonnet-4-5', transcript: [userText('Hi')] });
    expect(reply.text).toBe('from env');
    await sy.close();
  });

  it('reads proxy variables from env, not from process.env', async () => {
    const seen: string[] = [];
    const proxy: Server = createServer((request, response) => {
      seen.push(`${request.method} ${request.url}`);
      response.writeHead(502).end();
    });
    // undici tunnels through the proxy (CONNECT) or sends it the absolute URL: either names the host.
    proxy.on('connect', (request, socket) => {
      seen.push(`${request.method} ${request.url}`);
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const port = (proxy.address() as AddressInfo).port;
    const sy = createSwitchyard({
      env: { OPENAI_API_KEY: 'test-key-proxy', HTTP_PROXY: `http://127.0.0.1:${port}` },
      config: {
        adapters: { openai: { type: 'openai', base_url: 'http://api.example.test/v1', max_retries: 0 } },
      },
      ...quiet(),
    });
    await expect(
      sy.complete({ model: 'openai:gpt-4.1-mini', transcript: [userText('Hi')] }),
    ).rejects.toThrow();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(
      /^(CONNECT api\.example\.test:80|POST http:\/\/api\.example\.test\/v1\/chat\/completions)$/,
    );
    await sy.close();
    await new Promise((resolve) => proxy.close(resolve));
  });
});

describe('a config base_url with or without the base path', () => {
  it.each([
    ['a bare origin gets the protocol base path', (url: string) => url],
    ['a trailing slash is the same origin', (url: string) => `${url}/`],
    ['the base path written out is kept', (url: string) => `${url}/v1`],
  ])('%s', async (_name, baseURL) => {
    const sy = createSwitchyard({
      env: { OPENAI_API_KEY: 'test-key-base' },
      config: { adapters: { openai: { type: 'openai', base_url: baseURL(emulator.url) } } },
      ...quiet(),
    });
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'based' }] });
    expect((await sy.complete({ model: 'openai:gpt-4.1-mini', transcript: [userText('Hi')] })).text).toBe(
      'based',
    );
    await sy.close();
  });
});

describe('a mistyped model name', () => {
  const sy = createSwitchyard({ env: {}, ...quiet() });
  it.each([
    ['sonet', 'sonnet'],
    ['gtp-5', 'gpt-5'],
  ])('%s suggests %s', (typo, meant) => {
    expect(() => sy.resolve(typo)).toThrow(`(did you mean "${meant}"?)`);
  });
  it('a name like nothing known gets no suggestion', () => {
    expect(() => sy.resolve('zzzz-qqqq')).toThrow(
      /unknown model "zzzz-qqqq": no model, alias or glob matches it$/,
    );
  });
});

describe('sy.models() without keys', () => {
  it("shows each model's real facts, and whether its provider is configured separately", async () => {
    const bare = createSwitchyard({ env: {}, ...quiet() });
    const keyed = createSwitchyard({ env: { ANTHROPIC_API_KEY: 'test-key-models' }, ...quiet() });
    const find = (sy: typeof bare) =>
      sy.models().find((model) => model.id === 'anthropic:claude-sonnet-4-5')!;
    expect(find(bare).configured).toBe(false);
    expect(find(keyed).configured).toBe(true);
    expect(find(bare).facts).toEqual(find(keyed).facts);
    expect(find(bare).facts).toMatchObject({ tools: true, contextWindow: 200_000 });
    await bare.close();
    await keyed.close();
  });
});

describe("calling a tool's execute by hand", () => {
  it('needs no context, and addToolResults takes what it returns (an error result stays an error)', async () => {
    const weather = tool({
      name: 'weather',
      input: z.object({ city: z.string() }),
      execute: ({ city }, context) =>
        city === 'Atlantis' ? toolOutput.error('no such city') : { city, sky: 'clear', turn: context.turn },
    });
    const sy = createSwitchyard({ env: {}, ...quiet() });
    const conversation = sy.conversation({ model: 'sonnet', tools: [weather] });
    // The calls the results answer (a reply's, usually): a result for a call never made is refused.
    conversation.transcript.push({
      kind: 'assistant',
      parts: [
        { type: 'tool-call', id: 'c1' as ToolCallId, name: 'weather', input: { city: 'Oslo' } },
        { type: 'tool-call', id: 'c2' as ToolCallId, name: 'weather', input: { city: 'Atlantis' } },
      ],
    });
    conversation.addToolResults([
      { call: { id: 'c1' as ToolCallId, name: 'weather' }, output: await weather.execute({ city: 'Oslo' }) },
      {
        call: { id: 'c2' as ToolCallId, name: 'weather' },
        output: await weather.execute({ city: 'Atlantis' }),
      },
    ]);
    expect(conversation.transcript.at(-1)).toEqual({
      kind: 'tool',
      parts: [
        {
          type: 'tool-result',
          callId: 'c1',
          name: 'weather',
          output: { type: 'json', value: { city: 'Oslo', sky: 'clear', turn: 0 } },
          isError: false,
        },
        {
          type: 'tool-result',
          callId: 'c2',
          name: 'weather',
          output: { type: 'text', text: 'no such city' },
          isError: true,
        },
      ],
    });
    await sy.close();
  });
});
