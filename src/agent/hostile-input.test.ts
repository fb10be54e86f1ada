/**
 * The agent and `tool()` under hostile or mistaken input: creation options, run inputs and run
 * options, tool definitions, and tools that return non-JSON, throw non-Errors, hang or return
 * 10 MB. Every row settles quickly — to a documented outcome or an `InvalidRequestError` naming
 * what is wrong — with no synchronous throw from `run()`, no unhandled rejection, the caller's
 * transcript unchanged and `Object.prototype` clean.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isInvalidRequestError } from '../core/errors/guards.ts';
import { userText } from '../core/transcript.ts';
import { tool } from '../schemas/structured.ts';
import { createScriptedAdapter } from '../testing/scripted-adapter.ts';
import {
  deepFreeze,
  expectNoPrototypePollution,
  fromJson,
  type ProcessWatch,
  settle,
  snapshotOf,
  throwingProxy,
  watchProcess,
} from '../../test/support/hostile.ts';
import { type AgentOptions, createAgent } from './index.ts';
import { call, drain, expectConsistent, resultsById, resultText, text } from './test-support.ts';
import type { ToolReturn } from './tool.ts';

let watch: ProcessWatch;
beforeEach(() => {
  watch = watchProcess();
});
afterEach(async () => {
  await watch.stop();
  expectNoPrototypePollution();
});

const echo = tool({ name: 'echo', input: z.object({ q: z.string() }), execute: ({ q }) => q });
const client = () => createScriptedAdapter([{ content: [text('done')] }]);

/** The error `fn` throws (undefined when it does not). */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('createAgent: a mistaken option fails at creation, naming it', () => {
  const base = { model: 'scripted:m', client: client() };
  const bad: Array<[string, unknown, RegExp]> = [
    ['no options', undefined, /options/],
    ['null options', null, /options: .*expected object/],
    ['a misspelt option', { ...base, maxTurn: 3 }, /Unrecognized key: "maxTurn"/],
    ['no model', { client: client() }, /options\.model/],
    ['an empty model', { ...base, model: '' }, /options\.model/],
    ['maxTurns: 0', { ...base, maxTurns: 0 }, /options\.maxTurns: maxTurns must be a positive integer/],
    ['maxTurns: -1', { ...base, maxTurns: -1 }, /options\.maxTurns/],
    ['maxTurns: NaN', { ...base, maxTurns: Number.NaN }, /options\.maxTurns/],
    ['maxTurns: Infinity', { ...base, maxTurns: Number.POSITIVE_INFINITY }, /options\.maxTurns/],
    ['maxTurns: 2.5', { ...base, maxTurns: 2.5 }, /options\.maxTurns/],
    ['maxTurns: "3"', { ...base, maxTurns: '3' }, /options\.maxTurns/],
    ['a NaN budget', { ...base, budget: { maxCost: Number.NaN } }, /options\.budget\.maxCost/],
    ['a negative budget', { ...base, budget: { maxCost: -1 } }, /options\.budget\.maxCost/],
    [
      'an Infinity budget',
      { ...base, budget: { maxCost: Number.POSITIVE_INFINITY } },
      /options\.budget\.maxCost/,
    ],
    ['a number as budget', { ...base, budget: 5 }, /options\.budget/],
    ['toolTimeoutMs: NaN', { ...base, toolTimeoutMs: Number.NaN }, /options\.toolTimeoutMs/],
    [
      'toolTimeoutMs beyond a timer',
      { ...base, toolTimeoutMs: 1e10 },
      /options\.toolTimeoutMs: .*fires at once/,
    ],
    ['toolConcurrency: 0', { ...base, toolConcurrency: 0 }, /options\.toolConcurrency/],
    ['maxOutputTokens: 0', { ...base, maxOutputTokens: 0 }, /options\.maxOutputTokens/],
    ['maxTokensRecoveries: -1', { ...base, maxTokensRecoveries: -1 }, /options\.maxTokensRecoveries/],
    ['tools that are not an array', { ...base, tools: echo }, /options\.tools: tools must be an array/],
    ['a null tool', { ...base, tools: [null] }, /options\.tools\[0\]: an agent tool needs/],
    [
      'a tool without execute',
      { ...base, tools: [tool({ name: 'spec_only', input: z.object({}) })] },
      /options\.tools\[0\]: an agent tool needs/,
    ],
    [
      'two tools with one name',
      { ...base, tools: [echo, echo] },
      /options\.tools\[1\]\.name: two tools are named echo/,
    ],
    ['a client without stream', { ...base, client: {} }, /options\.client/],
    ['stopWhen that is not a function', { ...base, stopWhen: true }, /options\.stopWhen/],
    ['a Proxy as options', throwingProxy(), /options: unreadable value/],
  ];
  it.each(bad)('%s', (_name, options, names) => {
    const error = thrownBy(() => createAgent(options as AgentOptions));
    expect(isInvalidRequestError(error), String(error)).toBe(true);
    expect(error).toMatchObject({ providerCode: 'invalid_options' });
    expect((error as Error).message).toMatch(/^createAgent: /);
    expect((error as Error).message).toMatch(names);
  });
});

