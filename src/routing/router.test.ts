import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../core/events.ts';
import { userText } from '../core/transcript.ts';
import type { SwitchyardConfig } from '../registry/config.ts';
import type { Switchyard } from '../switchyard.ts';
import { anthropicError, openaiError, type EmulatorScript } from '../testing/emulator/index.ts';
import { assertStreamInvariants } from '../testing/invariants.ts';
import { type AvailabilityStore, createMemoryAvailabilityStore } from './availability.ts';
import { routingDecision, routingDecisionOfError } from './decision.ts';
import { createEmulatedSwitchyard } from '../../test/support/emulated.ts';
import { useRoutingEmulator } from '../../test/support/routing-emulator.ts';

let sy: Switchyard;
let now = 0;
const emulator = useRoutingEmulator(() => sy);

function front(models: SwitchyardConfig['models'] = {}, routing?: SwitchyardConfig['routing']): Switchyard {
  sy = createEmulatedSwitchyard(emulator.url, {
    now: () => now,
    adapters: { anthropic: 'anthropic', openai: 'openai', gemini: 'gemini' },
    apiKey: 'test-key-routing',
    config: {
      models: {
        'anthropic:claude-sonnet-4-5': {
          aliases: ['primary'],
          fallbacks: ['openai:gpt-4.1-mini', 'gemini:gemini-2.5-flash'],
        },
        ...models,
      },
      ...(routing === undefined ? {} : { routing }),
    },
  });
  return sy;
}

const hello = { model: 'primary', transcript: [userText('Hello')] };
const text = (value: string) => ({
  type: 'scripted' as const,
  content: [{ type: 'text' as const, text: value }],
});
const apisCalled = (from: number) => emulator.requests.slice(from).map((request) => request.protocol);

describe('fallback on failures that warrant it', () => {
  it.each([
    ['429 rate limit', anthropicError(429, 'rate_limit_error', 'Rate limited'), 'rate_limit'],
    ['529 overloaded', anthropicError(529, 'overloaded_error', 'Overloaded'), 'server_error'],
    ['500 server error', anthropicError(500, 'api_error', 'Internal error'), 'server_error'],
    [
      'connection reset',
      {
        type: 'scripted' as const,
        content: [{ type: 'text' as const, text: 'x' }],
        fault: { disconnectAfterBytes: 5 },
      },
      'network',
    ],
  ] satisfies Array<[string, EmulatorScript, string]>)(
    '%s → the next candidate serves, and the decision says why',
    async (_name, failure, errorClass) => {
      front();
      const from = emulator.requests.length;
      emulator.enqueue(failure);
      emulator.enqueue(text('from openai'));
      const reply = await sy.complete(hello);
      expect(reply.text).toBe('from openai');
      expect(reply.model).toBe('openai:gpt-4.1-mini');
      expect(apisCalled(from)).toEqual(['anthropic-messages', 'openai-chat']);
      const decision = routingDecision(reply)!;
      expect(decision.served).toBe('openai:gpt-4.1-mini');
      expect(
        decision.attempts.map((attempt) => [attempt.model, attempt.outcome, attempt.errorClass]),
      ).toEqual([
        ['anthropic:claude-sonnet-4-5', 'failed', errorClass],
        ['openai:gpt-4.1-mini', 'served', undefined],
      ]);
    },
  );
});

describe('no fallback on invalid request or auth', () => {
  it.each([
    ['400 invalid request', anthropicError(400, 'invalid_request_error', 'messages: bad'), 'invalid_request'],
    ['401 auth', anthropicError(401, 'authentication_error', 'invalid x-api-key'), 'auth'],
  ] as const)('%s fails at once with the decision attached', async (_name, failure, errorClass) => {
    front();
    const from = emulator.requests.length;
    emulator.enqueue(failure);
    const error = await sy.complete(hello).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorClass });
    expect(apisCalled(from)).toEqual(['anthropic-messages']);
    expect(routingDecisionOfError(error)?.attempts).toEqual([
      expect.objectContaining({ model: 'anthropic:claude-sonnet-4-5', outcome: 'failed', errorClass }),
    ]);
  });
});

