import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InvalidRequestError } from '../core/errors/invalid-request-error.ts';
import { ServerError } from '../core/errors/server-error.ts';
import { createScriptedAdapter, type ScriptedResponse } from '../testing/scripted-adapter.ts';
import { createAgent } from './agent.ts';
import { call, drain, expectConsistent, resultsById, resultText, text } from './test-support.ts';
import { tool } from '../schemas/structured.ts';
import { assistantText } from './transcript-tools.ts';

const executed: string[] = [];
const echo = tool({
  name: 'echo',
  input: z.object({ value: z.string() }),
  execute: ({ value }) => {
    executed.push(value);
    return value;
  },
});

function toolTurns(count: number, extra: Partial<ScriptedResponse> = {}): ScriptedResponse[] {
  return Array.from({ length: count }, (_, index) => ({
    content: [call(`c${index}`, 'echo', { value: `v${index}` })],
    ...extra,
  }));
}

describe('agent stops', () => {
  it('ends with max_turns after the limit, the last turn’s calls answered', async () => {
    const adapter = createScriptedAdapter(toolTurns(5));
    const result = await createAgent({ client: adapter, model: 'scripted:m', tools: [echo], maxTurns: 2 })
      .run('loop forever')
      .result();
    expect(result.outcome).toBe('max_turns');
    expect(result.turns).toHaveLength(2);
    expect(adapter.requests).toHaveLength(2);
    expectConsistent(result.transcript);
  });

  it('ends when stopWhen says so, after the turn’s tools ran', async () => {
    const adapter = createScriptedAdapter(toolTurns(5));
    const result = await createAgent({
      client: adapter,
      model: 'scripted:m',
      tools: [echo],
      stopWhen: ({ turn, transcript }) => turn === 2 && transcript.at(-1)?.kind === 'tool',
    })
      .run('go')
      .result();
    expect(result).toMatchObject({ outcome: 'completed', stoppedBy: 'stop-when' });
    expect(result.turns).toHaveLength(2);
    expectConsistent(result.transcript);
  });

  it('ends with error when the model’s reply is unusable (a finish of error without a failure), what arrived kept', async () => {
    const adapter = createScriptedAdapter([
      { content: [{ type: 'text', text: 'Let me call' }], finishReason: 'error' },
      { content: [{ type: 'text', text: 'never asked' }] },
    ]);
    const result = await createAgent({ client: adapter, model: 'scripted:m', tools: [echo] })
      .run('go')
      .result();
    expect(result.outcome).toBe('error');
    expect(String((result.error as Error).message)).toMatch(/unusable/);
    expect(adapter.requests).toHaveLength(1);
    expect(result.text).toBe('');
    expect(assistantText(result.transcript)).toBe('Let me call');
  });

  it('ends with budget_exceeded once usage.cost sums above the budget, without running that turn’s tools', async () => {
    executed.length = 0;
    const cost = { amount: 0.01, currency: 'USD' };
    const adapter = createScriptedAdapter(toolTurns(5, { usage: { input: 100, output: 10, cost } }));
    const result = await createAgent({
      client: adapter,
      model: 'scripted:m',
      tools: [echo],
      budget: { maxCost: 0.015 },
    })
      .run('go')
      .result();
    expect(result.outcome).toBe('budget_exceeded');
    expect(result.turns).toHaveLength(2);
    expect(result.cost).toBeCloseTo(0.02);
    expect(executed).toEqual(['v0']);
    expect(resultText(resultsById(result.transcript).get('c1'))).toBe(
      'Tool call not run: the cost budget was exceeded.',
    );
    expectConsistent(result.transcript);
  });

  it('the run’s usage adds each turn’s web searches (and 1-hour cache writes) to the buckets', async () => {
    const adapter = createScriptedAdapter(
      toolTurns(2, { usage: { input: 100, output: 10, cacheWrite: 50, cacheWrite1h: 50, webSearches: 2 } }),
    );
    const result = await createAgent({ client: adapter, model: 'scripted:m', tools: [echo], maxTurns: 2 })
      .run('go')
      .result();
    expect(result.usage).toMatchObject({ input: 200, cacheWrite: 100, cacheWrite1h: 100, webSearches: 4 });
  });

  it('computes cost with the cost function when the client does not fill usage.cost', async () => {
    const adapter = createScriptedAdapter(toolTurns(5, { usage: { input: 1000, output: 100 } }));
    const models: string[] = [];
    const result = await createAgent({
      client: adapter,
      model: 'scripted:m',
      tools: [echo],
      budget: { maxCost: 0.05 },
      cost: (usage, model) => {
        models.push(model);
        return usage.input * 0.00001 + usage.output * 0.0001;
      },
    })
      .run('go')
      .result();
    expect(result.outcome).toBe('budget_exceeded');
    expect(result.turns.map((turn) => turn.cost)).toEqual([0.02, 0.02, 0.02]);
    expect(models[0]).toBe('scripted:m');
  });
});