describe('agent.run: a bad input or run option ends the run with outcome error, never a throw', () => {
  const badRuns: Array<[string, () => unknown, () => unknown, RegExp]> = [
    ['null input', () => null, () => undefined, /input: a run starts from a prompt/],
    ['a number as input', () => 42, () => undefined, /input: a run starts/],
    ['an object as input', () => ({ kind: 'user' }), () => undefined, /input: a run starts/],
    [
      'a Proxy as input',
      () =>
        new Proxy([], {
          get: () => {
            throw new Error('x');
          },
        }),
      () => undefined,
      /input: unreadable value/,
    ],
    ['an unknown item kind', () => [{ kind: 'narrator', parts: [] }], () => undefined, /input\[0\]\.kind/],
    [
      'a BigInt in the transcript',
      () => [{ kind: 'user', parts: [{ type: 'structured', value: 10n }] }],
      () => undefined,
      /input\[0\]\.parts\[0\]\.value: expected a JSON value/,
    ],
    [
      'a __proto__ key in metadata',
      () => [{ kind: 'user', parts: [], metadata: fromJson('{"__proto__":{"polluted":1}}') }],
      () => undefined,
      /input\[0\]\.metadata\.__proto__/,
    ],
    [
      'a fake signal',
      () => 'hi',
      () => ({ signal: { aborted: false } }),
      /options\.signal: signal must be an AbortSignal/,
    ],
    ['an unknown run option', () => 'hi', () => ({ timeout: 5 }), /Unrecognized key: "timeout"/],
    ['a number as run options', () => 'hi', () => 7, /options: .*expected object/],
  ];
  it.each(badRuns)('%s', async (_name, makeInput, makeOptions, names) => {
    const adapter = client();
    const agent = createAgent({ model: 'scripted:m', client: adapter });
    const input = makeInput();
    const before = snapshotOf(input);
    let run: ReturnType<typeof agent.run> | undefined;
    expect(() => {
      run = agent.run(input as never, makeOptions() as never);
    }).not.toThrow();
    const outcome = await settle(drain(run!), 2000);
    expect(outcome.state).toBe('resolved');
    const { events, result } = (outcome as { value: Awaited<ReturnType<typeof drain>> }).value;
    expect(events.at(-1)).toEqual({ type: 'run-end', outcome: 'error' });
    expect(result.outcome).toBe('error');
    expect(isInvalidRequestError(result.error), String(result.error)).toBe(true);
    expect((result.error as Error).message).toMatch(/^agent\.run: /);
    expect((result.error as Error).message).toMatch(names);
    expect(adapter.requests, 'no model call').toHaveLength(0);
    if (before !== undefined) expect(input).toEqual(before.copy);
  });

  it('a deep-frozen transcript is run and never mutated (instructions are added to the run’s copy)', async () => {
    const transcript = deepFreeze([userText('hello')]);
    const agent = createAgent({ model: 'scripted:m', client: client(), instructions: 'Be brief.' });
    const result = await agent.run(transcript).result();
    expect(result.outcome).toBe('completed');
    expect(result.transcript.map((item) => item.kind)).toEqual(['system', 'user', 'assistant']);
    expect(transcript).toEqual([userText('hello')]);
  });

  it('an already-aborted signal with a non-Error reason ends the run as cancelled', async () => {
    const agent = createAgent({ model: 'scripted:m', client: client() });
    const outcome = await settle(agent.run('hi', { signal: AbortSignal.abort('user left') }).result(), 2000);
    expect(outcome).toMatchObject({ state: 'resolved', value: { outcome: 'cancelled' } });
  });
});

