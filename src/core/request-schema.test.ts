import { describe, expect, it } from 'vitest';
import type { ToolCallId } from './ids.ts';
import type { CanonicalRequest } from './request.ts';
import { validateCallOptions, validateRequest } from './request-schema.ts';
import { userText } from './transcript.ts';
import { parseTranscript, stringifyTranscript } from './transcript-schema.ts';

const valid: CanonicalRequest = { model: 'test:model', transcript: [userText('hi')], maxOutputTokens: 10 };
const paths = (input: unknown) => {
  const result = validateRequest(input);
  return result.ok ? [] : result.issues.map((issue) => issue.path);
};

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level++) value = { a: value };
  return value;
}

describe('validateRequest: the whole CanonicalRequest at the boundary', () => {
  it('accepts a well-formed request', () => {
    expect(validateRequest(valid)).toMatchObject({ ok: true });
  });

  it.each([null, undefined, 42, 'text', []])(
    'rejects a non-object request (%s) without throwing',
    (input) => {
      expect(validateRequest(input)).toMatchObject({ ok: false });
    },
  );

  it('accepts reasoning off (effort none), xhigh and max, and no effort outside the levels', () => {
    expect(paths({ ...valid, reasoning: { effort: 'none' } })).toEqual([]);
    expect(paths({ ...valid, reasoning: { effort: 'xhigh' } })).toEqual([]);
    expect(paths({ ...valid, reasoning: { effort: 'max' } })).toEqual([]);
    expect(paths({ ...valid, reasoning: { effort: 'maximum' } })).toEqual(['reasoning.effort']);
    expect(paths({ ...valid, reasoning: { effort: 'off' } })).toEqual(['reasoning.effort']);
  });

  it('lists every bad path, not only the first', () => {
    expect(
      paths({
        model: '',
        transcript: [
          { kind: 'robot', parts: [] },
          { kind: 'user', parts: [{ type: 'text', text: 3 }] },
        ],
        maxOutputTokens: 1.5,
        temperature: Number.NaN,
        topP: -5,
        topK: 0,
      }),
    ).toEqual(
      expect.arrayContaining([
        'model',
        'transcript[0].kind',
        'transcript[1].parts[0].text',
        'maxOutputTokens',
        'temperature',
        'topP',
        'topK',
      ]),
    );
  });

  it('rejects a missing model, a non-array transcript and an unknown field', () => {
    expect(paths({ transcript: {}, maxOutputTokens: 1, maxTokens: 5 })).toEqual(
      expect.arrayContaining(['model', 'transcript', '(root)']),
    );
  });

  it('rejects an infinite temperature and a temperature above 2', () => {
    expect(paths({ ...valid, temperature: Number.POSITIVE_INFINITY })).toEqual(['temperature']);
    expect(paths({ ...valid, temperature: 2.5 })).toEqual(['temperature']);
  });

  it('rejects a tool-call input that is not a JSON object', () => {
    const transcript = [
      userText('go'),
      { kind: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'run', input: '{"a":1}' }] },
      {
        kind: 'tool',
        parts: [{ type: 'tool-result', callId: 'c1', output: { type: 'text', text: 'ok' }, isError: false }],
      },
    ];
    expect(paths({ ...valid, transcript })).toEqual(['transcript[1].parts[0].input']);
  });

  it('rejects an empty tool name in the tool list', () => {
    expect(paths({ ...valid, tools: [{ name: '', inputSchema: { type: 'object' } }] })).toEqual([
      'tools[0].name',
    ]);
  });

  it('rejects a circular value and nesting 10,000 levels deep without a RangeError', () => {
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    expect(validateRequest({ ...valid, metadata: { 'x.y': circular } })).toMatchObject({
      ok: false,
      issues: [{ path: 'metadata.x.y.self', message: 'circular reference' }],
    });
    const deep = validateRequest({ ...valid, metadata: { 'x.deep': nested(10_000) } });
    expect(deep).toMatchObject({ ok: false });
    expect(!deep.ok && deep.issues[0]!.message).toMatch(/nested deeper than 512 levels/);
  });

  it('accepts a value shared by two branches (not a cycle)', () => {
    const shared = { type: 'object' };
    const tools = [
      { name: 'a', inputSchema: shared },
      { name: 'b', inputSchema: shared },
    ];
    expect(validateRequest({ ...valid, tools })).toMatchObject({ ok: true });
  });

  it('rejects an assistant tool call without a tool result, naming the call id', () => {
    const transcript = [
      userText('go'),
      { kind: 'assistant', parts: [{ type: 'tool-call', id: 'call_42', name: 'run', input: {} }] },
      userText('and?'),
    ];
    const result = validateRequest({ ...valid, transcript });
    expect(result).toMatchObject({ ok: false, issues: [{ path: 'transcript[1].parts[0]' }] });
    expect(!result.ok && result.issues[0]!.message).toContain('call_42');
  });

  it('rejects a tool result without a call, naming the call id', () => {
    const transcript = [
      userText('go'),
      {
        kind: 'tool',
        parts: [
          { type: 'tool-result', callId: 'ghost_7', output: { type: 'text', text: 'x' }, isError: false },
        ],
      },
    ];
    const result = validateRequest({ ...valid, transcript: transcript as CanonicalRequest['transcript'] });
    expect(!result.ok && result.issues[0]!.message).toContain('ghost_7');
  });

  it('accepts an answered tool call', () => {
    const transcript: CanonicalRequest['transcript'] = [
      userText('go'),
      { kind: 'assistant', parts: [{ type: 'tool-call', id: 'c1' as ToolCallId, name: 'run', input: {} }] },
      {
        kind: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId: 'c1' as ToolCallId,
            output: { type: 'text', text: 'ok' },
            isError: false,
          },
        ],
      },
    ];
    expect(validateRequest({ ...valid, transcript })).toMatchObject({ ok: true });
  });
});

