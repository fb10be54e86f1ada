/**
 * Hostile input on the other surfaces a user touches: `sy.resolve`, conversations (`send`,
 * `fromJSON`), every adapter's `estimateInputTokens`, and `parseTranscript` / `stringifyTranscript`.
 * Same oracle as hostile-input.test.ts: a classified error naming the bad path, no unhandled
 * rejection, the caller's input unchanged, `Object.prototype` clean.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Adapter } from '../../src/core/adapter.ts';
import { isInvalidRequestError } from '../../src/core/errors/guards.ts';
import { userText } from '../../src/core/transcript.ts';
import { parseTranscript, stringifyTranscript } from '../../src/core/transcript-schema.ts';
import { createAnthropic } from '../../src/providers/anthropic/index.ts';
import { createGemini } from '../../src/providers/gemini/index.ts';
import { createOpenAI } from '../../src/providers/openai-chat/index.ts';
import { createOpenAICompatible, presets } from '../../src/providers/openai-compatible/index.ts';
import type { Switchyard } from '../../src/switchyard.ts';
import type { Emulator } from '../../src/testing/emulator/index.ts';
import {
  deepFreeze,
  fromJson,
  settle,
  snapshotOf,
  throwingProxy,
  useHostileFrontDoor,
} from '../support/hostile.ts';

const door = useHostileFrontDoor('test-key-surfaces');
let emulator: Emulator;
let sy: Switchyard;
beforeAll(() => {
  ({ emulator, sy } = door);
});

/** The error `fn` throws (undefined when it does not). */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('sy.resolve: a bad name is an InvalidRequestError, never a TypeError', () => {
  it.each([
    ['a number', 42, /name: model must be a string/],
    ['undefined', undefined, /name: model must be a string/],
    ['an empty string', '', /non-empty/],
    ['a glob', 'anthropic:claude-*', /cannot contain "\*"/],
    ['10 KB', 'x'.repeat(10_240), /longer than 512/],
    ['an unknown name', 'nope', /unknown model "nope"/],
  ])('%s', (_label, name, names) => {
    const error = thrownBy(() => sy.resolve(name as string));
    expect(isInvalidRequestError(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(names);
  });
});

describe('conversations: bad settings fail at creation; a bad send never poisons the transcript', () => {
  it.each([
    ['null settings', null, /settings: .*expected object/],
    ['no model', {}, /settings\.model/],
    ['a glob model', { model: 'anthropic:*' }, /settings\.model: model cannot contain/],
    ['a number as system', { model: 'primary', system: 5 }, /settings\.system/],
    [
      'a misspelt setting',
      { model: 'primary', sytem: 'Answer in French' },
      /settings\.sytem: not a conversation setting/,
    ],
    ['an unknown setting', { model: 'primary', bogus: 1 }, /settings\.bogus: not a conversation setting/],
    ['tools that are no list', { model: 'primary', tools: 'x' }, /settings\.tools: .*expected array/],
    ['a temperature that is no number', { model: 'primary', temperature: 'hot' }, /settings\.temperature/],
    [
      'a tool without a name',
      { model: 'primary', tools: [{ inputSchema: { type: 'object' } }] },
      /settings\.tools\[0\]\.name/,
    ],
  ])('sy.conversation(%s)', (_label, settings, names) => {
    const error = thrownBy(() => sy.conversation(settings as never));
    expect(isInvalidRequestError(error), String(error)).toBe(true);
    expect((error as { providerCode?: string }).providerCode).toBe('invalid_options');
    expect((error as Error).message).toMatch(names);
  });

  it('a conversation with an output schema: each reply structured; the schema is not saved, and fromJSON takes it again', async () => {
    const city = z.object({ city: z.string() });
    const chat = sy.conversation({ model: 'primary', output: city });
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: '{"city":"Paris"}' }] });
    expect((await chat.send('Where?').result()).structured).toEqual({ city: 'Paris' });
    const saved = JSON.parse(JSON.stringify(chat.toJSON()));
    expect(saved.settings).not.toHaveProperty('output');
    const restored = sy.conversation.fromJSON(saved, { output: city });
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: '{"city":"Lyon"}' }] });
    expect((await restored.send('And now?').result()).structured).toEqual({ city: 'Lyon' });
    expect(thrownBy(() => sy.conversation({ model: 'primary', output: 5 } as never))).toMatchObject({
      providerCode: 'invalid_options',
    });
  });

  it("a conversation's own snapshot is restored: toJSON of good settings goes back through fromJSON", () => {
    const settings = { model: 'primary', system: 'Be brief.', temperature: 0.2, maxOutputTokens: 100 };
    const saved = JSON.parse(JSON.stringify(sy.conversation(settings).toJSON()));
    expect(sy.conversation.fromJSON(saved).toJSON()).toEqual(saved);
    // A snapshot from elsewhere whose settings a send would refuse is refused when restored.
    const edited = { ...saved, settings: { ...saved.settings, temperature: 'hot' } };
    const error = thrownBy(() => sy.conversation.fromJSON(edited));
    expect((error as { providerCode?: string }).providerCode).toBe('invalid_options');
    expect((error as Error).message).toMatch(/snapshot\.settings\.temperature/);
  });

  it.each([
    ['a number', 5, /input: send\(\) takes text/],
    ['null', null, /input: send\(\) takes text/],
    ['an item of unknown kind', { kind: 'narrator', parts: [] }, /input\.kind/],
    ['parts holding a BigInt', [{ type: 'structured', value: 1n }], /input\.parts\[0\]\.value/],
    ['a Proxy', throwingProxy(), /unreadable value/],
  ])(
    'send(%s) fails as a turn, leaves the transcript as it was, and the next send works',
    async (_label, input, names) => {
      const conversation = sy.conversation({ model: 'primary', system: 'Be brief.' });
      const before = structuredClone(conversation.transcript);
      let turn: ReturnType<typeof conversation.send> | undefined;
      expect(() => {
        turn = conversation.send(input as never);
      }).not.toThrow();
      const outcome = await settle(turn!.result());
      expect(outcome.state).toBe('rejected');
      const error = (outcome as { error: unknown }).error;
      expect(isInvalidRequestError(error), String(error)).toBe(true);
      expect((error as Error).message).toMatch(names);
      expect(conversation.transcript).toEqual(before);
      expect(emulator.requests).toHaveLength(0);
      emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'fine' }] });
      expect((await conversation.send('hello')).text).toBe('fine');
    },
  );

  it('send() with null call options fails as a turn, not a TypeError', async () => {
    const conversation = sy.conversation({ model: 'primary' });
    const outcome = await settle(conversation.send('hi', null as never).result());
    expect(outcome.state).toBe('rejected');
    expect((outcome as { error: Error }).error.message).toMatch(/options: call options must be an object/);
  });

  it.each([
    ['null', null, /snapshot: .*expected object/],
    ['a wrong version', { version: 2 }, /snapshot\.version: version must be 1/],
    ['a Proxy', throwingProxy(), /snapshot: unreadable value/],
  ])('fromJSON(%s) fails at once, naming the field', (_label, snapshot, names) => {
    const error = thrownBy(() => sy.conversation.fromJSON(snapshot as never));
    expect(isInvalidRequestError(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(names);
  });

  it('fromJSON restores a copy: sending never appends to the caller’s (frozen) snapshot', async () => {
    const original = sy.conversation({ model: 'primary' });
    const snapshot = deepFreeze(original.toJSON());
    const restored = sy.conversation.fromJSON(snapshot);
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'fine' }] });
    expect((await restored.send('hello')).text).toBe('fine');
    expect(snapshot.transcript).toEqual([]);
    expect(restored.transcript).toHaveLength(2);
  });
});