/** Runs one turn in which the model calls `name` once, then answers; returns the tool's result text and the run. */
async function runTool(execute: () => ToolReturn | Promise<ToolReturn>, extra: Partial<AgentOptions> = {}) {
  const adapter = createScriptedAdapter([
    { content: [call('c1', 'probe', {})] },
    { content: [text('answered')] },
  ]);
  const probe = tool({ name: 'probe', input: z.object({}), execute });
  const agent = createAgent({ model: 'scripted:m', client: adapter, tools: [probe], ...extra });
  const outcome = await settle(agent.run('go').result(), 4000);
  expect(outcome.state).toBe('resolved');
  const result = (outcome as { value: Awaited<ReturnType<ReturnType<typeof agent.run>['result']>> }).value;
  expect(result.outcome).toBe('completed');
  expectConsistent(result.transcript);
  const answer = resultsById(result.transcript).get('c1');
  return { answer, text: resultText(answer), requests: adapter.requests };
}

describe('a tool that misbehaves gives the model an error result; the run goes on', () => {
  const cyclic = (): ToolReturn => {
    const value: Record<string, unknown> = {};
    value.self = value;
    return value as never;
  };
  const notJson: Array<[string, () => ToolReturn, RegExp]> = [
    ['a BigInt', () => 5n as never, /not valid output \(output\.value: expected a JSON value/],
    ['a function', () => (() => 1) as never, /not valid output/],
    ['a Symbol', () => Symbol('s') as never, /not valid output/],
    ['a cyclic object', cyclic, /not valid output \(output\.value\.self: circular reference/],
    ['NaN', () => Number.NaN, /not valid output/],
    ['a Map', () => new Map() as never, /not valid output/],
    ['an object with a __proto__ key', () => fromJson('{"__proto__":{"polluted":1}}') as never, /__proto__/],
  ];
  it.each(notJson)('returns %s', async (_name, execute, names) => {
    const { answer, text: said, requests } = await runTool(execute);
    expect(answer?.isError).toBe(true);
    expect(said).toMatch(names);
    expect(requests).toHaveLength(2);
  });

  it('returns undefined: an empty text result (documented)', async () => {
    const { answer } = await runTool(() => undefined);
    expect(answer).toMatchObject({ isError: false, output: { type: 'text', text: '' } });
  });

  it('returns 10 MB of text: passed to the model whole (documented: no truncation)', async () => {
    const big = 'y'.repeat(10 * 1024 * 1024);
    const { answer } = await runTool(() => big);
    expect(answer).toMatchObject({ isError: false });
    expect(resultText(answer)).toHaveLength(big.length);
  });

  const thrown: Array<[string, unknown, RegExp]> = [
    ['a string', 'disk full', /failed: disk full/],
    ['null', null, /failed: null/],
    ['undefined', undefined, /failed: undefined/],
    ['a BigInt', 7n, /failed: \[object BigInt\]/],
    [
      'a cyclic object',
      (() => {
        const value: Record<string, unknown> = {};
        value.self = value;
        return value;
      })(),
      /failed: \[object Object\]/,
    ],
  ];
  it.each(thrown)('throws %s', async (_name, value, names) => {
    const { answer, text: said } = await runTool(() => {
      throw value;
    });
    expect(answer?.isError).toBe(true);
    expect(said).toMatch(names);
  });

  it('never resolves: the timeout applies and the run goes on', async () => {
    const started = performance.now();
    const { answer, text: said } = await runTool(() => new Promise<never>(() => {}), { toolTimeoutMs: 50 });
    expect(answer?.isError).toBe(true);
    expect(said).toMatch(/timed out after 50 ms/);
    expect(performance.now() - started).toBeLessThan(3000);
  });
});

describe('tool(): a bad definition fails at definition, naming the problem', () => {
  const bad: Array<[string, unknown, RegExp]> = [
    ['null', null, /definition: .*expected object/],
    ['an empty name', { name: '', input: z.object({}) }, /definition\.name: name must be a non-empty string/],
    ['a number as name', { name: 5, input: z.object({}) }, /definition\.name/],
    ['no input', { name: 't' }, /definition\.input: input must be a zod schema/],
    ['execute that is a string', { name: 't', input: z.object({}), execute: 'run' }, /definition\.execute/],
    ['timeoutMs: NaN', { name: 't', input: z.object({}), timeoutMs: Number.NaN }, /definition\.timeoutMs/],
    ['timeoutMs: -1', { name: 't', input: z.object({}), timeoutMs: -1 }, /definition\.timeoutMs/],
    ['timeoutMs beyond a timer', { name: 't', input: z.object({}), timeoutMs: 2 ** 40 }, /fires at once/],
    [
      'needsApproval: "yes"',
      { name: 't', input: z.object({}), needsApproval: 'yes' },
      /definition\.needsApproval/,
    ],
    ['a JSON Schema with an unknown type', { name: 't', input: { type: 'objekt' } }, /inputSchema\.type/],
    [
      'a nested unknown type',
      { name: 't', input: { type: 'object', properties: { a: { type: 'strng' } } } },
      /inputSchema\.properties\.a\.type: not a JSON Schema type: strng/,
    ],
    [
      'a JSON Schema that is not an object schema',
      { name: 't', input: { type: 'string' } },
      /must be an object schema/,
    ],
    [
      'a JSON Schema holding a function',
      { name: 't', input: { type: 'object', default: () => 1 } },
      /inputSchema\.default/,
    ],
    [
      'jsonSchema with an unknown type',
      { name: 't', input: z.object({}), jsonSchema: { type: 'obj' } },
      /inputSchema\.type/,
    ],
  ];
  it.each(bad)('%s', (_name, definition, names) => {
    const error = thrownBy(() => tool(definition as never));
    expect(isInvalidRequestError(error), String(error)).toBe(true);
    expect(error).toMatchObject({ providerCode: 'invalid_tool' });
    expect((error as Error).message).toMatch(names);
  });

  it('a property named "type" is a property, not a type keyword', () => {
    const defined = tool({
      name: 'shape',
      input: { type: 'object', properties: { type: { type: 'string' } }, required: ['type'] },
    });
    expect(defined.inputSchema).toMatchObject({ properties: { type: { type: 'string' } } });
  });
});

describe('agent.resume and cost(): misuse ends the run with a named error, never a throw', () => {
  it.each([
    ['null state', null, {}, /state\.\(root\)/],
    ['a state with a bad transcript', { version: 1, transcript: 5 }, {}, /state\./],
    ['a Proxy as state', throwingProxy(), {}, /unreadable value/],
  ])('resume(%s)', async (_label, state, decisions, names) => {
    const agent = createAgent({ model: 'scripted:m', client: client() });
    let run: ReturnType<typeof agent.resume> | undefined;
    expect(() => {
      run = agent.resume(state as never, decisions as never);
    }).not.toThrow();
    const result = await run!.result();
    expect(result.outcome).toBe('error');
    expect(isInvalidRequestError(result.error), String(result.error)).toBe(true);
    expect((result.error as Error).message).toMatch(/^agent\.resume: /);
    expect((result.error as Error).message).toMatch(names);
  });

  it.each([
    ['NaN', Number.NaN],
    ['a negative number', -1],
    ['a string', '0.5'],
  ])(
    'a cost() that returns %s ends the run with outcome error instead of disabling the budget',
    async (_label, value) => {
      const agent = createAgent({
        model: 'scripted:m',
        client: client(),
        budget: { maxCost: 1 },
        cost: () => value as never,
      });
      const result = await agent.run('hi').result();
      expect(result.outcome).toBe('error');
      expect(isInvalidRequestError(result.error), String(result.error)).toBe(true);
      expect((result.error as Error).message).toMatch(
        /cost: returned .* for scripted:m; it must return a finite number/,
      );
    },
  );
});

describe('the caller’s own callbacks misbehaving end the run with outcome error, never a hang or crash', () => {
  const withCall = () =>
    createScriptedAdapter([{ content: [call('c1', 'echo', { q: 'x' })] }, { content: [text('done')] }]);
  it.each([
    [
      'needsApproval throws',
      () => ({
        client: withCall(),
        tools: [
          tool({
            name: 'echo',
            input: z.object({ q: z.string() }),
            execute: () => 'ok',
            needsApproval: () => {
              throw new Error('rule broke');
            },
          }),
        ],
      }),
      /rule broke/,
    ],
    [
      'stopWhen throws',
      () => ({
        client: withCall(),
        tools: [echo],
        stopWhen: () => {
          throw 'stop broke';
        },
      }),
      /stop broke/,
    ],
    [
      'the model function returns a number',
      () => ({ client: client(), model: () => 42 as never }),
      /model: got 42; expected a model name/,
    ],
    [
      'the model function throws',
      () => ({
        client: client(),
        model: () => {
          throw new Error('no model today');
        },
      }),
      /no model today/,
    ],
    [
      'the client function returns nothing',
      () => ({ client: () => undefined as never }),
      /no client for model/,
    ],
  ])('%s', async (_label, make, names) => {
    const agent = createAgent({ model: 'scripted:m', ...make() } as AgentOptions);
    const outcome = await settle(agent.run('hi').result(), 3000);
    expect(outcome.state).toBe('resolved');
    const result = (outcome as { value: { outcome: string; error: unknown } }).value;
    expect(result.outcome).toBe('error');
    expect(String((result.error as Error)?.message ?? result.error)).toMatch(names);
  });
});