describe('outputSchema.format', () => {
  const enumSchema = { type: 'string', enum: ['Percussion', 'String'] };
  it("'enum' takes a string enum schema", () => {
    expect(paths({ ...valid, outputSchema: { schema: enumSchema, format: 'enum' } })).toEqual([]);
    expect(paths({ ...valid, outputSchema: { schema: { enum: ['a'] }, format: 'enum' } })).toEqual([]);
  });

  it("'enum' with another schema, or an unknown format, is refused by path", () => {
    expect(paths({ ...valid, outputSchema: { schema: { type: 'object' }, format: 'enum' } })).toEqual([
      'outputSchema.schema',
    ]);
    expect(paths({ ...valid, outputSchema: { schema: { enum: [1] }, format: 'enum' } })).toEqual([
      'outputSchema.schema',
    ]);
    expect(paths({ ...valid, outputSchema: { schema: enumSchema, format: 'xml' } })).toEqual([
      'outputSchema.format',
    ]);
  });
});

describe('validateCallOptions', () => {
  it('accepts undefined and a real signal', () => {
    expect(validateCallOptions(undefined)).toMatchObject({ ok: true });
    expect(validateCallOptions({ signal: new AbortController().signal })).toMatchObject({ ok: true });
  });
  it('rejects null options and a signal that is not an AbortSignal', () => {
    expect(validateCallOptions(null)).toMatchObject({ ok: false });
    expect(validateCallOptions({ signal: {} })).toMatchObject({
      ok: false,
      issues: [{ path: 'options.signal' }],
    });
  });
});

describe('parseTranscript never throws', () => {
  it('reports nesting 10,000 levels deep as an issue, not a RangeError', () => {
    const transcript = [{ kind: 'user', parts: [{ type: 'structured', value: nested(10_000) }] }];
    const fromValue = parseTranscript(transcript);
    const json = `[{"kind":"user","parts":[{"type":"structured","value":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}]}]`;
    const fromJson = parseTranscript(json);
    for (const result of [fromValue, fromJson]) {
      expect(result.ok).toBe(false);
      expect(!result.ok && result.issues[0]!.message).toMatch(/nested deeper/);
    }
  });

  it('rejects a circular value (which stringifyTranscript could not serialize)', () => {
    const value: Record<string, unknown> = {};
    value.loop = [value];
    const result = parseTranscript([{ kind: 'user', parts: [{ type: 'structured', value }] }]);
    expect(result).toMatchObject({
      ok: false,
      issues: [{ path: '[0].parts[0].value.loop[0]', message: 'circular reference' }],
    });
  });

  it('turns a throwing getter into an issue', () => {
    const item = { kind: 'user' } as Record<string, unknown>;
    Object.defineProperty(item, 'parts', {
      enumerable: true,
      get() {
        throw new Error('boom');
      },
    });
    expect(parseTranscript([item])).toMatchObject({ ok: false });
  });

  it('still round-trips a valid transcript', () => {
    const transcript = [userText('hello')];
    expect(parseTranscript(stringifyTranscript(transcript))).toEqual({ ok: true, value: transcript });
  });
});