describe('pre-dispatch skips', () => {
  it('a candidate lacking a needed capability is skipped with the capability named', async () => {
    front({
      'anthropic:claude-sonnet-4-5': {
        aliases: ['primary'],
        fallbacks: ['openai:gpt-4.1-mini'],
        capabilities: { tools: false },
      },
    });
    const from = emulator.requests.length;
    emulator.enqueue(text('with tools'));
    const tools = [{ name: 'lookup', inputSchema: { type: 'object', properties: {} } }];
    const reply = await sy.complete({ ...hello, tools });
    expect(apisCalled(from)).toEqual(['openai-chat']);
    expect(routingDecision(reply)?.attempts[0]).toEqual({
      model: 'anthropic:claude-sonnet-4-5',
      provider: 'anthropic',
      outcome: 'skipped',
      reason: 'lacks tools',
    });
  });

  it('a context window smaller than the local estimate is skipped', async () => {
    front({
      'anthropic:claude-sonnet-4-5': {
        aliases: ['primary'],
        fallbacks: ['openai:gpt-4.1-mini'],
        capabilities: { contextWindow: 100 },
      },
    });
    emulator.enqueue(text('long'));
    const reply = await sy.complete({ model: 'primary', transcript: [userText('word '.repeat(2000))] });
    expect(routingDecision(reply)?.attempts[0]?.reason).toMatch(
      /^context window 100 < estimated \d+ input tokens \(over 1\.5×\)$/,
    );
    expect(reply.model).toBe('openai:gpt-4.1-mini');
  });

  it('an estimate within 1.5× of the window is dispatched, not skipped (estimate error never skips)', async () => {
    front({
      'anthropic:claude-sonnet-4-5': {
        aliases: ['primary'],
        fallbacks: ['openai:gpt-4.1-mini'],
        capabilities: { contextWindow: 1_000 },
      },
    });
    emulator.enqueue(text('fits'));
    const reply = await sy.complete({ model: 'primary', transcript: [userText('word '.repeat(1_100))] });
    expect(reply.text).toBe('fits');
    expect(reply.model).toBe('anthropic:claude-sonnet-4-5');
    expect(routingDecision(reply)?.attempts).toHaveLength(1);
  });

  it('when every candidate is skipped, the error lists each reason and nothing is sent', async () => {
    front({ 'anthropic:claude-sonnet-4-5': { aliases: ['primary'], capabilities: { images: false } } });
    const from = emulator.requests.length;
    const image = {
      type: 'media' as const,
      modality: 'image' as const,
      mimeType: 'image/png',
      data: { type: 'base64' as const, data: 'iVBORw0KGgo=' },
    };
    const error = await sy
      .complete({ model: 'primary', transcript: [{ kind: 'user', parts: [image] }] })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorClass: 'invalid_request', providerCode: 'no_candidate' });
    expect((error as Error).message).toContain('anthropic:claude-sonnet-4-5: lacks images');
    expect(emulator.requests.length).toBe(from);
  });
});

describe('context overflow fails over to a larger window only', () => {
  it('skips a candidate whose window is not larger and serves from the larger one', async () => {
    front({
      'anthropic:claude-sonnet-4-5': {
        aliases: ['primary'],
        fallbacks: ['openai:gpt-4.1-mini', 'gemini:gemini-2.5-flash'],
        capabilities: { contextWindow: 200_000 },
      },
      'openai:gpt-4.1-mini': { capabilities: { contextWindow: 128_000 } },
      'gemini:gemini-2.5-flash': { capabilities: { contextWindow: 1_000_000 } },
    });
    const from = emulator.requests.length;
    emulator.enqueue(
      anthropicError(400, 'invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum'),
    );
    emulator.enqueue(text('from gemini'));
    const reply = await sy.complete(hello);
    expect(reply.text).toBe('from gemini');
    expect(apisCalled(from)).toEqual(['anthropic-messages', 'gemini']);
    expect(
      routingDecision(reply)?.attempts.map(
        (attempt) => attempt.outcome + ':' + (attempt.errorClass ?? attempt.reason ?? ''),
      ),
    ).toEqual([
      'failed:context_overflow',
      'skipped:context window 128000 is not larger than 200000, which overflowed',
      'served:',
    ]);
  });
});

