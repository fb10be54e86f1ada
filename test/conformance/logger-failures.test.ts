/**
 * A logger that throws (or rejects) never changes a call's result: the front door and an adapter
 * made with that logger answer as they would with a working one, without failing over to a second
 * paid call, and no unhandled rejection reaches the process. The reply carries no usage, so the
 * library WARNs on every call ("the provider reported no usage").
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/core/logger.ts';
import { userText } from '../../src/core/transcript.ts';
import { createOpenAI } from '../../src/providers/openai-chat/index.ts';
import { createSwitchyard } from '../../src/switchyard.ts';
import { watchProcess, type ProcessWatch } from '../support/hostile.ts';

const chatReply = {
  id: 'c1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4.1-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
};
const chunk = (delta: object, finish: string | null) =>
  `data: ${JSON.stringify({ ...chatReply, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

let server: Server;
let baseURL: string;
const paths: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (data: Buffer) => (body += data.toString()));
    request.on('end', () => {
      paths.push(request.url!);
      if (!(JSON.parse(body) as { stream?: boolean }).stream) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(chatReply));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(`${chunk({ content: 'hello' }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

let watch: ProcessWatch;
beforeEach(() => {
  watch = watchProcess();
  paths.length = 0;
});
afterEach(async () => {
  await watch.stop();
});

const loggers: Array<[string, () => Logger & { calls: number }]> = [
  [
    'throws',
    () => {
      const logger = {
        calls: 0,
        warn() {
          logger.calls++;
          throw new Error('logger warn exploded');
        },
        debug() {
          throw new Error('logger debug exploded');
        },
      };
      return logger;
    },
  ],
  [
    'rejects',
    () => {
      const logger = {
        calls: 0,
        warn: () => {
          logger.calls++;
          return Promise.reject(new Error('logger warn rejected')) as unknown as void;
        },
      };
      return logger;
    },
  ],
];

const request = { model: 'a:gpt-4.1-mini', transcript: [userText('hi')], maxOutputTokens: 50 };

describe.each(loggers)('a logger that %s', (_label, createLogger) => {
  it('front door: complete and stream answer, no failover', async () => {
    const logger = createLogger();
    const switchyard = createSwitchyard({
      logger,
      env: { OPENAI_API_KEY: 'logger-test-key-0123456789' },
      config: {
        builtins: false,
        adapters: {
          a: { type: 'openai', base_url: `${baseURL}/a/v1`, max_retries: 0 },
          b: { type: 'openai', base_url: `${baseURL}/b/v1`, max_retries: 0 },
        },
        models: { 'a:gpt-4.1-mini': { fallbacks: ['b:gpt-4.1-mini'] }, 'b:gpt-4.1-mini': {} },
      },
    });
    expect((await switchyard.complete(request)).text).toBe('hello');
    expect((await switchyard.stream(request).result()).text).toBe('hello');
    expect(paths).toEqual(['/a/v1/chat/completions', '/a/v1/chat/completions']);
    expect(logger.calls).toBeGreaterThan(0);
  });

  it('adapter made with the logger: complete answers', async () => {
    const logger = createLogger();
    const openai = createOpenAI({
      apiKey: 'logger-test-key-0123456789',
      baseURL: `${baseURL}/v1`,
      logger,
      maxRetries: 0,
    });
    const reply = await openai.complete({ ...request, model: 'gpt-4.1-mini' });
    expect(reply.content).toEqual([{ type: 'text', text: 'hello' }]);
    expect(logger.calls).toBeGreaterThan(0);
  });
});
