/**
 * Mid-session swap (docs/contract.md §10.2): one session, one transcript, providers alternating with
 * tool calls in every turn, OpenAI-compatible hosts included (Mistral's 9-character ids, DeepSeek's
 * thinking mode). The emulator enforces each protocol's and host's rules (tool results answer the
 * calls just made, ids valid, Gemini 3 signatures, DeepSeek reasoning_content, Claude's thinking
 * block at the start of a tool-use turn under thinking), so an invalid
 * request fails the test. Tool ids are checked against the wire requests the emulator recorded,
 * never against the session's own id map.
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

type Provider =
  'anthropic' | 'openai' | 'gemini' | 'mistral' | 'deepseek' | 'moonshot' | 'bedrock' | 'vertex';
/** Each provider's row of the provider-type table (and the preset of the OpenAI-compatible hosts). */
const rows: Record<Provider, { type: string } & EmulatorAdapterOptions> = {
  anthropic: { type: 'anthropic' },
  openai: { type: 'openai' },
  gemini: { type: 'gemini' },
  mistral: { type: 'openai-compatible', name: 'mistral', preset: 'mistral' },
  deepseek: { type: 'openai-compatible', name: 'deepseek', preset: 'deepseek' },
  moonshot: { type: 'openai-compatible', name: 'moonshot', preset: 'moonshot' },
  bedrock: { type: 'bedrock' },
  vertex: { type: 'vertex' },
};
const protocols = Object.fromEntries(
  Object.entries(rows).map(([provider, row]) => [provider, protocolOf(row.type)]),
) as Record<Provider, EmulatorProtocolId>;
const models: Record<Provider, string> = {
  anthropic: 'anthropic:claude-sonnet-4-5',
  openai: 'openai:o4-mini',
  gemini: 'gemini:gemini-3-pro-preview',
  mistral: 'mistral:magistral-medium-latest',
  deepseek: 'deepseek:deepseek-reasoner',
  moonshot: 'moonshot:kimi-k2-thinking',
  bedrock: 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  vertex: 'vertex:gemini-3-pro-preview',
};
/**
 * The id each provider's response issues for the call of turn `turn`, in that provider's own style
 * (Gemini's scripted calls carry none on the wire; the adapter derives one).
 */
