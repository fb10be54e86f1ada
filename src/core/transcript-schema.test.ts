import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolCallId } from './ids.ts';
import type { JsonValue } from './json.ts';
import type { DataRef, Item, Part } from './transcript.ts';
import { parseTranscript, stringifyTranscript } from './transcript-schema.ts';

/** True when no object inside `value` has an own `__proto__` key (refused by the schema, by design). */
function withoutProtoKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (Object.hasOwn(value, '__proto__')) return false;
  return Object.values(value).every(withoutProtoKey);
}

const jsonValue: fc.Arbitrary<JsonValue> = fc
  .jsonValue({ maxDepth: 3 })
  .filter(withoutProtoKey)
  .map((value) => value as JsonValue);
const jsonObject = fc.dictionary(
  fc.string({ maxLength: 8 }).filter((key) => key !== '__proto__'),
  jsonValue,
  { maxKeys: 4 },
);
const metadata = fc.option(
  fc.dictionary(
    fc
      .tuple(fc.constantFrom('anthropic', 'openai', 'switchyard'), fc.string({ minLength: 1, maxLength: 6 }))
      .map(([namespace, field]) => `${namespace}.${field}`),
    jsonValue,
    { maxKeys: 3 },
  ),
  { nil: undefined },
);
const base64 = fc.uint8Array({ maxLength: 24 }).map((bytes) => Buffer.from(bytes).toString('base64'));
const dataRef: fc.Arbitrary<DataRef> = fc.oneof(
  base64.map((data) => ({ type: 'base64' as const, data })),
  fc.uint8Array({ maxLength: 24 }).map((bytes) => ({ type: 'bytes' as const, bytes: Buffer.from(bytes) })),
  fc.webUrl().map((uri) => ({ type: 'uri' as const, uri })),
  fc.string({ minLength: 1, maxLength: 10 }).map((handle) => ({ type: 'handle' as const, handle })),
);
const id = fc.string({ minLength: 1, maxLength: 12 }).map((value) => value as ToolCallId);

function withMetadata<Value extends object>(arbitrary: fc.Arbitrary<Value>): fc.Arbitrary<Value> {
  return fc
    .tuple(arbitrary, metadata)
    .map(([value, meta]) => (meta === undefined ? value : { ...value, metadata: meta }));
}

const leafPart: fc.Arbitrary<Part> = fc.oneof(
  withMetadata(fc.record({ type: fc.constant('text' as const), text: fc.string() })),
  withMetadata(
    fc.record({
      type: fc.constant('media' as const),
      modality: fc.constantFrom('image' as const, 'audio' as const, 'video' as const, 'binary' as const),
      mimeType: fc.constantFrom('image/png', 'audio/wav', 'video/mp4'),
      data: dataRef,
    }),
  ),
  withMetadata(
    fc.record(
      {
        type: fc.constant('file' as const),
        mimeType: fc.constant('application/pdf'),
        data: dataRef,
        filename: fc.string(),
      },
      { requiredKeys: ['type', 'mimeType', 'data'] },
    ),
  ),
  withMetadata(
    fc.record(
      { type: fc.constant('structured' as const), value: jsonValue, schema: jsonObject },
      { requiredKeys: ['type', 'value'] },
    ),
  ),
  withMetadata(
    fc.record(
      {
        type: fc.constant('reasoning' as const),
        text: fc.string(),
        signature: fc.string(),
        data: fc.string(),
        redacted: fc.boolean(),
        provider: fc.constantFrom('anthropic', 'gemini'),
      },
      { requiredKeys: ['type', 'text'] },
    ),
  ),
  withMetadata(
    fc.record(
      {
        type: fc.constant('tool-call' as const),
        id,
        name: fc.string({ minLength: 1, maxLength: 10 }),
        input: jsonObject,
        signature: fc.string(),
      },
      { requiredKeys: ['type', 'id', 'name', 'input'] },
    ),
  ),
  withMetadata(
    fc.record({
      type: fc.constant('custom' as const),
      provider: fc.constantFrom('anthropic', 'openai'),
      kind: fc.constantFrom('server_tool_use', 'web_search_tool_result'),
      data: jsonValue,
    }),
  ),
);
const toolResult: fc.Arbitrary<Part> = withMetadata(
  fc.record({
    type: fc.constant('tool-result' as const),
    callId: id,
    output: fc.oneof(
      fc.string().map((text) => ({ type: 'text' as const, text })),
      jsonValue.map((value) => ({ type: 'json' as const, value })),
      fc
        .array(
          leafPart.filter((inner) => inner.type !== 'tool-call'),
          { maxLength: 2 },
        )
        .map((parts) => ({ type: 'parts' as const, parts })),
    ),
    isError: fc.boolean(),
  }),
);
const item: fc.Arbitrary<Item> = withMetadata(
  fc.record({
    kind: fc.constantFrom(
      'system' as const,
      'developer' as const,
      'user' as const,
      'assistant' as const,
      'tool' as const,
      'context' as const,
    ),
    parts: fc.array(fc.oneof(leafPart, toolResult), { maxLength: 4 }),
  }),
);

