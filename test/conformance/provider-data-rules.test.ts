/**
 * One documented rule each, on the emulator, for provider data the contract cannot use as sent: a tool
 * call without a name, fractional / negative / non-finite token counts, and data after `[DONE]`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/core/logger.ts';
import type { CanonicalRequest } from '../../src/core/request.ts';
import { collectStream as collect } from '../../src/testing/collect.ts';
import { type Emulator, startEmulator } from '../../src/testing/emulator/index.ts';
import { assertStreamInvariants } from '../../src/testing/invariants.ts';
import { adapterOnEmulator, defaultModelFor } from '../support/provider-types.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

type Api = 'openai-chat' | 'anthropic-messages' | 'gemini';

async function adapterFor(protocol: Api) {
  const logger = createMemoryLogger();
  const adapter = await adapterOnEmulator(protocol, { baseURL: emulator.url, maxRetries: 0, logger });
  return { adapter, logger };
}

function request(protocol: Api): CanonicalRequest {
  return {
    model: defaultModelFor(protocol),
    maxOutputTokens: 256,
    transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'hi' }] }],
  };
}

const chatBase = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini' };

function chatChunk(delta: object, finish: string | null = null): object {
  return { ...chatBase, choices: [{ index: 0, delta, finish_reason: finish }] };
}

const namelessChatCall = {
  index: 0,
  id: 'call_1',
  type: 'function',
  function: { name: '', arguments: '{}' },
};

const anthropicStart = {
  type: 'message_start',
  message: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [],
    stop_reason: null,
    usage: { input_tokens: 5, output_tokens: 1 },
  },
};

describe('a tool call without a name', () => {
  it('openai-chat stream(): fails invalid_stream, retryable, keeping the text received', async () => {
    emulator.enqueue({
      type: 'sse',
      events: [
        { data: chatChunk({ role: 'assistant', content: 'Checking.' }) },
        { data: chatChunk({ tool_calls: [namelessChatCall] }) },
        { data: chatChunk({}, 'tool_calls') },
        { data: '[DONE]' },
      ],
    });
    const { adapter } = await adapterFor('openai-chat');
    const { events, error, response } = await collect(adapter.stream(request('openai-chat')));
    assertStreamInvariants(events);
    expect(error).toMatchObject({
      errorClass: 'server_error',
      providerCode: 'invalid_stream',
      retryable: true,
    });
    expect(String((error as Error).message)).toContain('tool call without a name');
    expect(response?.finishReason).toBe('error');
    expect(response?.content).toEqual([{ type: 'text', text: 'Checking.' }]);
    await adapter.close();
  });

  it('openai-chat stream(): a call whose name never arrives fails the same way', async () => {
    const call = { index: 0, id: 'call_1', type: 'function', function: { arguments: '{"a":1}' } };
    emulator.enqueue({
      type: 'sse',
      events: [
        { data: chatChunk({ tool_calls: [call] }) },
        { data: chatChunk({}, 'tool_calls') },
        { data: '[DONE]' },
      ],
    });
    const { adapter } = await adapterFor('openai-chat');
    const { events, error } = await collect(adapter.stream(request('openai-chat')));
    assertStreamInvariants(events);
    expect(error).toMatchObject({
      errorClass: 'server_error',
      providerCode: 'invalid_stream',
      retryable: true,
    });
    expect(events.some((event) => event.type === 'tool-call-start')).toBe(false);
    await adapter.close();
  });

  it('openai-chat complete(): fails invalid_response, retryable', async () => {
    emulator.enqueue({
      type: 'json',
      body: {
        ...chatBase,
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: null, tool_calls: [namelessChatCall] },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
      },
    });
    const { adapter } = await adapterFor('openai-chat');
    await expect(adapter.complete(request('openai-chat'))).rejects.toMatchObject({
      errorClass: 'server_error',
      providerCode: 'invalid_response',
      retryable: true,
    });
    await adapter.close();
  });

  it('anthropic stream(): a tool_use block without a name fails invalid_stream, keeping the text', async () => {
    emulator.enqueue({
      type: 'sse',
      events: [
        { event: 'message_start', data: anthropicStart },
        {
          event: 'content_block_start',
          data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        },
        {
          event: 'content_block_delta',
          data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Checking.' } },
        },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        {
          event: 'content_block_start',
          data: {
            type: 'content_block_start',
            index: 1,
            content_block: { type: 'tool_use', id: 'toolu_1', input: {} },
          },
        },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 1 } },
        {
          event: 'message_delta',
          data: { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 4 } },
        },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ],
    });
    const { adapter } = await adapterFor('anthropic-messages');
    const { events, error, response } = await collect(adapter.stream(request('anthropic-messages')));
    assertStreamInvariants(events);
    expect(error).toMatchObject({
      errorClass: 'server_error',
      providerCode: 'invalid_stream',
      retryable: true,
    });
    expect(response?.content).toEqual([{ type: 'text', text: 'Checking.' }]);
    await adapter.close();
  });

  it('anthropic complete(): a tool_use block with an empty name fails invalid_response', async () => {
    emulator.enqueue({
      type: 'json',
      body: {
        ...anthropicStart.message,
        content: [{ type: 'tool_use', id: 'toolu_1', name: '', input: {} }],
        stop_reason: 'tool_use',
      },
    });
    const { adapter } = await adapterFor('anthropic-messages');
    await expect(adapter.complete(request('anthropic-messages'))).rejects.toMatchObject({
      errorClass: 'server_error',
      providerCode: 'invalid_response',
      retryable: true,
    });
    await adapter.close();
  });
  it('gemini complete(): a functionCall with args and no name fails invalid_response', async () => {
    emulator.enqueue({
      type: 'json',
      body: {
        candidates: [
          {
            content: { role: 'model', parts: [{ functionCall: { args: { a: 1 } } }] },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2 },
        modelVersion: 'gemini-2.5-flash',
      },
    });
    const { adapter } = await adapterFor('gemini');
    await expect(adapter.complete(request('gemini'))).rejects.toMatchObject({
      errorClass: 'server_error',
      providerCode: 'invalid_response',
      retryable: true,
    });
    await adapter.close();
  });
});

describe('fractional, negative and non-finite token counts', () => {
  it('openai-chat stream(): rounded to the nearest integer; negative and non-finite are absent', async () => {
    emulator.enqueue({
      type: 'sse',
      events: [
        { data: chatChunk({ content: 'Hi' }, 'stop') },
        // 1e999 parses to Infinity: a count no JSON encoder should send, but the wire allows it.
        {
          data: `{"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":10.6,"completion_tokens":4.4,"prompt_tokens_details":{"cached_tokens":-3},"completion_tokens_details":{"reasoning_tokens":1e999}}}`,
        },
        { data: '[DONE]' },
      ],
    });
    const { adapter } = await adapterFor('openai-chat');
    const { error, response } = await collect(adapter.stream(request('openai-chat')));
    expect(error).toBeUndefined();
    expect(response?.usage).toEqual({ input: 11, cacheRead: 0, cacheWrite: 0, output: 4, reasoning: 0 });
    await adapter.close();
  });

  it('anthropic complete(): rounded; a negative or non-finite count is absent (0)', async () => {
    emulator.enqueue({
      type: 'json',
      body: JSON.stringify({
        ...anthropicStart.message,
        content: [{ type: 'text', text: 'Hi' }],
        stop_reason: 'end_turn',
        usage: {
          input_tokens: 7.5,
          output_tokens: 2.2,
          cache_read_input_tokens: -4,
          cache_creation_input_tokens: 0,
        },
      }).replace('"cache_creation_input_tokens":0', '"cache_creation_input_tokens":-1e999'),
    });
    const { adapter } = await adapterFor('anthropic-messages');
    const response = await adapter.complete(request('anthropic-messages'));
    expect(response.usage).toEqual({ input: 8, cacheRead: 0, cacheWrite: 0, output: 2, reasoning: 0 });
    await adapter.close();
  });

  it('gemini complete(): rounded the same way', async () => {
    emulator.enqueue({
      type: 'json',
      body: {
        candidates: [{ content: { role: 'model', parts: [{ text: 'Hi' }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 12.4, candidatesTokenCount: 3.5, cachedContentTokenCount: -2 },
        modelVersion: 'gemini-2.5-flash',
        responseId: 'resp-1',
      },
    });
    const { adapter } = await adapterFor('gemini');
    const response = await adapter.complete(request('gemini'));
    expect(response.usage).toMatchObject({ input: 12, cacheRead: 0, output: 4 });
    await adapter.close();
  });
});

describe('data after [DONE] in an OpenAI Chat stream', () => {
  it('is ignored, text and tool calls alike, with one WARN', async () => {
    emulator.enqueue({
      type: 'sse',
      events: [
        { data: chatChunk({ role: 'assistant', content: 'Hi' }) },
        { data: chatChunk({}, 'stop') },
        { data: '[DONE]' },
        { data: chatChunk({ content: ' and more' }) },
        {
          data: chatChunk({
            tool_calls: [{ ...namelessChatCall, function: { name: 'late', arguments: '{}' } }],
          }),
        },
        { data: chatChunk({}, 'tool_calls') },
        { data: '[DONE]' },
      ],
    });
    const { adapter, logger } = await adapterFor('openai-chat');
    const { events, error, response } = await collect(adapter.stream(request('openai-chat')));
    assertStreamInvariants(events);
    expect(error).toBeUndefined();
    expect(response?.finishReason).toBe('completed');
    expect(response?.content).toEqual([{ type: 'text', text: 'Hi' }]);
    const warnings = logger.entries.filter((entry) => entry.message.includes('after [DONE]'));
    expect(warnings).toHaveLength(1);
    await adapter.close();
  });
});
