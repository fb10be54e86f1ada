/**
 * The front door under hostile or mistaken caller input: `createSwitchyard()` options, and
 * `sy.stream()` / `sy.complete()` requests, model names and call options. Every row settles
 * quickly — to a documented result or an `InvalidRequestError` naming what is wrong — with no
 * synchronous throw, no unhandled rejection, no HTTP call for a rejected request, the caller's
 * input unchanged and `Object.prototype` clean.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { CallOptions } from '../../src/core/adapter.ts';
import {
  isCancelledError,
  isContextOverflowError,
  isInvalidRequestError,
} from '../../src/core/errors/guards.ts';
import type { StreamEvent } from '../../src/core/events.ts';
import { createMemoryLogger } from '../../src/core/logger.ts';
import { assertStreamInvariants } from '../../src/testing/invariants.ts';
import { ConfigError, parseConfigYaml, type SwitchyardConfig } from '../../src/registry/config.ts';
import { routingDecisionOfError } from '../../src/routing/decision.ts';
import { userText } from '../../src/core/transcript.ts';
import type { SwitchyardRequest } from '../../src/switchyard-input.ts';
import { createSwitchyard, type Switchyard } from '../../src/switchyard.ts';
import type { Emulator } from '../../src/testing/emulator/index.ts';
import { createEmulatedSwitchyard } from '../support/emulated.ts';
import {
  deepFreeze,
  fromJson,
  settle,
  snapshotOf,
  throwingProxy,
  useHostileFrontDoor,
} from '../support/hostile.ts';

const door = useHostileFrontDoor('test-key-hostile', { failure_threshold: 1000 });
let emulator: Emulator;
let sy: Switchyard;
beforeAll(() => {
  ({ emulator, sy } = door);
});

const hello = () => [userText('hi')];
const ok = { type: 'scripted' as const, content: [{ type: 'text' as const, text: 'fine' }] };

/** One bad call: the request and options given, and what the error message must name. */
type BadCall = [name: string, request: () => unknown, options: () => unknown, names: RegExp];