describe('transcript JSON round-trip', () => {
  it('is lossless for generated transcripts (property)', () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 6 }), (transcript) => {
        const text = stringifyTranscript(transcript);
        const parsed = parseTranscript(text);
        expect(parsed.ok).toBe(true);
        if (!parsed.ok) return;
        // Re-serializing gives identical text: nothing lost, nothing reordered.
        expect(stringifyTranscript(parsed.value)).toBe(text);
        // And the structure matches, with bytes restored as bytes.
        expect(normalize(parsed.value)).toEqual(normalize(transcript));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps escaped keys exact after parsing a key with a backslash (V8 JSON.parse bug, seed -1019419226)', () => {
    // V8 compared an escaped key's raw text cut to its decoded length (`\"`, `\n`, `\u0001` → `\`;
    // `a\"b` → `a\"`) with the one key that had ever followed the same first key, and took that key.
    // Each case has a first key of its own, so the earlier key is its only follower.
    const transcriptWith = (nested: Record<string, number>): Item[] => [
      { kind: 'user', parts: [{ type: 'text', text: 'hi', metadata: { 'switchyard.keys': nested } }] },
    ];
    const cases = [
      ['\\', '"'],
      ['\\', '\n'],
      ['\\', '\u0001'],
      ['a\\"', 'a"b'],
    ];
    cases.forEach(([earlier = '', escaped = ''], index) => {
      const first = `escaped-key-regression-${index}`;
      const before = transcriptWith({ [first]: 0, [earlier]: 1 });
      expect(parseTranscript(stringifyTranscript(before))).toEqual({ ok: true, value: before });
      const transcript = transcriptWith({ [first]: 0, [escaped]: 1 });
      expect(parseTranscript(stringifyTranscript(transcript))).toEqual({ ok: true, value: transcript });
    });
  });

  it('serializes metadata in a deterministic key order whatever the insertion order', () => {
    const first: Item = {
      kind: 'user',
      parts: [{ type: 'text', text: 'hi', metadata: { 'b.x': 1, 'a.y': 2 } }],
    };
    const second: Item = {
      kind: 'user',
      parts: [{ type: 'text', text: 'hi', metadata: { 'a.y': 2, 'b.x': 1 } }],
    };
    expect(stringifyTranscript([first])).toBe(stringifyTranscript([second]));
    expect(stringifyTranscript([first])).toContain('{"a.y":2,"b.x":1}');
  });

  it('leaves user data under a key named metadata untouched (only transcript metadata is sorted)', () => {
    const transcript: Item[] = [
      {
        kind: 'assistant',
        parts: [
          {
            type: 'tool-call',
            id: 'a' as ToolCallId,
            name: 'x',
            input: { metadata: ['b', 'a'], z: { metadata: { b: 1, a: 2 } } },
          },
        ],
      },
    ];
    const text = stringifyTranscript(transcript);
    expect(text).toContain('"input":{"metadata":["b","a"],"z":{"metadata":{"b":1,"a":2}}}');
    const parsed = parseTranscript(text);
    expect(parsed.ok && parsed.value).toEqual(transcript);
  });

  it('restores bytes data refs as Uint8Array', () => {
    const transcript: Item[] = [
      {
        kind: 'user',
        parts: [
          {
            type: 'media',
            modality: 'image',
            mimeType: 'image/png',
            data: { type: 'bytes', bytes: new Uint8Array([1, 2, 255]) },
          },
        ],
      },
    ];
    const parsed = parseTranscript(stringifyTranscript(transcript));
    expect(parsed.ok && parsed.value[0]?.parts[0]).toMatchObject({ data: { type: 'bytes' } });
    const part = parsed.ok ? parsed.value[0]?.parts[0] : undefined;
    expect(part?.type === 'media' && part.data.type === 'bytes' && [...part.data.bytes]).toEqual([1, 2, 255]);
  });
});

