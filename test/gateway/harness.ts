/** Test support for the gateway: an emulator as every upstream, a gateway over it, and the official SDKs as clients. */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { createMemoryLogger } from 'switchyard-ai';
import type { Gateway, GatewayServer, GatewayStore } from 'switchyard-ai/gateway';
import { type Emulator, protocolError } from 'switchyard-ai/testing';
import type { EmulatorProtocolId, ServedRequest } from '../../src/testing/emulator/types.ts';
import { createEmulatedGateway, startEmulatedGateway } from '../support/emulated.ts';
import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';

/** The four wire protocols the gateway matrix serves as upstreams (the cloud transports are covered by their own suites). */
export type UpstreamProtocol = Extract<
  EmulatorProtocolId,
  'anthropic-messages' | 'openai-chat' | 'openai-responses' | 'gemini'
>;

/** The upstreams, by emulator protocol: adapter name and the alias that routes to it. */
export const upstreams: Record<UpstreamProtocol, { alias: string; id: string }> = {
  'anthropic-messages': { alias: 'up-anthropic', id: 'anthropic:claude-sonnet-4-5' },
  'openai-chat': { alias: 'up-chat', id: 'openai:gpt-5-mini' },
  'openai-responses': { alias: 'up-responses', id: 'responses:gpt-5-mini' },
  gemini: { alias: 'up-gemini', id: 'gemini:gemini-2.5-flash' },
};

/** A running emulator + gateway pair. */
export interface GatewayHarness {
  emulator: Emulator;
  server: GatewayServer;
  /** The gateway's Hono app (`app.request` serves a request without the HTTP server). */
  app: Gateway['app'];
  /** The gateway's front door (to call the upstream directly for comparison). */
  switchyard: Gateway['switchyard'];
  accessLog: Array<Record<string, unknown>>;
  /** Every upstream response the emulator finished (or saw cut), in order. */
  served: ServedRequest[];
  /** Resolves with the next upstream response the emulator finishes or sees cut. */
  nextServed(): Promise<ServedRequest>;
  logger: ReturnType<typeof createMemoryLogger>;
  /** POSTs `body` (JSON text, or a value written as JSON) to the gateway's server at `path`. */
  post(path: string, body: string | object, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

/**
 * A gateway (not listening: `gateway.app.request`) over `store`, its upstreams on the emulator at
 * `emulatorUrl`: `store-chat` (OpenAI Chat) and `store-responses` (OpenAI Responses), both gpt-5-mini.
 */
export function gatewayWithStore(emulatorUrl: string, store: GatewayStore): Gateway {
  return createEmulatedGateway(emulatorUrl, {
    store,
    logger: { warn: () => {} },
    adapters: { openai: 'openai', responses: 'openai-responses' },
    apiKey: 'upstream-key',
    config: {
      models: {
        'openai:gpt-5-mini': { aliases: ['store-chat'] },
        'responses:gpt-5-mini': { aliases: ['store-responses'] },
      },
    },
  });
}

/** The headers an Anthropic SDK client sends (its key and version): `harness.post(path, body, anthropicClient)`. */
export const anthropicClient = { 'x-api-key': 'client-key', 'anthropic-version': '2023-06-01' };

/** An emulator script answering `text` with small usage. */
export const scriptedText = (text = 'Hello.') => ({
  type: 'scripted' as const,
  content: [{ type: 'text' as const, text }],
  usage: { input: 3, output: 2 },
});

/**
 * Starts the emulator and a gateway routing the `up-*` aliases to each upstream protocol.
 * `adapterOptions`: an adapter's `options` (`{ openai: { strictTools: true } }`), by adapter name;
 * `models`: more model entries (aliases, fallbacks) beside the harness's own; `routing`: the
 * circuit breaker's policy (by default no circuit opens: `failure_threshold` 1000).
 */
export async function startGatewayHarness(
  gateway: Record<string, unknown> = {},
  adapterOptions: Record<string, Record<string, unknown>> = {},
  models: Record<string, Record<string, unknown>> = {},
  routing: Record<string, unknown> = {},
): Promise<GatewayHarness> {
  const served: ServedRequest[] = [];
  let waiters: Array<(served: ServedRequest) => void> = [];
  const options = (name: string) => (name in adapterOptions ? { options: adapterOptions[name] } : {});
  const logger = createMemoryLogger();
  const accessLog: Array<Record<string, unknown>> = [];
  const {
    emulator,
    gateway: instance,
    server,
    close,
  } = await startEmulatedGateway({
    emulator: {
      onResponse: (entry) => {
        served.push(entry);
        const current = waiters;
        waiters = [];
        for (const resolve of current) resolve(entry);
      },
    },
    logger,
    accessLog: (line) => accessLog.push(line),
    adapters: {
      anthropic: { type: 'anthropic', ...options('anthropic') },
      openai: { type: 'openai', ...options('openai') },
      responses: 'openai-responses',
      gemini: { type: 'gemini', ...options('gemini') },
    },
    apiKey: 'upstream-secret-key',
    config: {
      models: {
        'anthropic:claude-sonnet-4-5': { aliases: ['up-anthropic'] },
        'openai:gpt-5-mini': { aliases: ['up-chat'] },
        'responses:gpt-5-mini': {
          aliases: ['up-responses'],
          capabilities: { reasoning: true, structuredOutput: true },
        },
        'gemini:gemini-2.5-flash': { aliases: ['up-gemini'] },
        'gemini:gemini-3-pro-preview': { aliases: ['up-gemini3'] },
        'anthropic:claude-haiku-4-5': { aliases: ['up-fallback'], fallbacks: ['openai:gpt-5-mini'] },
        ...models,
      },
      routing: { failure_threshold: 1000, ...routing },
      gateway,
    },
  });
  return {
    emulator,
    server,
    app: instance.app,
    switchyard: instance.switchyard,
    accessLog,
    served,
    nextServed: () => new Promise((resolve) => waiters.push(resolve)),
    logger,
    post: (path, body, headers = {}) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        body: typeof body === 'string' ? body : JSON.stringify(body),
        headers: { 'content-type': 'application/json', ...headers },
      }),
    close,
  };
}