const none = () => undefined;
const badRequests: BadCall[] = [
  ['a null request', () => null, none, /\(root\): the request must be an object/],
  ['an undefined request', () => undefined, none, /\(root\)/],
  ['a number as the request', () => 42, none, /\(root\)/],
  ['a string as the request', () => 'hello', none, /\(root\)/],
  ['an array as the request', () => [], none, /\(root\)/],
  ['a Proxy that throws on every read', throwingProxy, none, /\(root\): unreadable value/],
  [
    'a getter that throws',
    () => ({
      get model(): string {
        throw new Error('getter');
      },
      transcript: hello(),
    }),
    none,
    /\(root\): unreadable value/,
  ],
  ['no model', () => ({ transcript: hello() }), none, /model: model must be a string/],
  ['a number as the model', () => ({ model: 7, transcript: hello() }), none, /model: model must be a string/],
  ['an empty model', () => ({ model: '', transcript: hello() }), none, /model: model must be a non-empty/],
  [
    'a whitespace model',
    () => ({ model: ' \t ', transcript: hello() }),
    none,
    /model: model must be a non-empty/,
  ],
  [
    'a glob as the model',
    () => ({ model: 'anthropic:*', transcript: hello() }),
    none,
    /model cannot contain "\*"/,
  ],
  ['a 10 KB model name', () => ({ model: 'm'.repeat(10_240), transcript: hello() }), none, /longer than 512/],
  [
    'a NUL in the model name',
    () => ({ model: 'primary\u0000', transcript: hello() }),
    none,
    /control characters/,
  ],
  ['a null transcript', () => ({ model: 'primary', transcript: null }), none, /transcript: .*expected array/],
  [
    'a sparse transcript',
    () => {
      const transcript = [userText('x')];
      transcript.length = 2; // a hole at [1]
      return { model: 'primary', transcript: transcript.reverse() };
    },
    none,
    /transcript\[0\]/,
  ],
  [
    'a BigInt in a structured part',
    () => ({ model: 'primary', transcript: [{ kind: 'user', parts: [{ type: 'structured', value: 1n }] }] }),
    none,
    /transcript\[0\]\.parts\[0\]\.value: expected a JSON value/,
  ],
  ...(
    [
      ['a Symbol', Symbol('s')],
      ['a function', () => 1],
      ['NaN', Number.NaN],
      ['Infinity', Number.POSITIVE_INFINITY],
      ['a Date', new Date(0)],
      ['a Map', new Map([['a', 1]])],
    ] as const
  ).map(([label, value]): BadCall => [
    `${label} in a structured part`,
    () => ({ model: 'primary', transcript: [{ kind: 'user', parts: [{ type: 'structured', value }] }] }),
    none,
    /transcript\[0\]\.parts\[0\]\.value: expected a JSON value/,
  ]),
  [
    'a __proto__ key in a tool input',
    () => ({
      model: 'primary',
      transcript: [
        userText('go'),
        {
          kind: 'assistant',
          parts: [
            { type: 'tool-call', id: 'c1', name: 'run', input: fromJson('{"__proto__":{"polluted":1}}') },
          ],
        },
        {
          kind: 'tool',
          parts: [
            { type: 'tool-result', callId: 'c1', output: { type: 'text', text: 'ok' }, isError: false },
          ],
        },
      ],
    }),
    none,
    /transcript\[1\]\.parts\[0\]\.input\.__proto__: the key "__proto__" is not allowed/,
  ],
  [
    'a __proto__ key in metadata',
    () => ({ model: 'primary', transcript: hello(), metadata: fromJson('{"__proto__":{"polluted":1}}') }),
    none,
    /metadata\.__proto__/,
  ],
  ['an unknown field', () => ({ model: 'primary', transcript: hello(), temprature: 1 }), none, /temprature/],
  [
    'a NaN temperature',
    () => ({ model: 'primary', transcript: hello(), temperature: Number.NaN }),
    none,
    /temperature/,
  ],
  [
    'maxOutputTokens: -1',
    () => ({ model: 'primary', transcript: hello(), maxOutputTokens: -1 }),
    none,
    /maxOutputTokens/,
  ],
  [
    'maxOutputTokens: Infinity',
    () => ({ model: 'primary', transcript: hello(), maxOutputTokens: 1 / 0 }),
    none,
    /maxOutputTokens/,
  ],
  [
    'tools: null',
    () => ({ model: 'primary', transcript: hello(), tools: null }),
    none,
    /tools: .*expected array/,
  ],
  ['a null tool', () => ({ model: 'primary', transcript: hello(), tools: [null] }), none, /tools\[0\]/],
  [
    'two tools with one name',
    () => ({
      model: 'primary',
      transcript: hello(),
      tools: [
        { name: 'a', inputSchema: { type: 'object' } },
        { name: 'a', inputSchema: { type: 'object' } },
      ],
    }),
    none,
    /tools: tool names must be unique/,
  ],
  [
    'output: 5',
    () => ({ model: 'primary', transcript: hello(), output: 5 }),
    none,
    /output: output must be a zod schema/,
  ],
  [
    'output: null',
    () => ({ model: 'primary', transcript: hello(), output: null }),
    none,
    /output: output must be/,
  ],
  [
    'null call options',
    () => ({ model: 'primary', transcript: hello() }),
    () => null,
    /options: .*expected object/,
  ],
  ['a number as call options', () => ({ model: 'primary', transcript: hello() }), () => 3, /options/],
  [
    'a fake signal',
    () => ({ model: 'primary', transcript: hello() }),
    () => ({ signal: { aborted: true } }),
    /options\.signal/,
  ],
  [
    'headers with a number value',
    () => ({ model: 'primary', transcript: hello() }),
    () => ({ headers: { 'x-a': 1 } }),
    /options\.headers\.x-a/,
  ],
];

/** Calls stream() and complete() with the row's input and returns how each ended. */
async function callBoth(request: unknown, options: unknown) {
  let turn: ReturnType<Switchyard['stream']> | undefined;
  expect(() => {
    turn = sy.stream(request as SwitchyardRequest, options as CallOptions);
  }, 'stream() never throws synchronously').not.toThrow();
  const received: StreamEvent[] = [];
  const iterated = await settle(
    (async () => {
      for await (const event of turn!) received.push(event);
    })(),
  );
  const events = received.map((event) => event.type);
  const result = await settle(turn!.result());
  let completed: Promise<unknown> | undefined;
  expect(() => {
    completed = sy.complete(request as SwitchyardRequest, options as CallOptions);
  }, 'complete() never throws synchronously').not.toThrow();
  return { events, received, iterated, result, completed: await settle(completed!) };
}

