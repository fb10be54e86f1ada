import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../core/events.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { checkTranscript } from '../core/transcript-invariants.ts';
import { routingDecision } from '../routing/decision.ts';
import type { Switchyard } from '../switchyard.ts';
import {
  anthropicError,
  type Emulator,
  type EmulatorProtocolId,
  startEmulator,
} from '../testing/emulator/index.ts';
import { assertStreamInvariants } from '../testing/invariants.ts';
import { textOf } from '../core/reply.ts';
import { addUsage, assistantItem, toolResultItem } from './helpers.ts';
import { createEmulatedSwitchyard } from '../../test/support/emulated.ts';

let emulator: Emulator;
const logger = createMemoryLogger();

beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

function front(): Switchyard {
  return createEmulatedSwitchyard(emulator.url, {
    logger,
    adapters: { anthropic: 'anthropic', openai: 'openai', gemini: 'gemini' },
    apiKey: 'test-key-conversation',
    config: {
      models: {
        'anthropic:claude-sonnet-4-5': { aliases: ['sonnet'] },
        'openai:gpt-4.1-mini': { aliases: ['mini'] },
        'gemini:gemini-2.5-flash': { aliases: ['flash'] },
      },
    },
  });
}

const tools = [
  {
    name: 'lookup',
    description: 'Look up a fact',
    inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
  },
];

function scriptToolCall(protocol: EmulatorProtocolId, turn: number) {
  emulator.enqueue({
    type: 'scripted',
    protocol,
    content: [{ type: 'tool-call', name: 'lookup', input: { q: `question ${turn}` } }],
    usage: { input: 100 * turn, output: 10 },
  });
}

describe('a 4-turn tool conversation through three providers, saved and restored mid-way', () => {
  it('keeps transcript, tool-id map, usage and cost across the save', async () => {
    const first = front();
    const chat = first.conversation({ model: 'sonnet', system: 'Use the lookup tool.', tools });
    const firstRequest = emulator.requests.length;

    scriptToolCall('anthropic-messages', 1);
    const one = await chat.send('Question one');
    expect(one.toolCalls).toHaveLength(1);
    chat.addToolResults(one.toolCalls.map((call) => ({ call, output: { answer: 1 } })));

    chat.model = 'mini';
    scriptToolCall('openai-chat', 2);
    const events: StreamEvent[] = [];
    const turn = chat.send('Question two');
    for await (const event of turn) events.push(event);
    assertStreamInvariants(events);
    const two = await turn;
    expect(two.provider).toBe('openai');
    chat.addToolResults(two.toolCalls.map((call) => ({ call, output: 'answer 2' })));

    const saved = JSON.parse(JSON.stringify(chat.toJSON()));
    await first.close();

    const second = front();
    const restored = second.conversation.fromJSON(saved);
    expect(restored.transcript).toEqual(chat.transcript);
    expect(restored.session.toolIds.toJSON()).toEqual(chat.session.toolIds.toJSON());
    expect(restored.usage).toEqual(chat.usage);
    expect(restored.model).toBe('mini');

    restored.model = 'flash';
    scriptToolCall('gemini', 3);
    const three = await restored.send('Question three');
    expect(three.provider).toBe('gemini');
    restored.addToolResults(three.toolCalls.map((call) => ({ call, output: 'answer 3' })));

    restored.model = 'sonnet';
    emulator.enqueue({
      type: 'scripted',
      protocol: 'anthropic-messages',
      content: [{ type: 'text', text: 'All answered.' }],
      usage: { input: 400, output: 5 },
    });
    const four = await restored.send('Summarise');
    expect(four.text).toBe('All answered.');
    await second.close();

    // Every request was valid for its protocol (the emulator enforces tool ids and ordering).
    const protocols = emulator.requests.slice(firstRequest).map((request) => request.protocol);
    expect(protocols).toEqual(['anthropic-messages', 'openai-chat', 'gemini', 'anthropic-messages']);
    // The last Anthropic request carries every earlier call with tool_result answers in order.
    const last = emulator.requests.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> };
    const toolUses = JSON.stringify(last.messages).match(/"type":"tool_use"/g) ?? [];
    expect(toolUses).toHaveLength(3);

    expect(checkTranscript(restored.transcript)).toEqual([]);
    expect(restored.turns).toBe(4);
    expect(restored.transcript.map((item) => item.kind)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
    ]);
    expect(restored.usage).toMatchObject({ input: 1000, output: 35 });
    const expected = [one, two, three, four].reduce(
      (sum, reply) => sum + (reply.usage.cost?.amount ?? NaN),
      0,
    );
    expect(restored.usage.cost?.amount).toBeCloseTo(expected, 10);
    expect(restored.usage.cost?.currency).toBe('USD');
    expect(restored.transcript.at(-1)?.metadata).toMatchObject({
      'switchyard.model': 'anthropic:claude-sonnet-4-5',
      'switchyard.provider': 'anthropic',
    });
    expect(routingDecision(four)?.served).toBe('anthropic:claude-sonnet-4-5');
  });
});