describe('streams', () => {
  it('a stream failing before its first event fails over; the consumer sees one clean stream', async () => {
    front();
    emulator.enqueue(anthropicError(529, 'overloaded_error', 'Overloaded'));
    emulator.enqueue(text('streamed from openai'));
    const events: StreamEvent[] = [];
    for await (const event of sy.stream(hello)) events.push(event);
    assertStreamInvariants(events);
    expect(events.filter((event) => event.type === 'message-start')).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'message-start', provider: 'openai' });
    const finish = events.at(-1);
    expect(finish?.type).toBe('finish');
    if (finish?.type !== 'finish') return;
    expect(finish.response.usage.cost?.currency).toBe('USD');
    expect(routingDecision(finish.response)?.attempts.map((attempt) => attempt.outcome)).toEqual([
      'failed',
      'served',
    ]);
  });

  it.each([
    ['with content', [{ type: 'text' as const, text: 'Let me call ' }]],
    ['with none', []],
  ])(
    'a model failure (Gemini MALFORMED_FUNCTION_CALL, %s) ends the stream with finish(error) and no throw, as complete() returns it',
    async (_, content) => {
      front({ 'gemini:gemini-2.5-flash': { aliases: ['flash'] } });
      const script = { type: 'scripted' as const, content, finishReason: 'MALFORMED_FUNCTION_CALL' };
      emulator.enqueue(script);
      const events: StreamEvent[] = [];
      const stream = sy.stream({ ...hello, model: 'flash' });
      for await (const event of stream) events.push(event);
      assertStreamInvariants(events);
      const finish = events.at(-1);
      expect(finish).toMatchObject({
        type: 'finish',
        response: { finishReason: 'error', rawFinishReason: 'MALFORMED_FUNCTION_CALL' },
      });
      expect((await stream.result()).finishReason).toBe('error');
      emulator.enqueue(script);
      expect(await sy.complete({ ...hello, model: 'flash' })).toMatchObject({
        finishReason: 'error',
        rawFinishReason: 'MALFORMED_FUNCTION_CALL',
      });
    },
  );

  it('a stream failing after its first event does not fail over: finish(error), then the error', async () => {
    front();
    const from = emulator.requests.length;
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'partial answer that is cut' }],
      chunkSize: 4,
      fault: { disconnectAfterEvents: 4 },
    });
    const events: StreamEvent[] = [];
    const error = await (async () => {
      for await (const event of sy.stream(hello)) events.push(event);
    })().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorClass: 'network' });
    expect(apisCalled(from)).toEqual(['anthropic-messages']);
    expect(events.some((event) => event.type === 'text-delta')).toBe(true);
    assertStreamInvariants(events);
    const finish = events.at(-1);
    expect(finish?.type === 'finish' && finish.response.finishReason).toBe('error');
    expect(routingDecisionOfError(error)?.attempts).toEqual([
      expect.objectContaining({ outcome: 'failed', errorClass: 'network' }),
    ]);
  });

  it('breaking out of a stream aborts the call and still settles its reply', async () => {
    front();
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'a long answer that the reader abandons early' }],
      chunkSize: 3,
      fault: { stallAfterEvents: 4 },
    });
    const turn = sy.stream(hello);
    const seen: string[] = [];
    for await (const event of turn) {
      seen.push(event.type);
      if (event.type === 'text-delta') break;
    }
    expect(seen[0]).toBe('message-start');
    expect(seen.at(-1)).toBe('text-delta');
    const settled = await turn.result().then(
      () => 'resolved',
      (error: unknown) => (error as { errorClass?: string }).errorClass ?? String(error),
    );
    expect(settled).toBe('cancelled');
  });

  it('a stream is iterated once: a second reader fails at once instead of waiting', async () => {
    front();
    emulator.enqueue(text('once'));
    const turn = sy.stream(hello);
    const first = turn[Symbol.asyncIterator]();
    await expect(turn[Symbol.asyncIterator]().next()).rejects.toThrow(/iterated once/);
    let events = 0;
    for (let step = await first.next(); step.done !== true; step = await first.next()) events++;
    expect(events).toBeGreaterThan(3);
    expect((await turn).text).toBe('once');
  });

  it('with an asynchronous state store, an open candidate is skipped and the stream served by the fallback', async () => {
    const inner = createMemoryAvailabilityStore();
    const store: AvailabilityStore = {
      get: async (key) => inner.get(key),
      transition: async (key, operation) => inner.transition(key, operation),
    };
    sy = createEmulatedSwitchyard(emulator.url, {
      now: () => now,
      stateStore: store,
      adapters: { anthropic: 'anthropic', openai: 'openai' },
      apiKey: 'test-key-routing',
      config: {
        models: {
          'anthropic:claude-sonnet-4-5': { aliases: ['primary'], fallbacks: ['openai:gpt-4.1-mini'] },
        },
        routing: { failure_threshold: 1, cooldown_seconds: 60 },
      },
    });
    emulator.enqueue(anthropicError(529, 'overloaded_error', 'Overloaded'));
    emulator.enqueue(text('after failover'));
    expect((await sy.stream(hello)).text).toBe('after failover');
    const from = emulator.requests.length;
    emulator.enqueue(text('skipped the open circuit'));
    const events: StreamEvent[] = [];
    for await (const event of sy.stream(hello)) events.push(event);
    assertStreamInvariants(events);
    expect(apisCalled(from)).toEqual(['openai-chat']);
    const finish = events.at(-1);
    expect(finish?.type === 'finish' && routingDecision(finish.response)?.attempts[0]).toMatchObject({
      outcome: 'skipped',
      reason: 'unavailable (open)',
    });
  });

  it('awaiting a stream gives the priced reply', async () => {
    front();
    emulator.enqueue(text('awaited'));
    const reply = await sy.stream(hello);
    expect(reply.text).toBe('awaited');
    expect(reply.usage.cost?.amount).toBeGreaterThan(0);
  });

  it('poll() hands out buffered events in order after the first content, the finish priced', async () => {
    front();
    emulator.enqueue(text('one two three four five six'));
    const iterator = sy.stream(hello)[Symbol.asyncIterator]() as AsyncIterator<StreamEvent> & {
      poll(): IteratorResult<StreamEvent> | undefined;
    };
    // Before the first content event a fallback is still possible: nothing is handed out early.
    expect(iterator.poll()).toBeUndefined();
    const events: StreamEvent[] = [];
    let polled = 0;
    for (;;) {
      const step = iterator.poll();
      if (step !== undefined) {
        events.push(step.value);
        polled++;
        continue;
      }
      const next = await iterator.next();
      if (next.done === true) break;
      events.push(next.value);
    }
    expect(polled).toBeGreaterThan(0);
    assertStreamInvariants(events);
    const written = events.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : [])).join('');
    expect(written).toBe('one two three four five six');
    const finish = events.at(-1);
    expect(finish?.type === 'finish' && finish.response.usage.cost?.amount).toBeGreaterThan(0);
  });
});

