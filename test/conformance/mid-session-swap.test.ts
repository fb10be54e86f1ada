/**
 * Mid-session swap (contract §10.2.2–3): one session, one transcript, providers alternating with
 * tool calls in every turn. The emulator enforces each protocol's rules (tool results answer the
 * calls just made, ids valid, Gemini 3 signatures), so an invalid request fails the test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Adapter, createSession } from '../../src/core/adapter.ts';
import type { StreamEvent } from '../../src/core/events.ts';
import { createMemoryLogger } from '../../src/core/logger.ts';
import { checkTranscript } from '../../src/core/transcript-invariants.ts';
import type { Item, ToolCallPart } from '../../src/core/transcript.ts';
import { createAnthropic } from '../../src/providers/anthropic/index.ts';
import { createGemini } from '../../src/providers/gemini/index.ts';
import { createOpenAI } from '../../src/providers/openai-chat/index.ts';
import { type Emulator, type EmulatorApi, startEmulator } from '../../src/testing/emulator/index.ts';
import { assertStreamInvariants } from '../../src/testing/invariants.ts';

type Provider = 'anthropic' | 'openai' | 'gemini';
const apis: Record<Provider, EmulatorApi> = {
  anthropic: 'anthropic-messages',
  openai: 'openai-chat',
  gemini: 'gemini',
};
const models: Record<Provider, string> = {
  anthropic: 'anthropic:claude-sonnet-4-5',
  openai: 'openai:o4-mini',
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
  adapters.anthropic = createAnthropic({ ...common, baseURL: `${emulator.url}/v1` });
  adapters.openai = createOpenAI({ ...common, baseURL: `${emulator.url}/v1` });
  adapters.gemini = createGemini({ ...common, baseURL: `${emulator.url}/v1beta` });
});
afterAll(async () => {
  for (const adapter of Object.values(adapters)) await adapter.close();
  await emulator.close();
});

/** Runs one turn: the provider answers with reasoning + a tool call; we append the call and its result. */
async function toolTurn(
  provider: Provider,
  transcript: Item[],
  turn: number,
  session: ReturnType<typeof createSession>,
  /** Continue the same turn (no new user text), so the next provider sees these calls in its current turn. */
  sameTurn = false,
) {
  emulator.enqueue({
    type: 'scripted',
    api: apis[provider],
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
  if (finish?.type !== 'finish') throw new Error('no finish');
  expect(finish.response.finishReason).toBe('tool-call');
  const call = finish.response.content.find((part): part is ToolCallPart => part.type === 'tool-call');
  if (call === undefined) throw new Error(`turn ${turn}: no tool call`);
  expect(call.id).toMatch(/^tu_/);
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
  if (!sameTurn) {
    transcript.push({
      kind: 'user',
      parts: [{ type: 'text', text: `Thanks. Next question (${turn + 1}).` }],
    });
  }
  return call;
}

async function runSwap(order: Provider[], sameTurnAfter: ReadonlySet<number> = new Set()) {
  const session = createSession();
  const transcript: Item[] = [
    { kind: 'system', parts: [{ type: 'text', text: 'You are a careful assistant.' }] },
    { kind: 'user', parts: [{ type: 'text', text: 'Question 1.' }] },
  ];
  const calls: ToolCallPart[] = [];
  const firstRequest = emulator.requests.length;
  for (const [turn, provider] of order.entries())
    calls.push(await toolTurn(provider, transcript, turn + 1, session, sameTurnAfter.has(turn + 1)));
  expect(checkTranscript(transcript)).toEqual([]);
  const requests = emulator.requests.slice(firstRequest);
  expect(requests).toHaveLength(order.length);
  return { session, transcript, calls, requests };
}

/** Every earlier tool call's provider id (as this provider sees it) appears in the request body. */
function expectToolIdsSurvive(run: Awaited<ReturnType<typeof runSwap>>, order: Provider[]) {
  for (const [turn, provider] of order.entries()) {
    const body = JSON.stringify(run.requests[turn]?.body);
    for (const call of run.calls.slice(0, turn)) {
      const wireId = run.session.toolIds.toProvider(adapters[provider].name, call.id);
      if (provider !== 'gemini') expect(body).toContain(wireId);
      // Tool results reach the right calls: the result text of each earlier call is in the request.
      expect(body).toContain(`answer ${run.calls.indexOf(call) + 1}`);
    }
  }
}

describe('mid-session swap', () => {
  it('6 turns alternating Anthropic / OpenAI with tool calls: every request valid, ids intact, nothing silently lost', async () => {
    const order: Provider[] = ['anthropic', 'openai', 'anthropic', 'openai', 'anthropic', 'openai'];
    const before = logger.entries.length;
    const run = await runSwap(order);
    expectToolIdsSurvive(run, order);
    // Canonical ids are unique across providers.
    expect(new Set(run.calls.map((call) => call.id)).size).toBe(order.length);
    // Reasoning that cannot travel is dropped with a structured WARN, never silently.
    const warnings = logger.entries.slice(before);
    expect(warnings.length).toBeGreaterThan(0);
    for (const warning of warnings)
      expect(warning.fields).toMatchObject({
        adapter: expect.any(String),
        blockType: 'reasoning',
        reason: expect.any(String),
      });
    // Anthropic's own signed thinking goes back verbatim to Anthropic.
    const lastAnthropicBody = JSON.stringify(run.requests[4]?.body);
    expect(lastAnthropicBody).toContain('sig-anthropic-1');
    expect(lastAnthropicBody).not.toContain('sig-openai');
  });

  it('three providers, reasoning on: Anthropic → OpenAI → Gemini → Anthropic → Gemini → OpenAI', async () => {
    const order: Provider[] = ['anthropic', 'openai', 'gemini', 'anthropic', 'gemini', 'openai'];
    // Turns 2 and 4 continue into the next turn without user text, so Gemini 3 sees OpenAI's and
    // Anthropic's unsigned calls in its *current* turn, where the emulator enforces the signature rule.
    const run = await runSwap(order, new Set([2, 4]));
    expectToolIdsSurvive(run, order);
    for (const geminiTurn of [2, 4]) {
      const body = JSON.stringify(run.requests[geminiTurn]?.body);
      expect(body).toContain('functionResponse');
      // Foreign calls carry the documented sentinel, never an invented signature.
      expect(body).toContain('skip_thought_signature_validator');
    }
  });
});
