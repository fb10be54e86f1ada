import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { StreamEvent } from '../core/events.ts';
import { userText } from '../core/transcript.ts';
import type { Switchyard } from '../switchyard.ts';
import type { Emulator, EmulatorProtocolId } from '../testing/emulator/index.ts';
import { formatIssues, toJsonSchema, validateValue } from './schema.ts';
import { StructuredOutputError, tool } from './structured.ts';
import { startEmulatedSwitchyard } from '../../test/support/emulated.ts';

/** A hand-written Standard Schema (not zod) for `{ n: number }`, with its JSON Schema converter. */
const handWritten: StandardSchemaV1<unknown, { n: number }> & StandardJSONSchemaV1<unknown, { n: number }> = {
  '~standard': {
    version: 1,
    vendor: 'hand',
    validate: (value) =>
      typeof value === 'object' && value !== null && typeof (value as { n?: unknown }).n === 'number'
        ? { value: value as { n: number } }
        : { issues: [{ message: 'n must be a number', path: ['n'] }] },
    jsonSchema: {
      input: () => ({ type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }),
      output: () => ({ type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }),
    },
  },
};

describe('schemas in', () => {
  it('zod, a Standard Schema and plain JSON Schema all become tool JSON Schemas without casts', async () => {
    const weather = tool({ name: 'weather', description: 'Weather', input: z.object({ city: z.string() }) });
    expect(weather.inputSchema).toEqual({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    });
    const city: { city: string } = await weather.parse({ city: 'Paris' });
    expect(city.city).toBe('Paris');
    await expect(weather.parse({ city: 3 })).rejects.toThrow(/weather: invalid input: city:/);
    expect(tool({ name: 'n', input: handWritten }).inputSchema).toMatchObject({ required: ['n'] });
    const plain = { type: 'object', properties: { q: { type: 'string' } } };
    expect(tool({ name: 'q', input: plain }).inputSchema).toBe(plain);
  });

  it('plain JSON Schema values are validated by type, required, enum, items and additionalProperties', async () => {
    const schema = {
      type: 'object',
      properties: { kind: { enum: ['a', 'b'] }, list: { type: 'array', items: { type: 'integer' } } },
      required: ['kind'],
      additionalProperties: false,
    };
    expect(await validateValue(schema, { kind: 'a', list: [1, 2] })).toEqual({
      ok: true,
      value: { kind: 'a', list: [1, 2] },
    });
    const result = await validateValue(schema, { list: [1, 'x'], extra: true });
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.issues.map((issue) => issue.path).sort()).toEqual(['extra', 'kind', 'list.1']);
  });

  it('plain JSON Schema is checked with every keyword zod knows (pattern, format), each problem by path', async () => {
    const schema = {
      type: 'object',
      properties: {
        code: { type: 'string', pattern: '^[A-Z]{3}$' },
        mail: { type: 'string', format: 'email' },
      },
      required: ['code', 'mail'],
    };
    const result = await validateValue(schema, { code: 'abc', mail: 'nope' });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues.map((issue) => issue.path).sort()).toEqual(['code', 'mail']);
    expect(await validateValue(schema, { code: 'ABC', mail: 'a@b.co' })).toMatchObject({ ok: true });
  });

  it('a JSON Schema zod cannot rebuild (unevaluatedProperties) still gets the built-in checks', async () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' } }, unevaluatedProperties: false };
    expect(await validateValue(schema, { n: 'x' })).toEqual({
      ok: false,
      issues: [{ path: 'n', message: 'must be integer' }],
    });
    expect(await validateValue(schema, { n: 3 })).toEqual({ ok: true, value: { n: 3 } });
  });

  it('issues read inline for errors and as a list for a model to correct itself', () => {
    const issues = [
      { path: '', message: 'bad' },
      { path: 'a.0', message: 'is required' },
    ];
    expect(formatIssues(issues)).toBe('(root): bad; a.0: is required');
    expect(formatIssues(issues, 'list')).toBe('- bad\n- a.0: is required');
  });

  it('a Standard Schema without a JSON Schema converter is refused with a clear error', () => {
    const opaque = {
      '~standard': { version: 1, vendor: 'opaque', validate: (value: unknown) => ({ value }) },
    };
    expect(() => toJsonSchema(opaque as never)).toThrow(/opaque schema without a JSON Schema converter/);
  });
});

describe('validated values out, on every provider', () => {
  let emulator: Emulator;
  let sy: Switchyard;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({
      emulator,
      switchyard: sy,
      close,
    } = await startEmulatedSwitchyard({
      adapters: { anthropic: 'anthropic', openai: 'openai', gemini: 'gemini' },
      apiKey: 'test-key-schemas',
    }));
  });
  afterAll(() => close());

  const recipe = z.object({ title: z.string(), minutes: z.number().int() });
  const cases: Array<[string, EmulatorProtocolId]> = [
    ['anthropic:claude-sonnet-4-5', 'anthropic-messages'],
    ['openai:gpt-4.1-mini', 'openai-chat'],
    ['gemini:gemini-2.5-flash', 'gemini'],
  ];

  it.each(cases)('%s: the reply carries a structured part with the parsed value', async (model, protocol) => {
    emulator.enqueue({
      type: 'scripted',
      protocol,
      content: [{ type: 'text', text: '{"title":"Soup","minutes":20}' }],
    });
    const reply = await sy.complete({ model, transcript: [userText('A recipe')], output: recipe });
    expect(reply.structured).toEqual({ title: 'Soup', minutes: 20 });
    expect(reply.content.at(-1)).toMatchObject({ type: 'structured', value: { title: 'Soup', minutes: 20 } });
    const body = JSON.stringify(emulator.requests.at(-1)?.body);
    expect(body).toContain('minutes');
  });

  it.each(cases)(
    '%s: a reply that does not validate fails with the raw text kept',
    async (model, protocol) => {
      emulator.enqueue({
        type: 'scripted',
        protocol,
        content: [{ type: 'text', text: '{"title":"Soup","minutes":"soon"}' }],
      });
      const error = await sy
        .complete({ model, transcript: [userText('A recipe')], output: recipe })
        .catch((caught) => caught);
      expect(error).toBeInstanceOf(StructuredOutputError);
      expect(error).toMatchObject({
        errorClass: 'other',
        providerCode: 'invalid_structured_output',
        text: '{"title":"Soup","minutes":"soon"}',
      });
      expect(error.issues[0].path).toBe('minutes');
    },
  );

  it('streaming: a reply that does not validate ends with finish, then the error', async () => {
    emulator.enqueue({
      type: 'scripted',
      protocol: 'openai-chat',
      content: [{ type: 'text', text: 'not json' }],
    });
    const events: StreamEvent[] = [];
    const error = await (async () => {
      for await (const event of sy.stream({
        model: 'openai:gpt-4.1-mini',
        transcript: [userText('x')],
        output: handWritten,
      }))
        events.push(event);
    })().catch((caught) => caught);
    expect(error).toBeInstanceOf(StructuredOutputError);
    expect(error.text).toBe('not json');
    expect(events.at(-1)?.type).toBe('finish');
  });
});