describe('helpers', () => {
  const response = {
    requestId: 'r1' as never,
    model: 'openai:gpt-4o',
    provider: 'openai',
    content: [
      { type: 'text' as const, text: 'Hello ' },
      { type: 'tool-call' as const, id: 'tc_1' as never, name: 'lookup', input: {} },
      { type: 'text' as const, text: 'world' },
    ],
    finishReason: 'tool-call' as const,
    usage: {
      input: 1,
      cacheRead: 0,
      cacheWrite: 0,
      output: 2,
      reasoning: 0,
      cost: { amount: 0.5, currency: 'USD' },
    },
    latencyMs: 1,
  };
  it('textOf joins text parts; assistantItem keeps model, provider and usage', () => {
    expect(textOf(response.content)).toBe('Hello world');
    expect(assistantItem(response)).toMatchObject({
      kind: 'assistant',
      metadata: { 'switchyard.model': 'openai:gpt-4o', 'switchyard.usage': { cost: { amount: 0.5 } } },
    });
  });
  it('toolResultItem takes text, JSON and error results', () => {
    const call = { id: 'tc_1' as never, name: 'lookup' };
    expect(
      toolResultItem([
        { call, output: 'ok' },
        { call, output: { n: 1 } },
        { call, output: 'boom', isError: true },
      ]).parts,
    ).toEqual([
      {
        type: 'tool-result',
        callId: 'tc_1',
        name: 'lookup',
        output: { type: 'text', text: 'ok' },
        isError: false,
      },
      {
        type: 'tool-result',
        callId: 'tc_1',
        name: 'lookup',
        output: { type: 'json', value: { n: 1 } },
        isError: false,
      },
      {
        type: 'tool-result',
        callId: 'tc_1',
        name: 'lookup',
        output: { type: 'text', text: 'boom' },
        isError: true,
      },
    ]);
  });
  it('addUsage sums buckets and costs; an unknown cost makes the sum unknown', () => {
    const empty = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 };
    const priced = response.usage;
    expect(addUsage(empty, priced).cost?.amount).toBe(0.5);
    expect(addUsage(priced, priced)).toMatchObject({
      input: 2,
      output: 4,
      cost: { amount: 1, currency: 'USD' },
    });
    const { cost: _cost, ...unpriced } = priced;
    expect(addUsage(priced, unpriced).cost).toBeUndefined();
  });
});

describe('addToolResults checks what it appends (once in, a bad item would fail every later turn)', () => {
  it.each([
    ['a BigInt output', { answer: 1n } as never, /expected a JSON value|BigInt/],
    [
      'a cyclic output',
      (() => {
        const value: Record<string, unknown> = {};
        value.self = value;
        return value;
      })() as never,
      /circular/,
    ],
    ['a __proto__ key', JSON.parse('{"__proto__": {"polluted": true}}') as never, /__proto__/],
  ])('%s: refused, naming it, the transcript unchanged', async (_name, output, message) => {
    const sy = front();
    const chat = sy.conversation({ model: 'sonnet', tools });
    scriptToolCall('anthropic-messages', 1);
    const reply = await chat.send('Question');
    const before = chat.transcript.length;
    expect(() => chat.addToolResults(reply.toolCalls.map((call) => ({ call, output })))).toThrow(message);
    expect(chat.transcript.length).toBe(before);
    await sy.close();
  });

  it('a result for a call the model never made: refused, naming it', async () => {
    const sy = front();
    const chat = sy.conversation({ model: 'sonnet', tools });
    scriptToolCall('anthropic-messages', 1);
    await chat.send('Question');
    const never = { id: 'tu_01HZNEVERCALLED0000000000A' as never, name: 'lookup' };
    expect(() => chat.addToolResults([{ call: never, output: 'x' }])).toThrow(/no earlier tool call/);
    await sy.close();
  });
});

