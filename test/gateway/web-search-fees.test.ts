/**
 * Server-side web searches through the gateway: an Anthropic client reads the upstream's searches as
 * `usage.server_tool_use.web_search_requests`, and a key's budget settles on their fees with the
 * tokens (recorded Anthropic and OpenAI Responses web searches).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorScript } from '../../src/testing/emulator/index.ts';
import { keyDigest } from '../support/gateway-processes.ts';
import { recordedDir } from '../support/fixtures.ts';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness({
    keys: [
      { name: 'searcher', key: keyDigest('key-searcher'), budget: { usd_per_day: 100 } },
      { name: 'ops', key: keyDigest('key-ops'), admin: true },
    ],
  });
});
afterAll(async () => {
  await harness?.close();
});

const anthropicJson = join(recordedDir, 'anthropic/anthropic-web-search-tool.1.json');
const anthropicStream = join(recordedDir, 'anthropic/anthropic-web-search-tool.1.chunks.txt');
const responsesJson = join(recordedDir, 'openai/responses/openai-web-search-tool.1.json');

async function spentMicros(): Promise<number> {
  const response = await fetch(`${harness.server.url}/switchyard/v1/keys/searcher/usage`, {
    headers: { authorization: 'Bearer key-ops' },
  });
  return ((await response.json()) as { day: { spent_micros: number } }).day.spent_micros;
}

/** One Anthropic SDK call by the budgeted key, the upstream answering with `script`. */
async function ask(model: string, script: EmulatorScript, stream = false) {
  harness.emulator.enqueue(script);
  const { anthropic } = createClients(harness.server.url, 'key-searcher');
  const request = { model, max_tokens: 1000, messages: [{ role: 'user' as const, content: 'News?' }] };
  if (!stream) return anthropic.messages.create(request);
  return anthropic.messages.stream(request).finalMessage();
}

describe('web searches through the gateway', () => {
  it('an Anthropic client sees an Anthropic upstream’s searches as usage.server_tool_use.web_search_requests, whole and streamed', async () => {
    const whole = await ask('up-anthropic', { type: 'replay', file: anthropicJson, enforce: false });
    expect(whole.usage).toMatchObject({ input_tokens: 27118, server_tool_use: { web_search_requests: 2 } });
    const streamed = await ask(
      'up-anthropic',
      { type: 'replay', file: anthropicStream, enforce: false },
      true,
    );
    expect(streamed.usage).toMatchObject({ output_tokens: 795, server_tool_use: { web_search_requests: 1 } });
  });

  it('an Anthropic client sees an OpenAI Responses upstream’s completed web_search_call items as web_search_requests', async () => {
    const reply = await ask('up-responses', { type: 'replay', file: responsesJson, enforce: false });
    expect(reply.usage.server_tool_use).toEqual({ web_search_requests: 3 });
  });

  it('a reply without searches carries no server_tool_use', async () => {
    const reply = await ask('up-anthropic', {
      type: 'scripted',
      content: [{ type: 'text', text: 'ok' }],
      usage: { input: 10, output: 2 },
    });
    expect(reply.usage).not.toHaveProperty('server_tool_use');
  });

  it('a key’s budget settles on the searches’ fees with the tokens ($10 per 1,000 Claude searches)', async () => {
    const before = await spentMicros();
    await ask('up-anthropic', { type: 'replay', file: anthropicJson, enforce: false });
    // Claude Sonnet 4.5: 27,118 input × $3 + 600 output × $15 per million, 2 searches × $0.01.
    await expect.poll(async () => (await spentMicros()) - before).toBe(27_118 * 3 + 600 * 15 + 2 * 10_000);
  });

  it('a key’s budget settles on an OpenAI Responses upstream’s searches too ($10 per 1,000 on gpt-5-mini)', async () => {
    const before = await spentMicros();
    await ask('up-responses', { type: 'replay', file: responsesJson, enforce: false });
    // gpt-5-mini: 15,969 input × $0.25 + 3,712 cached × $0.025 + 3,773 output × $2 per million
    // (11,631.05 µ$), 3 searches × $0.01.
    await expect.poll(async () => (await spentMicros()) - before).toBe(Math.round(11_631.05 + 3 * 10_000));
  });
});
