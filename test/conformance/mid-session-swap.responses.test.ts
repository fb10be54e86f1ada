/**
 * Mid-session swap across all four protocols (Anthropic, OpenAI Chat, OpenAI Responses, Gemini):
 * one session, one transcript, reasoning and a tool call in every turn. The emulator enforces every
 * protocol's rules, including the Responses item rules (duplicates, reasoning followers, stored ids),
 * so a half-and-half stateful request or an invalid replay fails the test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Adapter, createSession } from '../../src/core/adapter.ts';
import type { StreamEvent } from '../../src/core/events.ts';
import { createMemoryLogger } from '../../src/core/logger.ts';
import { checkTranscript } from '../../src/core/transcript-invariants.ts';
import type { Item, ToolCallPart } from '../../src/core/transcript.ts';
import { type Emulator, type EmulatorProtocolId, startEmulator } from '../../src/testing/emulator/index.ts';
import { assertStreamInvariants } from '../../src/testing/invariants.ts';
import { createOnEmulator, type EmulatorAdapterOptions, protocolOf } from '../support/provider-types.ts';

type Provider = 'anthropic' | 'chat' | 'responses' | 'stateful' | 'gemini';
/** Each provider's row of the provider-type table (`stateful`: Responses with `previous_response_id` state). */
const rows: Record<Provider, { type: string } & EmulatorAdapterOptions> = {
  anthropic: { type: 'anthropic' },
  chat: { type: 'openai' },
  responses: { type: 'openai-responses' },
  stateful: { type: 'openai-responses', options: { state: 'previous-response' } },
  gemini: { type: 'gemini' },
};
const protocols = Object.fromEntries(
  Object.entries(rows).map(([provider, row]) => [provider, protocolOf(row.type)]),
) as Record<Provider, EmulatorProtocolId>;
const models: Record<Provider, string> = {
  anthropic: 'anthropic:claude-sonnet-4-5',
  chat: 'openai:o4-mini',
  responses: 'openai:gpt-5-mini',
  stateful: 'openai:gpt-5-mini',
  gemini: 'gemini:gemini-3-pro-preview',
};
const tools = [
  {
    name: 'lookup',
    description: 'Look something up',
    inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
  },
];

let emulator: Emulator;
const logger = createMemoryLogger();
const adapters = {} as Record<Provider, Adapter>;

beforeAll(async () => {
  emulator = await startEmulator();
  const common = { apiKey: 'test-key', logger, maxRetries: 0 };
  for (const [provider, { type, ...options }] of Object.entries(rows))
    adapters[provider as Provider] = createOnEmulator(type, emulator.url, { ...common, ...options });
});
afterAll(async () => {
  for (const adapter of Object.values(adapters)) await adapter.close();
  await emulator.close();
});

type Session = ReturnType<typeof createSession>;

/** One turn: reasoning + a tool call; the call and its result are appended, then the next user question. */
async function toolTurn(provider: Provider, transcript: Item[], turn: number, session: Session) {
  emulator.enqueue({
    type: 'scripted',
    protocol: protocols[provider],
    model: models[provider].split(':')[1],
    content: [
      {
        type: 'reasoning',
        text: `Turn ${turn}: I should look this up.`,
        signature: `sig-${provider}-${turn}`,
      },
      { type: 'tool-call', name: 'lookup', input: { q: `question ${turn}` } },
    ],
  });
  const events: StreamEvent[] = [];
  const request = {
    model: models[provider],
    transcript,
    tools,
    maxOutputTokens: 2048,
    reasoning: { budgetTokens: 1024 },
  };
  for await (const event of adapters[provider].stream(request, { session })) events.push(event);
  assertStreamInvariants(events);
  const finish = events.at(-1);
  if (finish?.type !== 'finish') throw new Error(`turn ${turn}: no finish`);
  expect(finish.response.finishReason).toBe('tool-call');
  const call = finish.response.content.find((part): part is ToolCallPart => part.type === 'tool-call');
  if (call === undefined) throw new Error(`turn ${turn}: no tool call`);
  transcript.push({ kind: 'assistant', parts: finish.response.content });
  transcript.push({
    kind: 'tool',
    parts: [
      {
        type: 'tool-result',
        callId: call.id,
        name: 'lookup',
        output: { type: 'text', text: `answer ${turn}` },
        isError: false,
      },
    ],
  });
  transcript.push({ kind: 'user', parts: [{ type: 'text', text: `Thanks. Next question (${turn + 1}).` }] });
  return call;
}

