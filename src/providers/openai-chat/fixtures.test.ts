import { basename } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRecorded, readRecorded } from '../../../test/support/fixtures.ts';
import { isInvalidRequestError } from '../../core/errors/guards.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { createOpenAICompatible, presets } from '../openai-compatible/index.ts';
import { createOpenAI } from './index.ts';
import { reasoningOf, replayRecorded, textOf, toolCallsOf } from './test-support.ts';

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator.close();
});

const fast = { apiKey: 'test-key', maxRetries: 0, retryBaseDelay: 1 };
const openai = () => createOpenAI({ ...fast, baseURL: `${emulator.url}/v1` });
const xai = () => createOpenAICompatible(presets.xai, { ...fast, baseURL: `${emulator.url}/v1` });
const gateway = () =>
  createOpenAICompatible(
    { name: 'gateway', baseURL: `${emulator.url}/v1`, quirks: { apiKeyRequired: true } },
    fast,
  );

/** The text of every `choices[0].delta.content` in a `.chunks.txt` file: an independent oracle. */
function chunkText(path: string): string {
  return readRecorded(path)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line).choices?.[0]?.delta?.content ?? '')
    .join('');
}

function messageContent(path: string): string {
  return JSON.parse(readRecorded(path)).choices[0].message.content;
}

describe('recorded openai/chat responses', () => {
  const files = listRecorded('openai/chat');
  const find = (name: string) => files.find((file) => basename(file) === name) as string;

  it('covers every file in the folder', () => {
    expect(files.map((file) => basename(file))).toEqual([
      'azure-model-router.1.chunks.txt',
      'openai-text.chunks.txt',
      'openai-text.json',
      'reasoning-model-legacy-parameter-error.json',
    ]);
  });

  it('openai-text.json: complete text, stop, usage', async () => {
    const file = find('openai-text.json');
    const { response } = await replayRecorded(emulator, openai(), file);
    expect(textOf(response)).toBe(messageContent(file));
    expect(textOf(response)).toMatch(/^\*\*Holiday Name:\*\* Galaxy Day/);
    expect(response?.content).toHaveLength(1);
    expect(reasoningOf(response)).toBe('');
    expect(toolCallsOf(response)).toEqual([]);
    expect(response).toMatchObject({
      responseId: 'chatcmpl-D8Z5f52zQqikDBEKQMQoYcWMcWPeU',
      model: 'openai:gpt-4.1-nano-2025-04-14',
      provider: 'openai',
      finishReason: 'completed',
      rawFinishReason: 'stop',
    });
    // The recording's top-level `service_tier` is the tier that served it.
    expect(response?.usage).toEqual({
      input: 16,
      cacheRead: 0,
      cacheWrite: 0,
      output: 363,
      reasoning: 0,
      serviceTier: 'default',
    });
  });

  it('openai-text.chunks.txt: streamed text, role-only first chunk, usage-only last chunk', async () => {
    const file = find('openai-text.chunks.txt');
    const { response, events, error, body } = await replayRecorded(emulator, openai(), file);
    expect(error).toBeUndefined();
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(textOf(response)).toBe(chunkText(file));
    expect(textOf(response)).toMatch(/^\*\*Holiday Name:\*\* Harmony Day/);
    expect(events.filter((event) => event.type === 'text-start')).toHaveLength(1);
    expect(toolCallsOf(response)).toEqual([]);
    expect(response).toMatchObject({ finishReason: 'completed', rawFinishReason: 'stop' });
    // Every chunk says `service_tier: "default"`: the reply's tier.
    expect(response?.usage).toEqual({
      input: 16,
      cacheRead: 0,
      cacheWrite: 0,
      output: 300,
      reasoning: 0,
      serviceTier: 'default',
    });
  });

  it('azure-model-router.1.chunks.txt: prompt-filter chunk first, reasoning tokens in usage', async () => {
    const file = find('azure-model-router.1.chunks.txt');
    const { response, events } = await replayRecorded(emulator, openai(), file);
    expect(events[0]).toMatchObject({
      type: 'message-start',
      responseId: 'chatcmpl-CYPS1lijGoK8gd9lYzY3r9Sx50nbt',
      model: 'openai:gpt-5-nano-2025-08-07',
    });
    expect(textOf(response)).toBe('Capital of Denmark.');
    expect(reasoningOf(response)).toBe('');
    expect(toolCallsOf(response)).toEqual([]);
    expect(response).toMatchObject({ finishReason: 'completed', rawFinishReason: 'stop' });
    expect(response?.usage).toEqual({ input: 15, cacheRead: 0, cacheWrite: 0, output: 78, reasoning: 64 });
  });

  it('reasoning-model-legacy-parameter-error.json: a 400 unsupported_parameter is an invalid request, not retried', async () => {
    const file = find('reasoning-model-legacy-parameter-error.json');
    const before = emulator.requests.length;
    emulator.enqueue({ type: 'replay', file, status: 400 });
    const adapter = createOpenAI({ ...fast, maxRetries: 2, baseURL: `${emulator.url}/v1` });
    const error = await adapter
      .complete({ model: 'openai:o3-mini', transcript: [], maxOutputTokens: 5 })
      .catch((caught) => caught);
    expect(isInvalidRequestError(error)).toBe(true);
    expect(error).toMatchObject({ status: 400, providerCode: 'unsupported_parameter', retryable: false });
    expect(error.providerMessage).toContain("Use 'max_completion_tokens' instead");
    expect(emulator.requests.length - before).toBe(1);
  });
});