/**
 * A file's gateway harness over `gateway` (its `gateway:` settings): started before the file's
 * tests, its emulator's script cleared before each, closed after them. The value stands for the
 * harness the hooks started (read it inside a test, not at the file's top level).
 */
export function useGatewayHarness(gateway: Record<string, unknown> = {}): GatewayHarness {
  let current: GatewayHarness | undefined;
  beforeAll(async () => {
    current = await startGatewayHarness(gateway);
  });
  beforeEach(() => {
    current?.emulator.clear();
  });
  afterAll(async () => {
    await current?.close();
  });
  return new Proxy({} as GatewayHarness, {
    get: (_, name) => {
      if (current === undefined) throw new Error('the gateway harness is used before its file started it');
      return Reflect.get(current, name) as unknown;
    },
  });
}

/**
 * Opens the circuit of `up-fallback`'s fallback (`openai:gpt-5-mini`, `up-chat`) by a rate limit
 * whose `retry-after` (120 s) passes `long_retry_after_seconds`: the router keeps that fallback out
 * for two minutes. Resolves with the circuit's state (`open`).
 */
export async function keepFallbackOut(harness: GatewayHarness): Promise<string> {
  harness.emulator.enqueue(protocolError('openai-chat', 'rate_limit', { 'retry-after': '120' }));
  await createClients(harness.server.url)
    .openai.chat.completions.create({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }] })
    .catch(() => undefined);
  return harness.switchyard.availability.state('model:openai:gpt-5-mini');
}

/** The official SDK clients pointed at the gateway. */
export function createClients(url: string, key = 'client-key') {
  return {
    openai: new OpenAI({ baseURL: `${url}/v1`, apiKey: key, maxRetries: 0 }),
    anthropic: new Anthropic({ baseURL: url, apiKey: key, maxRetries: 0 }),
    google: new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: url } }),
  };
}

/** The text a Chat Completions SSE body carries: its chunks' `delta.content`, joined. */
export function chatStreamText(body: string): string {
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map(
      (line) =>
        (JSON.parse(line.slice(6)) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta
          .content ?? '',
    )
    .join('');
}

/** A raw socket to the gateway at `url`: what it has received so far, and when it closed. */
export function rawConnection(url: string) {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  const closed = new Promise((resolve) => socket.on('close', resolve));
  return { socket, received: () => text, closed };
}