describe('a send refused before anything is sent leaves the transcript as it was', () => {
  /** The texts of the user messages of the last request the emulator received. */
  const lastUserTexts = () =>
    (emulator.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> }).messages
      .filter((message) => message.role === 'user')
      .flatMap((message) =>
        (message.content as Array<{ type: string; text?: string }>).flatMap((block) =>
          block.type === 'text' ? [block.text] : [],
        ),
      );

  it('options that are not an object: refused, the input not added; sending it again sends it once', async () => {
    const sy = front();
    const chat = sy.conversation({ model: 'sonnet' });
    await expect(chat.send('question one', null as never)).rejects.toMatchObject({
      message: expect.stringMatching(/options: call options must be an object/),
    });
    expect(chat.transcript).toEqual([]);
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'answer' }] });
    await chat.send('question one');
    expect(lastUserTexts()).toEqual(['question one']);
    await sy.close();
  });

  it('a question before the tool results: refused by the request check, the question not kept', async () => {
    const sy = front();
    const chat = sy.conversation({ model: 'sonnet', tools });
    scriptToolCall('anthropic-messages', 1);
    const reply = await chat.send('Question');
    const before = chat.transcript.length;
    const requests = emulator.requests.length;
    await expect(chat.send('never mind, another question')).rejects.toThrow(/has no tool result/);
    expect(chat.transcript.length).toBe(before);
    expect(emulator.requests.length).toBe(requests);
    chat.addToolResults(reply.toolCalls.map((call) => ({ call, output: 'found' })));
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'done' }] });
    await chat.send();
    expect(lastUserTexts()).toEqual(['Question']);
    await sy.close();
  });

  it("refused by the adapter's own checks (an output limit over the model's): nothing sent, the input not kept; sending it again sends it once", async () => {
    const sy = front();
    const chat = sy.conversation({ model: 'anthropic:claude-3-5-haiku-20241022', maxOutputTokens: 20_000 });
    const requests = emulator.requests.length;
    await expect(chat.send('question one')).rejects.toThrow(/takes at most 8192 output tokens/);
    expect(emulator.requests.length).toBe(requests);
    expect(chat.transcript).toEqual([]);
    chat.model = 'anthropic:claude-sonnet-4-5';
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'answer' }] });
    await chat.send('question one');
    expect(lastUserTexts()).toEqual(['question one']);
    await sy.close();
  });

  it("refused by the adapter's own checks, read by iterating: the input is gone when the error is raised", async () => {
    const sy = front();
    const chat = sy.conversation({ model: 'anthropic:claude-3-5-haiku-20241022', maxOutputTokens: 20_000 });
    let transcriptAtError: number | undefined;
    try {
      for await (const _event of chat.send('question one'));
    } catch {
      transcriptAtError = chat.transcript.length;
    }
    expect(transcriptAtError).toBe(0);
    await sy.close();
  });

  it('refused by the provider (the request was sent): the input stays, as the provider saw it', async () => {
    const sy = front();
    const chat = sy.conversation({ model: 'anthropic:claude-sonnet-4-5' });
    emulator.enqueue(anthropicError(400, 'invalid_request_error', 'refused upstream'));
    await expect(chat.send('question one')).rejects.toThrow(/refused upstream/);
    expect(chat.transcript).toHaveLength(1);
    await sy.close();
  });
});