describe('agent recovery', () => {
  it('continues a response cut by the output limit with a "resume directly" message', async () => {
    const adapter = createScriptedAdapter([
      { content: [text('The first half')], finishReason: 'max-tokens' },
      { content: [text(' and the rest.')] },
    ]);
    const { events, result } = await drain(
      createAgent({ client: adapter, model: 'scripted:m' }).run('essay'),
    );
    expect(result.outcome).toBe('completed');
    const resumed = adapter.requests[1]!.transcript;
    expect(resumed.at(-2)).toMatchObject({
      kind: 'assistant',
      parts: [{ type: 'text', text: 'The first half' }],
    });
    expect(resumed.at(-1)).toMatchObject({ kind: 'user', metadata: { 'switchyard.recovery': 'max-tokens' } });
    expect(resultTextOf(resumed.at(-1))).toMatch(/^Output token limit hit\. Resume directly/);
    expect(result.turns[0]).toMatchObject({ finishReason: 'max-tokens', maxTokensRecovery: 1 });
    expect(events.filter((event) => event.type === 'max-tokens-recovery')).toEqual([
      { type: 'max-tokens-recovery', turn: 1, attempt: 1 },
    ]);
  });

  it('gives up with max_tokens after three continuations', async () => {
    const cut: ScriptedResponse = { content: [text('more…')], finishReason: 'max-tokens' };
    const adapter = createScriptedAdapter([cut, cut, cut, cut, { content: [text('never')] }]);
    const result = await createAgent({ client: adapter, model: 'scripted:m' }).run('go').result();
    expect(result.outcome).toBe('max_tokens');
    expect(adapter.requests).toHaveLength(4);
    expect(result.turns.map((turn) => turn.maxTokensRecovery)).toEqual([1, 2, 3, 4]);
  });

  it('never executes a tool call cut by the output limit; complete calls before it run', async () => {
    executed.length = 0;
    const adapter = createScriptedAdapter([
      {
        content: [
          call('whole', 'echo', { value: 'whole' }),
          call('cut', 'echo', { value: 'repaired-looking' }),
        ],
        finishReason: 'max-tokens',
      },
      { content: [text('ok')] },
    ]);
    const result = await createAgent({ client: adapter, model: 'scripted:m', tools: [echo] })
      .run('go')
      .result();
    expect(executed).toEqual(['whole']);
    const cut = resultsById(result.transcript).get('cut');
    expect(cut?.isError).toBe(true);
    expect(resultText(cut)).toContain('cut off by the output token limit');
    expect(adapter.requests[1]!.transcript.at(-1)).toMatchObject({ kind: 'user' });
    expect(result.outcome).toBe('completed');
    expectConsistent(result.transcript);
  });

  it('never executes a call marked incomplete or whose input did not parse, whatever the finish reason', async () => {
    executed.length = 0;
    const broken = { ...call('b', 'echo', {}), metadata: { 'switchyard.raw_input': '{"value": "x' } };
    const marked = { ...call('m', 'echo', { value: 'repaired' }), incomplete: true as const };
    const adapter = createScriptedAdapter([{ content: [text('x')] }]);
    // The scripted adapter re-serializes inputs, so drive the loop with a hand-made client instead.
    const client = {
      stream: (
        request: Parameters<typeof adapter.stream>[0],
        options?: Parameters<typeof adapter.stream>[1],
      ) => {
        if (request.transcript.length > 1) return adapter.stream(request, options);
        const stream = adapter.stream({ ...request }, options);
        return {
          [Symbol.asyncIterator]: () => stream[Symbol.asyncIterator](),
          result: async () => ({
            ...(await stream.result()),
            content: [broken, marked],
            finishReason: 'tool-call' as const,
          }),
        };
      },
    };
    const result = await createAgent({ client, model: 'scripted:m', tools: [echo] })
      .run('go')
      .result();
    expect(executed).toEqual([]);
    const results = resultsById(result.transcript);
    expect(resultText(results.get('b'))).toContain('cut off by the output token limit');
    expect(resultText(results.get('m'))).toContain('cut off by the output token limit');
  });

  it('switches to the fallback model when the provider is overloaded, recorded in the turn', async () => {
    const overloaded = new ServerError({
      message: 'overloaded',
      status: 529,
      providerCode: 'overloaded_error',
    });
    const big = createScriptedAdapter([{ content: [], error: overloaded }], { name: 'big' });
    const small = createScriptedAdapter([{ content: [text('served by small')] }], { name: 'small' });
    const { events, result } = await drain(
      createAgent({
        client: (model) => (model.startsWith('big:') ? big : small),
        model: 'big:large',
        fallback: { model: 'small:mini' },
      }).run('go'),
    );
    expect(result.outcome).toBe('completed');
    expect(result.turns[0]).toMatchObject({ model: 'small:mini', fallbackFrom: 'big:large' });
    expect(result.transcript.at(-1)?.metadata).toEqual({
      'switchyard.model': 'small:mini',
      'switchyard.fallback_from': 'big:large',
    });
    expect(events.find((event) => event.type === 'fallback')).toMatchObject({
      from: 'big:large',
      to: 'small:mini',
    });
  });

  it('ends with error (the classified error kept) when the failure is not an overload', async () => {
    const invalid = new InvalidRequestError({ message: 'bad request' });
    const big = createScriptedAdapter([{ content: [], error: invalid }], { name: 'big' });
    const small = createScriptedAdapter([{ content: [text('unused')] }], { name: 'small' });
    const result = await createAgent({
      client: (model) => (model.startsWith('big:') ? big : small),
      model: 'big:large',
      fallback: { model: 'small:mini' },
    })
      .run('go')
      .result();
    expect(result.outcome).toBe('error');
    expect(result.error).toBe(invalid);
    expect(small.requests).toHaveLength(0);
  });
});