describe('when no candidate is left, the error keeps the class a client acts on', () => {
  const only = { 'anthropic:claude-sonnet-4-5': { aliases: ['primary'], fallbacks: [] } };

  it('every candidate kept out by an open circuit: a retryable 503 with the seconds until it reopens', async () => {
    front(only, { failure_threshold: 1, cooldown_seconds: 30 });
    now = 5_000_000;
    emulator.enqueue(anthropicError(529, 'overloaded_error', 'Overloaded'));
    await sy.complete(hello).catch(() => undefined);
    expect(await sy.availability.state('model:anthropic:claude-sonnet-4-5')).toBe('open');
    now += 12_500;
    const from = emulator.requests.length;
    const error = await sy.complete(hello).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      errorClass: 'server_error',
      providerCode: 'all_candidates_unavailable',
      status: 503,
      retryable: true,
      retryAfterSeconds: 18,
    });
    expect((error as Error).message).toContain('anthropic:claude-sonnet-4-5: unavailable (open)');
    expect(emulator.requests.length).toBe(from);
  });

  /** `primary` with one fallback (`openai:gpt-4.1-mini`) whose circuit is open: it will be kept out. */
  async function fallbackKeptOut(): Promise<void> {
    front(
      { 'anthropic:claude-sonnet-4-5': { aliases: ['primary'], fallbacks: ['openai:gpt-4.1-mini'] } },
      { failure_threshold: 1, cooldown_seconds: 30 },
    );
    now = 9_000_000;
    emulator.enqueue(openaiError(500, 'down'));
    await sy.complete({ model: 'openai:gpt-4.1-mini', transcript: [userText('Hi')] }).catch(() => undefined);
    // Not in `models`: its circuit is the one every such openai name shares.
    expect(await sy.availability.state('model:openai:other')).toBe('open');
  }

  it('a candidate failed with a 529 and the fallback was kept out: the 529 class, not a 400', async () => {
    await fallbackKeptOut();
    emulator.enqueue(anthropicError(529, 'overloaded_error', 'Overloaded', { 'retry-after': '7' }));
    const error = await sy.complete(hello).catch((caught: unknown) => caught);
    // The failure's own code and provider (the gateway reads them), under the routed message.
    expect(error).toMatchObject({
      errorClass: 'server_error',
      providerCode: 'overloaded_error',
      provider: 'anthropic',
      status: 529,
      retryable: true,
      retryAfterSeconds: 7,
    });
  });

  it('the fallback kept out: a failure that must not be sent again keeps its word (an x-should-retry: false)', async () => {
    await fallbackKeptOut();
    emulator.enqueue(anthropicError(500, 'api_error', 'Broken', { 'x-should-retry': 'false' }));
    const error = await sy.complete(hello).catch((caught: unknown) => caught);
    // Before, the class alone decided: a 5xx read as retryable, and a gateway said x-should-retry: true.
    expect(error).toMatchObject({ providerCode: 'api_error', status: 500, retryable: false });
  });
});