describe('estimateInputTokens: bad input is an InvalidRequestError on every adapter', () => {
  const adapters = (): Adapter[] => [
    createAnthropic({ apiKey: 'test-anthropic-key-0000' }),
    createOpenAI({ apiKey: 'test-openai-key-0000' }),
    createGemini({ apiKey: 'test-gemini-key-0000' }),
    createOpenAICompatible(presets.groq, { apiKey: 'test-groq-key-0000' }),
  ];
  it.each([
    ['null', null, /\(root\)/],
    ['a null transcript', { transcript: null }, /transcript: .*expected array/],
    [
      'a number as text',
      { transcript: [{ kind: 'user', parts: [{ type: 'text', text: 5 }] }] },
      /transcript\[0\]\.parts\[0\]\.text/,
    ],
    ['a Proxy', throwingProxy(), /unreadable value/],
  ])('%s', async (_label, input, names) => {
    for (const adapter of adapters()) {
      const error = thrownBy(() => adapter.estimateInputTokens(input as never));
      expect(isInvalidRequestError(error), `${adapter.name}: ${String(error)}`).toBe(true);
      expect((error as Error).message).toMatch(names);
      await adapter.close();
    }
  });

  it('a valid input is estimated as before (no validation cost on the good path)', async () => {
    for (const adapter of adapters()) {
      expect(adapter.estimateInputTokens({ transcript: [userText('hello there')] })).toBeGreaterThan(0);
      await adapter.close();
    }
  });
});