describe('recorded openai-compatible/chat responses', () => {
  const files = listRecorded('openai-compatible/chat');
  const find = (name: string) => files.find((file) => basename(file) === name) as string;

  it('covers every file in the folder', () => {
    expect(files.map((file) => basename(file))).toEqual([
      'anthropic-fallback-tool-call.sse',
      'xai-text.chunks.txt',
      'xai-text.json',
      'xai-tool-call.chunks.txt',
      'xai-tool-call.json',
    ]);
  });

  it('anthropic-fallback-tool-call.sse: raw SSE from a gateway, text then a tool call at index 1', async () => {
    const { response, events } = await replayRecorded(
      emulator,
      gateway(),
      find('anthropic-fallback-tool-call.sse'),
    );
    expect(textOf(response)).toBe('Reading it.');
    expect(reasoningOf(response)).toBe('');
    expect(toolCallsOf(response)).toEqual([{ name: 'read_file', input: { path: 'a.txt' } }]);
    const deltas = events.flatMap((event) => (event.type === 'tool-call-delta' ? [event.delta] : []));
    expect(deltas).toEqual(['{"pa', 'th": "a.txt"}']);
    expect(response).toMatchObject({
      model: 'gateway:claude-haiku-4-5-20251001',
      responseId: 'msg_sanitized',
      finishReason: 'tool-call',
      rawFinishReason: 'tool_calls',
    });
    // The gateway sent no usage: it is estimated (docs/contract.md §7.2) and marked as such.
    expect(response?.metadata).toMatchObject({ 'switchyard.usage_estimated': true });
    expect(response?.usage).toMatchObject({ cacheRead: 0, cacheWrite: 0, reasoning: 0 });
    expect(response?.usage.input).toBeGreaterThan(0);
    expect(response?.usage.output).toBeGreaterThan(0);
  });

  it('xai-text.json: reasoning_content, reasoning tokens outside completion_tokens', async () => {
    const file = find('xai-text.json');
    const { response } = await replayRecorded(emulator, xai(), file);
    expect(textOf(response)).toBe('Grok');
    expect(reasoningOf(response)).toBe(JSON.parse(readRecorded(file)).choices[0].message.reasoning_content);
    expect(response?.content.map((part) => part.type)).toEqual(['reasoning', 'text']);
    expect(toolCallsOf(response)).toEqual([]);
    expect(response).toMatchObject({
      model: 'xai:grok-3-mini',
      finishReason: 'completed',
      rawFinishReason: 'stop',
    });
    expect(response?.usage).toEqual({ input: 10, cacheRead: 2, cacheWrite: 0, output: 322, reasoning: 320 });
  });

  it('xai-text.chunks.txt: streamed reasoning then text', async () => {
    const { response, error } = await replayRecorded(emulator, xai(), find('xai-text.chunks.txt'));
    expect(error).toBeUndefined();
    expect(textOf(response)).toBe('Grok');
    expect(reasoningOf(response)).toMatch(/^First, the user said: "Say a single word\."/);
    expect(reasoningOf(response)).toHaveLength(1455);
    expect(toolCallsOf(response)).toEqual([]);
    expect(response).toMatchObject({ finishReason: 'completed', rawFinishReason: 'stop' });
    expect(response?.usage).toEqual({ input: 1, cacheRead: 11, cacheWrite: 0, output: 342, reasoning: 340 });
  });

  it('xai-tool-call.json: reasoning, empty content, one tool call', async () => {
    const { response } = await replayRecorded(emulator, xai(), find('xai-tool-call.json'));
    expect(textOf(response)).toBe('');
    expect(response?.content.map((part) => part.type)).toEqual(['reasoning', 'tool-call']);
    expect(reasoningOf(response)).toMatch(/^First, the user is asking about the weather/);
    expect(toolCallsOf(response)).toEqual([{ name: 'weather', input: { location: 'San Francisco' } }]);
    expect(response).toMatchObject({ finishReason: 'tool-call', rawFinishReason: 'tool_calls' });
    expect(response?.usage).toEqual({
      input: 63,
      cacheRead: 244,
      cacheWrite: 0,
      output: 281,
      reasoning: 255,
    });
  });

  it('xai-tool-call.chunks.txt: whole arguments in one chunk after streamed reasoning', async () => {
    const { response, events } = await replayRecorded(emulator, xai(), find('xai-tool-call.chunks.txt'));
    expect(textOf(response)).toBe('');
    expect(reasoningOf(response)).toHaveLength(1069);
    expect(toolCallsOf(response)).toEqual([{ name: 'weather', input: { location: 'San Francisco' } }]);
    const deltas = events.flatMap((event) => (event.type === 'tool-call-delta' ? [event.delta] : []));
    expect(deltas).toEqual(['{"location":"San Francisco"}']);
    expect(response).toMatchObject({ finishReason: 'tool-call', rawFinishReason: 'tool_calls' });
    expect(response?.usage).toEqual({ input: 1, cacheRead: 306, cacheWrite: 0, output: 253, reasoning: 227 });
  });
});