describe('the front door rejects bad requests with a classified error naming the bad path', () => {
  it.each(badRequests)('%s', async (_name, makeRequest, makeOptions, names) => {
    const request = makeRequest();
    const options = makeOptions();
    const before = snapshotOf(request);
    const { iterated, result, completed, events, received } = await callBoth(request, options);
    // Like an adapter's refused stream: message-start, finish(error), then the error.
    expect(events).toEqual(['message-start', 'finish']);
    expect(received.at(-1)).toMatchObject({ response: { finishReason: 'error' } });
    assertStreamInvariants(received);
    for (const outcome of [iterated, result, completed]) {
      expect(outcome.state).toBe('rejected');
      const error = (outcome as { error: unknown }).error;
      expect(isInvalidRequestError(error), String(error)).toBe(true);
      expect((error as Error).message).toMatch(names);
    }
    expect(emulator.requests, 'no HTTP call').toHaveLength(0);
    if (before !== undefined) expect(request).toEqual(before.copy);
  });

  it.each([
    ['a path', '../etc/passwd'],
    ['an unknown provider prefix', 'nope:model'],
    ['__proto__', '__proto__'],
    ['constructor', 'constructor'],
    ['toString', 'toString'],
  ])('a model name that is %s is an unknown model, quoted', async (_label, model) => {
    const { completed, iterated } = await callBoth({ model, transcript: hello() }, undefined);
    for (const outcome of [completed, iterated]) {
      const error = (outcome as { error: unknown }).error;
      expect(isInvalidRequestError(error)).toBe(true);
      expect(error).toMatchObject({ providerCode: 'unknown_model' });
      expect((error as Error).message).toContain(`unknown model ${JSON.stringify(model)}`);
    }
    expect(emulator.requests).toHaveLength(0);
  });
});