describe('parseTranscript never throws; stringifyTranscript refuses what JSON would lose', () => {
  const cyclic = () => {
    const value: Record<string, unknown> = {};
    value.self = value;
    return [{ kind: 'user', parts: [{ type: 'structured', value }] }];
  };
  const deep = () => {
    let value: unknown = 'leaf';
    for (let depth = 0; depth < 20_000; depth++) value = [value];
    return [{ kind: 'user', parts: [{ type: 'structured', value }] }];
  };
  const structured = (value: unknown) => [{ kind: 'user', parts: [{ type: 'structured', value }] }];
  const rows: Array<[string, () => unknown, RegExp]> = [
    ['null', () => null, /\(root\): .*expected array/],
    ['a number', () => 5, /\(root\)/],
    ['invalid JSON text', () => '[{', /\(root\): invalid JSON/],
    ['a Proxy', throwingProxy, /\(root\): unreadable value/],
    ['a cycle', cyclic, /\[0\]\.parts\[0\]\.value\.self: circular reference/],
    ['20,000 levels of nesting', deep, /nested deeper than 512 levels/],
    ['a BigInt', () => structured(1n), /\[0\]\.parts\[0\]\.value: expected a JSON value/],
    ['a Date', () => structured(new Date(0)), /expected a JSON value/],
    ['a Map', () => structured(new Map()), /expected a JSON value/],
    ['a function', () => structured(() => 1), /expected a JSON value/],
    ['NaN', () => structured(Number.NaN), /expected a JSON value/],
    ['a sparse parts array', () => [{ kind: 'user', parts: new Array(2) }], /\[0\]\.parts\[0\]/],
    [
      'a __proto__ key in a tool input (JSON text)',
      () =>
        '[{"kind":"assistant","parts":[{"type":"tool-call","id":"c","name":"x","input":{"__proto__":{"polluted":1}}}]}]',
      /\[0\]\.parts\[0\]\.input\.__proto__: the key "__proto__" is not allowed/,
    ],
    [
      'a constructor.prototype path in metadata',
      () => [
        {
          kind: 'user',
          parts: [],
          metadata: fromJson('{"app.x":{"constructor":{"prototype":{"polluted":1}}}}'),
        },
      ],
      /^$/,
    ],
  ];
  it.each(rows)('%s', (_label, make, names) => {
    const input = make();
    const before = snapshotOf(input);
    let parsed: ReturnType<typeof parseTranscript> | undefined;
    expect(() => {
      parsed = parseTranscript(input);
    }).not.toThrow();
    if (names.source === '^$') {
      // Valid: `constructor` is an ordinary key; it round-trips and pollutes nothing.
      expect(parsed!.ok).toBe(true);
      const value = (parsed as unknown as { value: Parameters<typeof stringifyTranscript>[0] }).value;
      expect(parseTranscript(stringifyTranscript(value))).toEqual(parsed);
    } else {
      expect(parsed!.ok).toBe(false);
      const issues = (parsed as { issues: Array<{ path: string; message: string }> }).issues;
      expect(issues.map((issue) => `${issue.path}: ${issue.message}`).join('\n')).toMatch(names);
      if (typeof input !== 'string') {
        const error = thrownBy(() => stringifyTranscript(input as never));
        expect(isInvalidRequestError(error), String(error)).toBe(true);
        expect(error).toMatchObject({ providerCode: 'invalid_transcript' });
      }
    }
    if (before !== undefined) expect(input).toEqual(before.copy);
  });

  it('a 50 MB text part and lone surrogates round-trip', () => {
    const transcript = [userText('z'.repeat(50 * 1024 * 1024)), userText('\ud800 \u0000 \udfff')];
    const parsed = parseTranscript(stringifyTranscript(transcript));
    expect(parsed.ok).toBe(true);
    expect((parsed as { value: unknown }).value).toEqual(transcript);
  });

  it('100,000 items parse and round-trip', () => {
    const transcript = Array.from({ length: 100_000 }, (_, index) => userText(`m${index}`));
    const parsed = parseTranscript(stringifyTranscript(transcript));
    expect(parsed.ok && parsed.value.length).toBe(100_000);
  }, 20_000);
});

describe('adapters share the boundary: the new rules hold on every adapter before any HTTP call', () => {
  const adapters = (): Adapter[] => {
    const options = { baseURL: emulator.url, maxRetries: 0 };
    return [
      createAnthropic({ ...options, apiKey: 'test-anthropic-key-0000' }),
      createOpenAI({ ...options, apiKey: 'test-openai-key-0000' }),
      createGemini({ ...options, apiKey: 'test-gemini-key-0000' }),
      createOpenAICompatible(presets.groq, { ...options, apiKey: 'test-groq-key-0000' }),
    ];
  };
  const valid = { model: 'model-x', transcript: [userText('hi')], maxOutputTokens: 10 };
  it.each([
    [
      'two tools with one name',
      {
        ...valid,
        tools: [
          { name: 't', inputSchema: {} },
          { name: 't', inputSchema: {} },
        ],
      },
      /tools: tool names must be unique/,
    ],
    [
      'a __proto__ key in providerOptions',
      { ...valid, providerOptions: { anthropic: fromJson('{"__proto__":{"polluted":1}}') } },
      /providerOptions\.anthropic\.__proto__/,
    ],
    [
      'a Date in a structured part',
      { ...valid, transcript: [{ kind: 'user', parts: [{ type: 'structured', value: new Date(0) }] }] },
      /transcript\[0\]\.parts\[0\]\.value: expected a JSON value/,
    ],
  ])('%s', async (_label, request, names) => {
    for (const adapter of adapters()) {
      const outcome = await settle(adapter.complete(request as never));
      expect(outcome.state).toBe('rejected');
      const error = (outcome as { error: unknown }).error;
      expect(isInvalidRequestError(error), `${adapter.name}: ${String(error)}`).toBe(true);
      expect((error as Error).message).toMatch(names);
      await adapter.close();
    }
    expect(emulator.requests).toHaveLength(0);
  });
});