async function runSwap(order: Provider[], between: (turn: number, transcript: Item[]) => void = () => {}) {
  const session = createSession();
  const transcript: Item[] = [
    { kind: 'system', parts: [{ type: 'text', text: 'You are a careful assistant.' }] },
    { kind: 'user', parts: [{ type: 'text', text: 'Question 1.' }] },
  ];
  const calls: ToolCallPart[] = [];
  const firstRequest = emulator.requests.length;
  for (const [turn, provider] of order.entries()) {
    between(turn + 1, transcript);
    calls.push(await toolTurn(provider, transcript, turn + 1, session));
  }
  expect(checkTranscript(transcript)).toEqual([]);
  const requests = emulator.requests
    .slice(firstRequest)
    .map((request) => request.body as Record<string, unknown>);
  expect(requests).toHaveLength(order.length);
  return { session, transcript, calls, requests };
}

const inputTypes = (body: Record<string, unknown> | undefined) =>
  ((body?.input ?? []) as Array<{ type: string }>).map((item) => item.type);

describe('mid-session swap with all four protocols', () => {
  it('Anthropic → Chat → Responses → Gemini → Responses → Anthropic: every request valid, ids intact', async () => {
    const order: Provider[] = ['anthropic', 'chat', 'responses', 'gemini', 'responses', 'anthropic'];
    const run = await runSwap(order);
    for (const [turn, provider] of order.entries()) {
      const body = JSON.stringify(run.requests[turn]);
      for (const [index, call] of run.calls.slice(0, turn).entries()) {
        if (provider !== 'gemini')
          expect(body).toContain(run.session.toolIds.toProvider(adapters[provider].name, call.id));
        expect(body).toContain(`answer ${index + 1}`);
      }
    }
    // Responses replays only its own reasoning, whole: the turn-3 item with its encrypted content.
    const fifth = run.requests[4]!;
    const reasoning = (fifth.input as Array<Record<string, unknown>>).filter(
      (item) => item.type === 'reasoning',
    );
    expect(reasoning).toEqual([expect.objectContaining({ encrypted_content: 'sig-responses-3' })]);
    expect(JSON.stringify(fifth)).not.toContain('sig-anthropic');
    expect(fifth).toMatchObject({ store: false, include: ['reasoning.encrypted_content'] });
  });

  it('Gemini → Responses → Chat → Responses → Anthropic → Gemini', async () => {
    const order: Provider[] = ['gemini', 'responses', 'chat', 'responses', 'anthropic', 'gemini'];
    const run = await runSwap(order);
    expect(inputTypes(run.requests[3])).toContain('function_call_output');
    expect(JSON.stringify(run.requests[3])).toContain('sig-responses-2');
  });

  it('stateful Responses across turns served elsewhere: only new items while the transcript extends the server state', async () => {
    const order: Provider[] = ['stateful', 'anthropic', 'stateful', 'gemini', 'chat', 'stateful'];
    const run = await runSwap(order);
    expect(run.requests[0]).toMatchObject({ store: true });
    expect(run.requests[0]!.previous_response_id).toBeUndefined();
    for (const turn of [2, 5]) {
      const body = run.requests[turn]!;
      expect(body.previous_response_id).toEqual(expect.stringMatching(/^resp_/));
      // Never a held item again: no reasoning or call the server already has.
      const ids = (body.input as Array<{ id?: string }>).flatMap((item) =>
        item.id === undefined ? [] : [item.id],
      );
      expect(ids).toEqual([]);
      expect(inputTypes(body)[0]).toBe('function_call_output');
    }
  });

  it('Responses → Responses across a turn served elsewhere, history compacted in between: one full replay, accepted', async () => {
    const order: Provider[] = ['stateful', 'gemini', 'stateful', 'anthropic', 'stateful', 'chat'];
    const before = logger.entries.length;
    const run = await runSwap(order, (turn, transcript) => {
      // Before turn 3, the agent rewrites the first question (compaction): the server's copy is stale.
      if (turn === 3)
        transcript[1] = { kind: 'user', parts: [{ type: 'text', text: 'Question 1 (compacted).' }] };
    });
    const third = run.requests[2]!;
    expect(third.previous_response_id).toBeUndefined();
    expect(third.store).toBe(true);
    expect(inputTypes(third)).toEqual(
      expect.arrayContaining(['reasoning', 'function_call', 'function_call_output']),
    );
    expect(logger.entries.slice(before).map((entry) => entry.message)).toContain(
      'sent the whole transcript: it no longer extends what the server holds',
    );
    // The replay started a new chain: turn 5 continues it with new items only.
    expect(run.requests[4]!.previous_response_id).toEqual(expect.stringMatching(/^resp_/));
  });
});
