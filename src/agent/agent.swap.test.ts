/**
 * The agent over real wire protocols: a 10-turn run swapping Anthropic, OpenAI Chat, OpenAI Responses and Gemini
 * (tools and reasoning every turn), then compaction, then more turns. The emulator enforces each
 * protocol's rules, so a request the loop builds wrongly fails the test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Adapter } from '../core/adapter.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { type Emulator, startEmulator } from '../testing/emulator/index.ts';
import { createOnEmulator } from '../../test/support/provider-types.ts';
import { createAgent } from './agent.ts';
import { dropOldReasoning, summarizeOldTurns } from './strategies.ts';
import { drain, expectConsistent, resultsById, resultText } from './test-support.ts';
import { tool } from '../schemas/structured.ts';

let emulator: Emulator;
const adapters = {} as Record<'anthropic' | 'openai' | 'gemini' | 'responses', Adapter>;
const models = ['anthropic:claude-sonnet-4-5', 'openai:o4-mini', 'gemini:gemini-3-pro-preview'];

beforeAll(async () => {
  emulator = await startEmulator();
  const common = { apiKey: 'test-key', logger: createMemoryLogger(), maxRetries: 0 };
  adapters.anthropic = createOnEmulator('anthropic', emulator.url, common);
  adapters.openai = createOnEmulator('openai', emulator.url, common);
  adapters.gemini = createOnEmulator('gemini', emulator.url, common);
  adapters.responses = createOnEmulator('openai-responses', emulator.url, common);
});
afterAll(async () => {
  for (const adapter of Object.values(adapters)) await adapter.close();
  await emulator.close();
});

const clientFor = (model: string) => adapters[model.split(':')[0] as keyof typeof adapters];

const lookup = tool({
  name: 'lookup',
  description: 'Look something up',
  input: z.object({ q: z.string() }),
  execute: ({ q }) => `answer to ${q}`,
});

function toolTurn(turn: number, input = 100 * turn) {
  emulator.enqueue({
    type: 'scripted',
    content: [
      { type: 'reasoning', text: `Turn ${turn}: I should look this up.`, signature: `sig-${turn}` },
      { type: 'tool-call', name: 'lookup', input: { q: `question ${turn}` } },
    ],
    usage: { input, output: 20 },
  });
}

describe('agent over the emulator', () => {
  it('10 turns swapping Anthropic → OpenAI Chat → OpenAI Responses → Gemini with tools and reasoning, then compaction, then more turns', async () => {
    for (let turn = 1; turn <= 9; turn++) toolTurn(turn);
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'All nine answers found.' }] });
    const first = emulator.requests.length;
    const agent = createAgent({
      client: clientFor,
      // OpenAI twice: Chat Completions through the per-provider client, Responses through an explicit client.
      model: ({ turn }) => {
        const choices = [
          models[0]!,
          models[1]!,
          { model: 'openai:o4-mini', client: adapters.responses },
          models[2]!,
        ];
        return choices[(turn - 1) % 4]!;
      },
      tools: [lookup],
      instructions: 'You are a careful assistant.',
      request: { reasoning: { budgetTokens: 1024 } },
    });
    const result = await agent.run('Answer nine questions.').result();
    expect(result.outcome).toBe('completed');
    const protocols = emulator.requests.slice(first).map((request) => request.protocol);
    expect(protocols).toEqual([
      'anthropic-messages',
      'openai-chat',
      'openai-responses',
      'gemini',
      'anthropic-messages',
      'openai-chat',
      'openai-responses',
      'gemini',
      'anthropic-messages',
      'openai-chat',
    ]);
    expect(result.turns).toHaveLength(10);
    const results = [...resultsById(result.transcript).values()];
    expect(results.map(resultText)).toEqual(
      Array.from({ length: 9 }, (_, index) => `answer to question ${index + 1}`),
    );
    expectConsistent(result.transcript);

    // Continue from the transcript with compaction: a summary by OpenAI, then Gemini and Anthropic turns.
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'Nine lookups done, all answered.' }],
    });
    toolTurn(10, 50);
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Tenth answer found.' }] });
    const compacting = createAgent({
      client: clientFor,
      model: ({ turn }) => (turn === 1 ? models[2]! : models[0]!),
      tools: [lookup],
      request: { reasoning: { budgetTokens: 1024 } },
      compaction: {
        // ~187 estimated tokens before, ~120 without old reasoning, ~75 after the summary.
        contextWindow: 220,
        threshold: 0.5,
        strategies: [dropOldReasoning(), summarizeOldTurns({ model: 'openai:gpt-4o-mini', keepTurns: 2 })],
      },
    });
    const beforeSecond = emulator.requests.length;
    const { events, result: continued } = await drain(
      compacting.run([...result.transcript, { kind: 'user', parts: [{ type: 'text', text: 'One more.' }] }]),
    );
    expect(continued.outcome).toBe('completed');
    expect(continued.text).toBe('Tenth answer found.');
    expect(
      events
        .filter((event) => event.type === 'compaction')
        .map((event) => (event as { strategy: string }).strategy),
    ).toEqual(['drop-old-reasoning', 'summarize']);
    const second = emulator.requests.slice(beforeSecond);
    expect(second.map((request) => request.protocol)).toEqual([
      'openai-chat',
      'gemini',
      'anthropic-messages',
    ]);
    const summary = continued.transcript.find((item) => item.metadata?.['switchyard.summary'] === true);
    expect(summary?.parts[0]).toEqual({
      type: 'text',
      text: 'Summary of the earlier conversation:\nNine lookups done, all answered.',
    });
    expect(continued.transcript[0]).toMatchObject({ kind: 'system' });
    expectConsistent(continued.transcript);
  });

  it('a tool call cut by Anthropic’s max_tokens is never executed; the loop resumes', async () => {
    let executed = 0;
    const write = tool({
      name: 'write',
      input: z.object({ path: z.string(), body: z.string() }),
      execute: () => {
        executed++;
        return 'written';
      },
    });
    emulator.enqueue({
      type: 'sse',
      events: [
        {
          event: 'message_start',
          data: {
            type: 'message_start',
            message: {
              id: 'msg_01',
              type: 'message',
              role: 'assistant',
              model: 'claude-sonnet-4-5',
              content: [],
              stop_reason: null,
              usage: { input_tokens: 10, output_tokens: 1 },
            },
          },
        },
        {
          event: 'content_block_start',
          data: {
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'tool_use', id: 'toolu_01A', name: 'write', input: {} },
          },
        },
        {
          event: 'content_block_delta',
          data: {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'input_json_delta', partial_json: '{"path": "a.ts", "body": "export const x = ' },
          },
        },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        {
          event: 'message_delta',
          data: { type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 64 } },
        },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ],
    });
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'I will write it in smaller pieces.' }],
    });
    const result = await createAgent({ client: adapters.anthropic, model: models[0]!, tools: [write] })
      .run('Write a.ts')
      .result();
    expect(executed).toBe(0);
    expect(result.outcome).toBe('completed');
    const answer = [...resultsById(result.transcript).values()][0];
    expect(answer?.isError).toBe(true);
    expect(resultText(answer)).toContain('cut off by the output token limit');
    expect(result.transcript.map((item) => item.kind)).toEqual([
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
    ]);
    expectConsistent(result.transcript);
  });
});