it.each([
  ['counts as strings', { input: '1000', cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 }],
  [
    'a negative cost',
    {
      input: 1,
      cacheRead: 0,
      cacheWrite: 0,
      output: 1,
      reasoning: 0,
      cost: { amount: -1e9, currency: 'USD' },
    },
  ],
  ['no counts', {}],
])('conversation.fromJSON: a snapshot whose usage has %s is refused, naming usage', async (_name, usage) => {
  const sy = front();
  const saved = JSON.parse(JSON.stringify(sy.conversation({ model: 'sonnet' }).toJSON()));
  expect(() => sy.conversation.fromJSON({ ...saved, usage })).toThrow(/usage/);
  await sy.close();
});

it('a snapshot never carries provider options: toJSON leaves them out, fromJSON refuses a snapshot holding them (or an unknown setting) unless the caller passes its own, and those are what is sent', async () => {
  const sy = front();
  const chat = sy.conversation({ model: 'mini', providerOptions: { openai: { seed: 7 } } });
  const saved = JSON.parse(JSON.stringify(chat.toJSON()));
  expect(saved.settings).toEqual({ model: 'mini' });
  const injected = { openai: { model: 'o1-pro', messages: [{ role: 'user', content: 'injected' }] } };
  const hostile = { ...saved, settings: { ...saved.settings, providerOptions: injected } };
  expect(() => sy.conversation.fromJSON(hostile)).toThrow(
    /snapshot\.settings\.providerOptions: provider options are not restored from a snapshot/,
  );
  expect(() => sy.conversation.fromJSON({ ...saved, settings: { ...saved.settings, route: 'x' } })).toThrow(
    /snapshot\.settings\.route: not a conversation setting/,
  );
  expect(() => sy.conversation.fromJSON(saved, { providerOptions: 'x' } as never)).toThrow(
    /options\.providerOptions/,
  );
  const restored = sy.conversation.fromJSON(hostile, { providerOptions: { openai: { seed: 7 } } });
  emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'fine' }] });
  const reply = await restored.send('hello');
  expect(reply.model).toBe('openai:gpt-4.1-mini');
  const body = emulator.requests.at(-1)!.body as { model: string; seed: number; messages: unknown[] };
  expect(body).toMatchObject({ model: 'gpt-4.1-mini', seed: 7 });
  expect(body.messages).toEqual([{ role: 'user', content: 'hello' }]);
  await sy.close();
});

it('a snapshot keeps every tool spec field: a freeform tool stays freeform, a strict one strict (no schema or execute)', async () => {
  const sy = front();
  const freeform = {
    name: 'apply_patch',
    inputSchema: { type: 'object', properties: { input: { type: 'string' } } },
    freeform: { type: 'text' as const },
  };
  const strict = { ...tools[0]!, strict: true, execute: () => 'x' };
  const chat = sy.conversation({ model: 'sonnet', tools: [freeform, strict] });
  expect(JSON.parse(JSON.stringify(chat)).settings.tools).toEqual([
    freeform,
    { name: 'lookup', description: 'Look up a fact', inputSchema: tools[0]!.inputSchema, strict: true },
  ]);
  await sy.close();
});

it('web searches add up across turns, priced in the cost, and survive a save (conversation.fromJSON)', async () => {
  const sy = front();
  const chat = sy.conversation({ model: 'sonnet' });
  const searched = (searches: number) =>
    emulator.enqueue({
      type: 'json',
      body: {
        id: `msg_search_${searches}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text: 'Found.' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 1000, output_tokens: 100, server_tool_use: { web_search_requests: searches } },
      },
    });
  searched(2);
  const first = await chat.send('Search once');
  // Claude Sonnet 4.5: 1,000 × $3 + 100 × $15 per million, 2 searches × $0.01.
  expect(first.usage).toMatchObject({ webSearches: 2, cost: { amount: 0.0245, webSearchFees: 0.02 } });
  searched(1);
  await chat.send('Search again');
  expect(chat.usage).toMatchObject({ webSearches: 3, cost: { amount: 0.039, webSearchFees: 0.03 } });
  const restored = sy.conversation.fromJSON(JSON.parse(JSON.stringify(chat.toJSON())));
  expect(restored.usage).toEqual(chat.usage);
  await sy.close();
});