describe('a run that did not complete never reads like an answer', () => {
  it('an error after an earlier answered turn leaves result.text empty (the transcript keeps the turn)', async () => {
    const weather = tool({
      name: 'weather',
      input: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      execute: () => 'sunny',
    });
    const first = createScriptedAdapter(
      [
        { content: [text('Let me check the weather.'), call('c1', 'weather', { city: 'Oslo' })] },
        { content: [], error: new InvalidRequestError({ message: 'bad request' }) },
      ],
      { name: 'first' },
    );
    const result = await createAgent({ client: first, model: 'first:m', tools: [weather] })
      .run('go')
      .result();
    expect(result.outcome).toBe('error');
    expect(result.text).toBe('');
    expect(assistantText(result.transcript)).toBe('Let me check the weather.');
  });
});

function resultTextOf(item: { parts: Array<{ type: string; text?: string }> } | undefined): string {
  return item?.parts.map((part) => part.text ?? '').join('') ?? '';
}

describe('the default output limit', () => {
  it('is clamped to the model’s declared limit; an explicit maxOutputTokens is sent as given', async () => {
    const small = createScriptedAdapter([{ content: [text('ok')] }], {
      capabilities: { maxOutputTokens: 1000 },
    });
    const result = await createAgent({ client: small, model: 'scripted:m' }).run('hi').result();
    expect(result.outcome).toBe('completed');
    expect(small.requests[0]?.maxOutputTokens).toBe(1000);
    const strict = createScriptedAdapter([{ content: [text('ok')] }], {
      capabilities: { maxOutputTokens: 1000 },
    });
    const explicit = await createAgent({ client: strict, model: 'scripted:m', maxOutputTokens: 2000 })
      .run('hi')
      .result();
    expect(explicit.outcome).toBe('error');
    expect(strict.requests).toHaveLength(0);
  });
});
