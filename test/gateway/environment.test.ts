/**
 * `createGateway({ env })` is the whole environment of the gateway it creates: the front door made
 * from `config` reads its API keys from it too, not from `process.env`.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createMemoryLogger } from 'switchyard-ai';
import { createGateway } from 'switchyard-ai/gateway';
import { type Emulator, startEmulator } from 'switchyard-ai/testing';
import { scriptedText } from './harness.ts';

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

it("the front door the gateway creates reads its upstream key from the gateway's env option, not process.env", async () => {
  vi.stubEnv('OPENAI_API_KEY', 'process-env-key');
  const gateway = createGateway({
    logger: createMemoryLogger(),
    env: { OPENAI_API_KEY: 'gateway-env-key' },
    config: {
      builtins: false,
      adapters: { openai: { type: 'openai', base_url: `${emulator.url}/v1`, max_retries: 0 } },
      models: { 'openai:gpt-5-mini': { aliases: ['up-chat'] } },
      gateway: { access_log: false },
    },
  });
  const server = await gateway.listen({ host: '127.0.0.1', port: 0 });
  try {
    emulator.enqueue(scriptedText('from env'));
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(response.status).toBe(200);
    expect(emulator.requests.at(-1)?.headers.authorization).toBe('Bearer gateway-env-key');
  } finally {
    vi.unstubAllEnvs();
    await server.close(0);
  }
});
