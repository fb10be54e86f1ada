/**
 * Server-side web searches through the gateway: an Anthropic client reads the upstream's searches as
 * `usage.server_tool_use.web_search_requests` (recorded Anthropic and OpenAI Responses web searches).
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
});