describe('odd but valid requests have a documented result', () => {
  it('a deep-frozen request is served and never mutated', async () => {
    const request = deepFreeze({
      model: 'primary',
      transcript: hello(),
      tools: [{ name: 'look', inputSchema: {} }],
    });
    const before = structuredClone(request);
    emulator.enqueue(ok);
    emulator.enqueue(ok);
    const { iterated, completed, events } = await callBoth(request, undefined);
    expect(iterated.state).toBe('resolved');
    expect(events.at(-1)).toBe('finish');
    expect(completed).toMatchObject({ state: 'resolved', value: { text: 'fine' } });
    expect(request).toEqual(before);
  });

  it('lone surrogates and NUL in text reach the provider unchanged, not dropped or crashed on', async () => {
    emulator.enqueue(ok);
    const reply = await sy.complete({ model: 'primary', transcript: [userText('a\ud800b\u0000c\udfff')] });
    expect(reply.text).toBe('fine');
    const body = emulator.requests[0]!.body as { messages: Array<{ content: Array<{ text: string }> }> };
    expect(body.messages[0]!.content[0]!.text).toBe('a\ud800b\u0000c\udfff');
  });

  it('a 50 MB text part is refused by routing (context window) before any HTTP call, quickly', async () => {
    const started = performance.now();
    const outcome = await settle(
      sy.complete({ model: 'primary', transcript: [userText('x'.repeat(50 * 1024 * 1024))] }),
    );
    expect(outcome.state).toBe('rejected');
    const error = (outcome as { error: unknown }).error;
    expect(isContextOverflowError(error)).toBe(true);
    expect(error).toMatchObject({ providerCode: 'context_window_exceeded' });
    expect((error as Error).message).toMatch(/context window 200000 < estimated \d+ input tokens/);
    expect(emulator.requests).toHaveLength(0);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('a transcript of 100,000 items is validated and refused by routing (context window), not a hang', async () => {
    const transcript = Array.from({ length: 100_000 }, (_, index) => userText(`message ${index}`));
    const outcome = await settle(sy.complete({ model: 'primary', transcript }), 15_000);
    expect(outcome.state).toBe('rejected');
    const error = (outcome as { error: unknown }).error;
    expect(isContextOverflowError(error)).toBe(true);
    expect(error).toMatchObject({ providerCode: 'context_window_exceeded' });
    expect((error as Error).message).toMatch(/context window 200000 < estimated \d+ input tokens/);
    expect(emulator.requests).toHaveLength(0);
  }, 20_000);

  it.each([
    ['an Error', new Error('stop')],
    ['a string', 'stop'],
    ['a number', 42],
    ['undefined (the default reason)', undefined],
  ])('an already-aborted signal with %s as reason ends as cancelled', async (_label, reason) => {
    const signal = AbortSignal.abort(reason);
    const { completed, events, iterated } = await callBoth(
      { model: 'primary', transcript: hello() },
      { signal },
    );
    expect(completed.state).toBe('rejected');
    expect(isCancelledError((completed as { error: unknown }).error)).toBe(true);
    // A stream ends with finish(cancelled) or throws the cancellation; it never hangs or throws something else.
    if (iterated.state === 'rejected') expect(isCancelledError(iterated.error)).toBe(true);
    else expect(events.at(-1)).toBe('finish');
    expect(emulator.requests).toHaveLength(0);
  });
});

describe('createSwitchyard options: a mistake fails at creation naming the option', () => {
  const bad: Array<[string, unknown, RegExp]> = [
    ['a misspelt option', { fecth: fetch }, /options: Unrecognized key: "fecth"/],
    ['fetch that is a string', { fetch: 'https://proxy' }, /options\.fetch: fetch must be a function/],
    [
      'maxConnections of 0',
      { maxConnections: 0 },
      /options\.maxConnections: maxConnections must be a whole number from 1/,
    ],
    [
      'maxConnections of 2.5',
      { maxConnections: 2.5 },
      /options\.maxConnections: maxConnections must be a whole number/,
    ],
    ['a logger without warn', { logger: { log: () => {} } }, /options\.logger: logger must have a warn/],
    [
      'observers that are not an array',
      { observers: { onEvent() {} } },
      /options\.observers: observers must be an array/,
    ],
    [
      'an observer without onEvent',
      { observers: [() => {}] },
      /options\.observers\[0\]: an observer must have an onEvent/,
    ],
    ['env with a number value', { env: { OPENAI_API_KEY: 1 } }, /options\.env\.OPENAI_API_KEY/],
    ['config that is a number', { config: 5 }, /options\.config: config must be a path/],
    ['config that is an empty path', { config: '' }, /options\.config/],
    ['now that is a number', { now: 5 }, /options\.now: now must be a function/],
    ['a stateStore without set', { stateStore: { get() {} } }, /options\.stateStore/],
    [
      'providerTypes that are a plain object',
      { providerTypes: {} },
      /options\.providerTypes: providerTypes must be a provider-type table/,
    ],
    ['prices that are a plain object', { prices: {} }, /options\.prices: prices must be a price table/],
    ['a number as the options', 5, /options: .*expected object/],
    ['a string as the options', 'config.yaml', /options: .*expected object/],
    ['a Proxy that throws on every read', throwingProxy(), /options: unreadable value/],
  ];
  it.each(bad)('%s', (_name, options, names) => {
    const before = snapshotOf(options);
    let thrown: unknown;
    try {
      createSwitchyard(options as never);
    } catch (error) {
      thrown = error;
    }
    expect(isInvalidRequestError(thrown), String(thrown)).toBe(true);
    expect(thrown).toMatchObject({ providerCode: 'invalid_options' });
    expect((thrown as Error).message).toMatch(/^createSwitchyard: /);
    expect((thrown as Error).message).toMatch(names);
    if (before !== undefined) expect(options).toEqual(before.copy);
  });

  it('undefined and null options mean the defaults', async () => {
    for (const options of [undefined, null]) {
      const front = createSwitchyard(options as never);
      expect(front.providers().length).toBeGreaterThan(0);
      await front.close();
    }
  });

  it('a deep-frozen config is accepted and not mutated', async () => {
    const config = deepFreeze({
      builtins: false,
      adapters: { anthropic: { type: 'anthropic', api_key: 'test-key-frozen' } },
      models: {
        'anthropic:claude-sonnet-4-5': { aliases: ['s'], fallbacks: ['anthropic:claude-haiku-4-5'] },
      },
    });
    const before = structuredClone(config);
    const front = createSwitchyard({ config, logger: createMemoryLogger() });
    expect(front.resolve('s').id).toBe('anthropic:claude-sonnet-4-5');
    expect(config).toEqual(before);
    await front.close();
  });
});

describe('registry config mistakes fail at creation; cycles cannot loop', () => {
  const adapters = { anthropic: { type: 'anthropic', api_key: 'test-key-config' } };
  const configError = (config: SwitchyardConfig): ConfigError => {
    try {
      createSwitchyard({ config, logger: createMemoryLogger() });
    } catch (error) {
      return error as ConfigError;
    }
    throw new Error('createSwitchyard accepted the config');
  };

  it('a fallback that names no model is refused at creation with its key', () => {
    const error = configError({
      builtins: false,
      adapters,
      models: { 'anthropic:claude-sonnet-4-5': { fallbacks: ['anthropic:claude-haiku-4-5', 'nope:x'] } },
    });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.issues).toEqual([
      {
        path: 'models.anthropic:claude-sonnet-4-5.fallbacks.1',
        message: 'unknown model "nope:x": no model, alias or glob matches it',
      },
    ]);
  });

  it('two entries sharing an alias, or an alias that is a model id, are refused', () => {
    const error = configError({
      builtins: false,
      adapters,
      models: {
        'anthropic:claude-sonnet-4-5': { aliases: ['main'] },
        'anthropic:claude-haiku-4-5': { aliases: ['main', 'anthropic:claude-sonnet-4-5'] },
      },
    });
    expect(error.issues.map((issue) => issue.path)).toEqual([
      'models.anthropic:claude-haiku-4-5.aliases.0',
      'models.anthropic:claude-haiku-4-5.aliases.1',
    ]);
    expect(error.message).toMatch(/alias "main" already names anthropic:claude-sonnet-4-5/);
    expect(error.message).toMatch(/alias "anthropic:claude-sonnet-4-5" is also a model id/);
  });

  it('the user’s alias wins over a bundled one of the same name', async () => {
    const front = createSwitchyard({
      config: { adapters, models: { 'anthropic:claude-haiku-4-5': { aliases: ['sonnet'] } } },
      logger: createMemoryLogger(),
    });
    expect(front.resolve('sonnet').id).toBe('anthropic:claude-haiku-4-5');
    await front.close();
  });

  it('models that fall back to each other are tried once each, then the call settles', async () => {
    const front = createEmulatedSwitchyard(emulator.url, {
      adapters: { anthropic: 'anthropic' },
      apiKey: 'test-key-cycle',
      config: {
        models: {
          'anthropic:model-a': { aliases: ['a'], fallbacks: ['b'] },
          'anthropic:model-b': { aliases: ['b'], fallbacks: ['a'] },
        },
        routing: { failure_threshold: 1000 },
      },
    });
    // No script queued: the emulator answers 500 to both, and routing stops after the two.
    const outcome = await settle(front.complete({ model: 'a', transcript: hello() }));
    expect(outcome.state).toBe('rejected');
    expect(emulator.requests).toHaveLength(2);
    expect(
      routingDecisionOfError((outcome as { error: unknown }).error)?.attempts.map((attempt) => attempt.model),
    ).toEqual(['anthropic:model-a', 'anthropic:model-b']);
    await front.close();
  });
});

describe('config keys: __proto__ is refused, not silently dropped', () => {
  it.each([
    ['an adapter named __proto__', '{"adapters":{"__proto__":{"type":"anthropic"}}}', /adapters\.__proto__/],
    ['a pricing key __proto__', '{"pricing":{"__proto__":{"input_mtok":1}}}', /pricing\.__proto__/],
    ['a model key __proto__', '{"models":{"__proto__":null}}', /models\.__proto__/],
  ])('%s (JSON)', (_label, json, names) => {
    let thrown: unknown;
    try {
      createSwitchyard({ config: fromJson(json) as SwitchyardConfig, logger: createMemoryLogger() });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).message).toMatch(names);
  });

  it('an adapter named __proto__ in YAML names its line', () => {
    let thrown: unknown;
    try {
      parseConfigYaml('adapters:\n  __proto__:\n    type: anthropic\n', 'switchyard.yaml');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).issues[0]).toMatchObject({ path: 'adapters.__proto__', line: 2 });
  });
});