const issuedIds: Record<Provider, ((turn: number) => string) | undefined> = {
  anthropic: (turn) => `toolu_0${turn}SwapTest`,
  openai: (turn) => `call_${turn}SwapTest`,
  gemini: undefined,
  mistral: (turn) => `Mist${turn}abcd`,
  deepseek: (turn) => `call_0${turn}_deepseek`,
  moonshot: (turn) => `lookup:${turn}`,
  bedrock: (turn) => `tooluse_${turn}SwapTestBedrock`,
  vertex: undefined,
};
/** Provider id rules, checked on every id that reaches the provider's wire. */
const idRules: Partial<Record<Provider, RegExp>> = {
  anthropic: /^[a-zA-Z0-9_-]{1,64}$/,
  bedrock: /^[a-zA-Z0-9_-]{1,64}$/,
  mistral: /^[a-zA-Z0-9]{9}$/,
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
    protocol: protocols[provider],
    model: models[provider].slice(models[provider].indexOf(':') + 1),
    content: [
      // The emulator streams Chat Completions reasoning as `reasoning_content`, which Mistral does not use.
      ...(provider === 'mistral'
        ? []
        : [
            {
              type: 'reasoning' as const,
              text: `Turn ${turn}: I should look this up.`,
              signature: `sig-${provider}-${turn}`,
            },
          ]),
      {
        type: 'tool-call',
        id: issuedIds[provider]?.(turn),
        name: 'lookup',
        input: { q: `question ${turn}` },
      },
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

/** The wire ids of the calls and of the results in one recorded request body, by turn number. */
function wireIds(
  protocol: EmulatorProtocolId,
  body: unknown,
): { calls: Map<number, string>; results: Map<number, string> } {
  const calls = new Map<number, string>();
  const results = new Map<number, string>();
  const turnOf = (value: unknown, word: string): number | undefined => {
    const match = new RegExp(`${word} (\\d+)`).exec(JSON.stringify(value));
    return match === null ? undefined : Number(match[1]);
  };
  const record = (map: Map<number, string>, turn: number | undefined, id: unknown) => {
    if (turn !== undefined) map.set(turn, typeof id === 'string' ? id : '(none)');
  };
  const root = body as Record<string, unknown[]>;
  if (protocol === 'anthropic-messages') {
    for (const message of root.messages as Array<{ content: unknown }>) {
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content as Array<Record<string, unknown>>) {
        if (block.type === 'tool_use') record(calls, turnOf(block.input, 'question'), block.id);
        if (block.type === 'tool_result') record(results, turnOf(block.content, 'answer'), block.tool_use_id);
      }
    }
  } else if (protocol === 'bedrock-converse') {
    for (const message of root.messages as Array<{
      content: Array<Record<string, Record<string, unknown>>>;
    }>) {
      for (const block of message.content) {
        if (block.toolUse) record(calls, turnOf(block.toolUse.input, 'question'), block.toolUse.toolUseId);
        if (block.toolResult)
          record(results, turnOf(block.toolResult.content, 'answer'), block.toolResult.toolUseId);
      }
    }
  } else if (protocol === 'gemini') {
    for (const content of root.contents as Array<{ parts: Array<Record<string, Record<string, unknown>>> }>) {
      for (const part of content.parts) {
        if (part.functionCall)
          record(calls, turnOf(part.functionCall.args, 'question'), part.functionCall.id);
        if (part.functionResponse)
          record(results, turnOf(part.functionResponse.response, 'answer'), part.functionResponse.id);
      }
    }
  } else {
    for (const message of root.messages as Array<Record<string, unknown>>) {
      for (const call of (message.tool_calls ?? []) as Array<{ id: string; function: { arguments: string } }>)
        record(calls, turnOf(call.function.arguments, 'question'), call.id);
      if (message.role === 'tool') record(results, turnOf(message.content, 'answer'), message.tool_call_id);
    }
  }
  return { calls, results };
}

/**
 * Tool ids as the recorded wire requests show them, independent of the session's id map: every
 * earlier call and its result reach each provider, paired by the same id; the provider that issued a
 * call gets back exactly the id it issued; another provider gets one id per call, valid under its
 * rule, distinct between calls and stable from one request to the next.
 */
function expectToolIdsSurvive(run: Awaited<ReturnType<typeof runSwap>>, order: Provider[]) {
  const seen = new Map<string, string>();
  for (const [turn, provider] of order.entries()) {
    const request = run.requests[turn];
    const { calls, results } = wireIds(protocols[provider], request?.body);
    const earlier = order.slice(0, turn);
    expect([...calls.keys()].sort()).toEqual(earlier.map((_, index) => index + 1));
    for (const [index, issuer] of earlier.entries()) {
      const callTurn = index + 1;
      const wireId = calls.get(callTurn);
      expect([provider, callTurn, results.get(callTurn)]).toEqual([provider, callTurn, wireId]);
      if (protocols[provider] === 'gemini') continue;
      const issued = issuedIds[issuer]?.(callTurn);
      if (issuer === provider && issued !== undefined) expect(wireId).toBe(issued);
      const rule = idRules[provider];
      if (rule !== undefined) expect(wireId).toMatch(rule);
      const key = `${provider}:${callTurn}`;
      expect([key, wireId]).toEqual([key, seen.get(key) ?? wireId]);
      seen.set(key, wireId ?? '');
    }
    if (protocols[provider] !== 'gemini') expect(new Set(calls.values()).size).toBe(calls.size);
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

  it('OpenAI-compatible hosts in the swap: Mistral gets 9-character ids, DeepSeek its reasoning back', async () => {
    const order: Provider[] = [
      'anthropic',
      'mistral',
      'deepseek',
      'deepseek',
      'mistral',
      'gemini',
      'anthropic',
    ];
    // Turn 3 continues into turn 4, so DeepSeek sees its own call in the current turn, where thinking
    // mode requires its reasoning_content back (the emulator answers 400 otherwise).
    const run = await runSwap(order, new Set([3]));
    expectToolIdsSurvive(run, order);
    const deepseekAgain = run.requests[3]?.body as { messages: Array<Record<string, unknown>> };
    const ownCall = deepseekAgain.messages.find(
      (message) => Array.isArray(message.tool_calls) && JSON.stringify(message).includes('call_03_deepseek'),
    );
    expect(ownCall?.reasoning_content).toBe('Turn 3: I should look this up.');
    // Mistral's ids for the Anthropic and DeepSeek calls were rewritten; its own came back as issued.
    const lastMistral = wireIds('openai-chat', run.requests[4]?.body).calls;
    expect(lastMistral.get(2)).toBe('Mist2abcd');
    expect(lastMistral.get(1)).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(lastMistral.get(3)).toMatch(/^[a-zA-Z0-9]{9}$/);
  });

  it('through the clouds, reasoning on: Anthropic → Bedrock Converse → Vertex Gemini → OpenAI → Bedrock → Vertex', async () => {
    const order: Provider[] = ['anthropic', 'bedrock', 'vertex', 'openai', 'bedrock', 'vertex'];
    // Turn 2 continues into turn 3 without user text: Vertex's Gemini 3 sees Bedrock's unsigned call
    // in its current turn, where the emulator enforces the signature rule.
    const run = await runSwap(order, new Set([2]));
    expectToolIdsSurvive(run, order);
    // Bedrock's own signed reasoning goes back to Bedrock as reasoningContent; Anthropic's does not.
    const lastBedrock = JSON.stringify(run.requests[4]?.body);
    expect(lastBedrock).toContain(
      '"reasoningText":{"text":"Turn 2: I should look this up.","signature":"sig-bedrock-2"}',
    );
    expect(lastBedrock).not.toContain('sig-anthropic-1');
    // Vertex's own thought signature travels back to Vertex; the foreign calls carry the sentinel.
    const lastVertex = JSON.stringify(run.requests[5]?.body);
    expect(lastVertex).toContain('sig-vertex-3');
    expect(JSON.stringify(run.requests[2]?.body)).toContain('skip_thought_signature_validator');
    // Bedrock was asked with SigV4's bearer alternative, at its one-segment model path.
    expect(run.requests[1]?.path).toBe(
      '/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream',
    );
    expect(run.requests[2]?.path).toMatch(
      /\/publishers\/google\/models\/gemini-3-pro-preview:streamGenerateContent$/,
    );
  });

  it('into Claude on Bedrock Converse mid tool loop, reasoning on: thinking runs only where Claude opened the turn', async () => {
    // Turns 1, 3, 5 and 7 continue into the next without user text: Bedrock sees its own call (turn 2),
    // then Gemini's, OpenAI's and Anthropic's (whose signature Bedrock cannot verify) in its current
    // turn, where Claude under thinking refuses an assistant message that starts without a reasoning
    // block (the emulator answers that 400).
    const order: Provider[] = [
      'bedrock',
      'bedrock',
      'gemini',
      'bedrock',
      'openai',
      'bedrock',
      'anthropic',
      'bedrock',
    ];
    const before = logger.entries.length;
    const run = await runSwap(order, new Set([1, 3, 5, 7]));
    expectToolIdsSurvive(run, order);
    const thinking = order.flatMap((provider, turn) => {
      if (provider !== 'bedrock') return [];
      const body = run.requests[turn]?.body as { additionalModelRequestFields?: { thinking?: unknown } };
      return [[turn + 1, body.additionalModelRequestFields?.thinking !== undefined]];
    });
    expect(thinking).toEqual([
      [1, true],
      [2, true],
      [4, false],
      [6, false],
      [8, false],
    ]);
    // Each call without thinking says so.
    const disabled = logger.entries
      .slice(before)
      .filter((entry) => entry.message.startsWith('thinking disabled for this turn'));
    expect(disabled.map((entry) => entry.fields)).toEqual([
      expect.objectContaining({ adapter: 'bedrock', messageIndex: 5, firstBlock: 'toolUse' }),
      expect.objectContaining({ adapter: 'bedrock', messageIndex: 9, firstBlock: 'toolUse' }),
      expect.objectContaining({ adapter: 'bedrock', messageIndex: 13, firstBlock: 'toolUse' }),
    ]);
  });

  it('into Claude on Anthropic mid tool loop, reasoning on: the call runs without thinking', async () => {
    const order: Provider[] = ['gemini', 'anthropic', 'openai', 'anthropic'];
    const run = await runSwap(order, new Set([1, 3]));
    expectToolIdsSurvive(run, order);
    for (const turn of [1, 3])
      expect((run.requests[turn]?.body as { thinking?: unknown }).thinking).toBeUndefined();
  });

  it('into deepseek-reasoner and Kimi mid tool loop, reasoning on: foreign calls carry a reasoning_content', async () => {
    // Turns 1, 3 and 5 continue into the next without user text: DeepSeek sees Claude's and OpenAI's
    // calls in its current turn, Kimi Claude's and DeepSeek's. Thinking mode answers 400 for a
    // tool-call message without reasoning_content (DeepSeek: current turn; Kimi: any turn, and an
    // empty one is missing).
    const order: Provider[] = ['anthropic', 'deepseek', 'openai', 'deepseek', 'anthropic', 'moonshot'];
    const run = await runSwap(order, new Set([1, 3, 5]));
    expectToolIdsSurvive(run, order);
    const replayed = (turn: number) =>
      (run.requests[turn - 1]?.body as { messages: Array<Record<string, unknown>> }).messages
        .filter((message) => Array.isArray(message.tool_calls))
        .map((message) => message.reasoning_content);
    // DeepSeek: '' for a call another provider made, its own reasoning for its own.
    expect(replayed(2)).toEqual(['']);
    expect(replayed(4)).toEqual(['', 'Turn 2: I should look this up.', '']);
    // Kimi: '.' for every call it did not make (it refuses an empty reasoning_content).
    expect(replayed(6)).toEqual(['.', '.', '.', '.', '.']);
  });
});