describe('parseTranscript validation', () => {
  it('lists every bad path, not just the first', () => {
    const result = parseTranscript([
      { kind: 'user', parts: [{ type: 'text', text: 1 }] },
      { kind: 'robot', parts: [] },
      { kind: 'assistant', parts: [{ type: 'tool-call', id: 'a', name: 'x', input: [1] }] },
    ]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const paths = result.issues.map((issue) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(['[0].parts[0].text', '[1].kind', '[2].parts[0].input']));
  });

  it('reports invalid JSON text as one root issue', () => {
    const result = parseTranscript('[{"kind": "user",');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.issues[0]?.path).toBe('(root)');
  });

  it('rejects what would otherwise be lost or invalid: unknown fields, bad metadata keys, impossible base64, nested tool calls', () => {
    const result = parseTranscript([
      { kind: 'user', parts: [{ type: 'text', text: 'a', colour: 'red' }] },
      { kind: 'user', parts: [{ type: 'text', text: 'b', metadata: { plain: 1 } }] },
      {
        kind: 'user',
        parts: [
          { type: 'media', modality: 'image', mimeType: 'image/png', data: { type: 'base64', data: 'a' } },
        ],
      },
      {
        kind: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId: 'c',
            isError: false,
            output: { type: 'parts', parts: [{ type: 'tool-call', id: 'x', name: 'n', input: {} }] },
          },
        ],
      },
    ]);
    expect(result.ok).toBe(false);
    const paths = result.ok ? [] : result.issues.map((issue) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        '[0].parts[0]',
        '[1].parts[0].metadata.plain',
        '[2].parts[0].data.data',
        '[3].parts[0].output.parts[0]',
      ]),
    );
  });

  it('rejects an unknown part type with its path', () => {
    const result = parseTranscript([{ kind: 'user', parts: [{ type: 'hologram' }] }]);
    expect(!result.ok && result.issues.map((issue) => issue.path)).toEqual(['[0].parts[0].type']);
  });
});

function normalize(value: unknown): unknown {
  return JSON.parse(stringifyTranscript(value as Item[]));
}

describe('the incomplete marker in transcripts', () => {
  const call = 'call_1' as ToolCallId;
  const transcript: Item[] = [
    {
      kind: 'assistant',
      parts: [
        { type: 'reasoning', text: 'thinking', incomplete: true },
        { type: 'text', text: 'Half', incomplete: true },
        {
          type: 'tool-call',
          id: call,
          name: 'read',
          input: { path: 'a' },
          incomplete: true,
          metadata: { 'switchyard.raw_input': '{"path":"a' },
        },
      ],
    },
  ];

  it('round-trips through stringifyTranscript and parseTranscript', () => {
    const parsed = parseTranscript(stringifyTranscript(transcript));
    expect(parsed).toEqual({ ok: true, value: transcript });
  });

  it('accepts only true: incomplete false is an issue at its path', () => {
    const bad = JSON.parse(stringifyTranscript(transcript)) as Array<{
      parts: Array<Record<string, unknown>>;
    }>;
    (bad[0]?.parts[1] as Record<string, unknown>).incomplete = false;
    const parsed = parseTranscript(bad);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.issues.map((issue) => issue.path)).toContain('[0].parts[1].incomplete');
  });
});