describe('availability across calls', () => {
  it('names a client chooses share one circuit per provider: 20 failing unlisted openai names add 2 circuits, not 21', async () => {
    front({}, { failure_threshold: 1000 });
    for (let index = 0; index < 20; index++) {
      emulator.enqueue(openaiError(500, 'down'));
      await sy.complete({ model: `openai:x${index}`, transcript: [userText('Hi')] }).catch(() => undefined);
    }
    const { records } = sy.availability.store as ReturnType<typeof createMemoryAvailabilityStore>;
    expect([...records.keys()].sort()).toEqual(['model:openai:other', 'provider:openai']);
    expect(records.get('model:openai:other')!.failures).toBe(20);
    // A model the table names keeps a circuit of its own.
    emulator.enqueue(anthropicError(529, 'overloaded_error', 'Overloaded'));
    await sy.complete(hello).catch(() => undefined);
    expect(records.has('model:anthropic:claude-sonnet-4-5')).toBe(true);
  });

  it('one unlisted model’s rate limit (a long retry-after) does not block the provider’s other unlisted models: the shared circuit only counts it', async () => {
    front();
    now = 5_000_000;
    emulator.enqueue(
      openaiError(429, 'Rate limit reached for gpt-5-nano', { headers: { 'retry-after': '600' } }),
    );
    await expect(sy.complete({ model: 'openai:gpt-5-nano', transcript: [userText('Hi')] })).rejects.toThrow();
    expect(await sy.availability.state('model:openai:other')).toBe('closed');
    const before = emulator.requests.length;
    emulator.enqueue(text('fine'));
    const served = await sy.complete({ model: 'openai:gpt-4o', transcript: [userText('Hi')] });
    expect(served.model).toBe('openai:gpt-4o');
    expect(emulator.requests.length - before).toBe(1);
  });

  it('repeated failures open the circuit: the candidate is skipped without a call, then probed after the cooldown', async () => {
    front({}, { failure_threshold: 2, cooldown_seconds: 30 });
    now = 1_000_000;
    for (let count = 0; count < 2; count++) {
      emulator.enqueue(anthropicError(529, 'overloaded_error', 'Overloaded'));
      emulator.enqueue(text('fallback'));
      await sy.complete(hello);
    }
    expect(await sy.availability.state('model:anthropic:claude-sonnet-4-5')).toBe('open');
    const from = emulator.requests.length;
    emulator.enqueue(text('fallback while open'));
    const skipped = await sy.complete(hello);
    expect(apisCalled(from)).toEqual(['openai-chat']);
    expect(routingDecision(skipped)?.attempts[0]).toMatchObject({
      outcome: 'skipped',
      reason: 'unavailable (open)',
    });
    now += 30_000;
    emulator.enqueue(text('probe served'));
    const probed = await sy.complete(hello);
    expect(probed.model).toBe('anthropic:claude-sonnet-4-5');
    expect(await sy.availability.state('model:anthropic:claude-sonnet-4-5')).toBe('closed');
  });
});
