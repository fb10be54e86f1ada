/**
 * `parallelToolCalls: false` on every adapter: sent where the wire has a field for it (Anthropic's
 * `disable_parallel_tool_use`, OpenAI's `parallel_tool_calls`); on Gemini, which has none,
 * enforced on the reply (its first function call kept, the others dropped with a WARN, whole and
 * streamed); where it has none otherwise (Bedrock Converse, a Chat host without
 * `parallel_tool_calls` such as DeepSeek) dropped with a WARN naming it — before, those dropped it
 * silently and the caller trusted a setting that never left.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Adapter } from '../../src/core/adapter.ts';
import { createMemoryLogger } from '../../src/core/logger.ts';
import type { CanonicalRequest } from '../../src/core/request.ts';
import { createOpenAICompatible, presets } from '../../src/providers/openai-compatible/index.ts';
import { type Emulator, startEmulator } from '../../src/testing/emulator/index.ts';
import { createOnEmulator } from '../support/provider-types.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.close());

type Row = {
  name: string;
  model: string;
  create: (url: string, logger: ReturnType<typeof createMemoryLogger>) => Adapter;
  /** Where the wire body carries the setting; undefined: the protocol has no field for it. */
  sent?: (body: Record<string, unknown>) => unknown;
  /** No field, but the adapter keeps the reply's first call only (Gemini). */
  enforced?: boolean;
};

const onEmulator =
  (type: string) =>
  (url: string, logger: ReturnType<typeof createMemoryLogger>): Adapter =>
    createOnEmulator(type, url, { apiKey: 'test-key', logger, maxRetries: 0 });

const rows: Row[] = [
  {
    name: 'anthropic',
    model: 'anthropic:claude-sonnet-4-5',
    create: onEmulator('anthropic'),
    sent: (body) => (body.tool_choice as Record<string, unknown>).disable_parallel_tool_use,
  },
  {
    name: 'openai',
    model: 'openai:gpt-4.1',
    create: onEmulator('openai'),
    sent: (body) => body.parallel_tool_calls === false,
  },
  {
    name: 'openai-responses',
    model: 'openai:gpt-5-mini',
    create: onEmulator('openai-responses'),
    sent: (body) => body.parallel_tool_calls === false,
  },
  { name: 'gemini', model: 'gemini:gemini-2.5-flash', create: onEmulator('gemini'), enforced: true },
  {
    name: 'vertex (Gemini)',
    model: 'vertex:gemini-2.5-flash',
    create: onEmulator('vertex'),
    enforced: true,
  },
  {
    name: 'vertex (Claude)',
    model: 'vertex:claude-sonnet-4-5@20250929',
    create: onEmulator('vertex'),
    sent: (body) => (body.tool_choice as Record<string, unknown>).disable_parallel_tool_use,
  },
  {
    name: 'bedrock (Claude)',
    model: 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    create: onEmulator('bedrock'),
  },
  { name: 'bedrock (Nova)', model: 'bedrock:us.amazon.nova-2-lite-v1:0', create: onEmulator('bedrock') },
  {
    name: 'deepseek (openai-compatible)',
    model: 'deepseek:deepseek-chat',
    create: (url, logger) =>
      createOpenAICompatible(presets.deepseek, {
        apiKey: 'test-key',
        baseURL: `${url}/v1`,
        logger,
        maxRetries: 0,
      }),
  },
];

const request = (model: string): CanonicalRequest => ({
  model,
  transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'Weather in Paris and Rome?' }] }],
  tools: [{ name: 'get_weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }],
  parallelToolCalls: false,
  maxOutputTokens: 64,
});

describe('parallelToolCalls: false is sent, enforced on the reply, or dropped with a WARN', () => {
  it.each(rows)('$name', async (row) => {
    const logger = createMemoryLogger();
    const adapter = row.create(emulator.url, logger);
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'One at a time.' }] });
    const before = emulator.requests.length;
    await adapter.complete(request(row.model));
    await adapter.close();
    const body = emulator.requests[before]!.body as Record<string, unknown>;
    const warned = logger.entries.filter(
      (entry) =>
        entry.message === 'dropped a tool setting the host does not take' &&
        entry.fields.parameter === 'parallelToolCalls',
    );
    if (row.sent !== undefined) {
      expect(row.sent(body)).toBe(true);
      expect(warned).toEqual([]);
    } else {
      expect(JSON.stringify(body)).not.toMatch(/parallel/i);
      expect(warned).toHaveLength(row.enforced === true ? 0 : 1);
    }
  });
});

const twoCalls = {
  type: 'scripted' as const,
  content: [
    { type: 'tool-call' as const, name: 'get_weather', input: { city: 'Paris' } },
    { type: 'tool-call' as const, name: 'get_weather', input: { city: 'Rome' } },
  ],
};

describe('Gemini, which has no setting for it: the first call of the reply is kept, the others dropped with a WARN', () => {
  const enforced = rows.filter((row) => row.enforced === true);
  it.each(enforced.flatMap((row) => [false, true].map((stream) => ({ ...row, stream }))))(
    '$name (stream: $stream)',
    async (row) => {
      const logger = createMemoryLogger();
      const adapter = row.create(emulator.url, logger);
      emulator.enqueue(row.stream ? { ...twoCalls, chunkSize: 4 } : twoCalls);
      const response = row.stream
        ? await adapter.stream(request(row.model)).result()
        : await adapter.complete(request(row.model));
      await adapter.close();
      const calls = response.content.filter((part) => part.type === 'tool-call');
      expect(calls).toMatchObject([{ name: 'get_weather', input: { city: 'Paris' } }]);
      expect(response.finishReason).toBe('tool-call');
      const dropped = logger.entries.filter(
        (entry) => entry.message === 'dropped a parallel tool call: the request asked for one call at a time',
      );
      expect(dropped).toHaveLength(1);
      expect(dropped[0]!.fields).toMatchObject({ function: 'get_weather', kept: 'get_weather' });
    },
  );

  it('parallel calls not forbidden: both kept', async () => {
    const adapter = rows[3]!.create(emulator.url, createMemoryLogger());
    emulator.enqueue(twoCalls);
    const response = await adapter.complete({
      ...request('gemini:gemini-2.5-flash'),
      parallelToolCalls: true,
    });
    await adapter.close();
    expect(response.content.filter((part) => part.type === 'tool-call')).toHaveLength(2);
  });
});
