/** The zod-free check of everyday requests gives exactly what zod gives, and leaves everything else to zod. */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/support/scanner-oracle.ts';
import { createSession } from './adapter.ts';
import type { CanonicalRequest } from './request.ts';
import { plainRequest } from './request-fast-path.ts';
import {
  callOptionsSchema,
  isModelName,
  requestSchema,
  routeRequestSchema,
  validateCallOptions,
  validateRequest,
} from './request-schema.ts';
import { parseWithSchema } from './transcript-schema.ts';

type Pick = <Value>(list: readonly Value[]) => Value;

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level++) value = { a: value };
  return value;
}

/** Sets `key` to a random choice of `values` about half the time (a value `absent` leaves it out). */
const absent = Symbol('absent');
function maybe(
  target: Record<string, unknown>,
  key: string,
  values: readonly unknown[],
  pick: Pick,
  next: () => number,
) {
  if (next() < 0.5) return;
  const value = pick(values);
  if (value !== absent) target[key] = value;
}

function metadataValues(): unknown[] {
  return [
    { 'gemini.thoughtSignature': 'sig' },
    { bad: 1 },
    { 'x.y': Number.NaN },
    { 'x.y': undefined },
    [],
    null,
  ];
}

function jsonObjects(): unknown[] {
  const withSymbol = { a: 1, [Symbol('s')]: 2 };
  const withConstructor = { constructor: 'x' };
  return [
    { a: 1 },
    { a: { b: [1, 'two', null, true] } },
    {},
    [],
    null,
    'text',
    { a: undefined },
    { a: Number.POSITIVE_INFINITY },
    new Date(0),
    Object.create(null),
    withSymbol,
    withConstructor,
    nested(600),
    { a: 10n },
  ];
}

function randomPart(pick: Pick, next: () => number): unknown {
  const type = pick(['text', 'reasoning', 'tool-call', 'tool-result', 'media', 'structured', 'robot']);
  const part: Record<string, unknown> = { type };
  if (type === 'text' || type === 'reasoning') part.text = pick(['hi', '', 3]);
  if (type === 'text' || type === 'reasoning' || type === 'tool-call')
    maybe(part, 'incomplete', [true, false], pick, next);
  if (type === 'reasoning') {
    maybe(part, 'signature', ['sig', 4], pick, next);
    maybe(part, 'data', ['opaque'], pick, next);
    maybe(part, 'redacted', [true, 'yes'], pick, next);
    maybe(part, 'provider', ['anthropic'], pick, next);
  }
  if (type === 'tool-call') {
    part.id = pick(['c1', 'c2', '', 7]);
    part.name = pick(['get_weather', '', 3]);
    part.input = pick(jsonObjects());
    maybe(part, 'signature', ['sig'], pick, next);
  }
  if (type === 'tool-result') {
    part.callId = pick(['c1', 'c2', 'c9']);
    maybe(part, 'name', ['get_weather', 5], pick, next);
    part.output = pick([
      { type: 'text', text: 'sunny' },
      { type: 'json', value: { temperature: 21 } },
      { type: 'json', value: undefined },
      { type: 'json', value: Number.NaN },
      { type: 'parts', parts: [{ type: 'text', text: 'x' }] },
      { type: 'text', text: 'x', extra: 1 },
      { type: 'html' },
      'sunny',
    ]);
    part.isError = pick([false, true, 'no']);
  }
  if (type === 'media') {
    Object.assign(part, {
      modality: 'image',
      mimeType: 'image/png',
      data: { type: 'uri', uri: 'https://x' },
    });
  }
  if (type === 'structured') part.value = { a: 1 };
  maybe(part, 'metadata', metadataValues(), pick, next);
  if (next() < 0.05) part.extra = 1;
  return part;
}

function randomItem(pick: Pick, next: () => number): unknown {
  const item: Record<string, unknown> = {
    kind: pick(['user', 'assistant', 'tool', 'system', 'developer', 'context', 'robot']),
    parts: Array.from({ length: Math.floor(next() * 3) }, () => randomPart(pick, next)),
  };
  maybe(item, 'id', ['item-1', 5], pick, next);
  maybe(item, 'metadata', metadataValues(), pick, next);
  if (next() < 0.03) item.parts = 'not parts';
  return item;
}

function randomTool(pick: Pick, next: () => number): unknown {
  const tool: Record<string, unknown> = {
    name: pick(['get_weather', 'search', '']),
    inputSchema: pick(jsonObjects()),
  };
  maybe(tool, 'description', ['Looks it up.', 4], pick, next);
  maybe(tool, 'outputSchema', jsonObjects(), pick, next);
  maybe(tool, 'strict', [true, false, 'yes'], pick, next);
  maybe(
    tool,
    'freeform',
    [
      { type: 'text' },
      { type: 'grammar', syntax: 'lark', definition: 'start: "a"' },
      { type: 'grammar', syntax: 'regex', definition: '' },
      { type: 'grammar', syntax: 'pcre', definition: 'a' },
      { type: 'grammar', syntax: 'lark' },
      { type: 'text', extra: 1 },
      { type: 'grammar', syntax: 'regex', definition: 'a', extra: 1 },
      { type: 'other' },
      'text',
      null,
      absent,
    ],
    pick,
    next,
  );
  if (next() < 0.03) tool.strict = true;
  return tool;
}

/** A random request: mostly the everyday shape, often with one thing zod refuses or the fast path leaves alone. */
function randomRequest(next: () => number): unknown {
  // Mostly the first (valid) choice, so that many whole requests stay valid; otherwise any.
  const pick: Pick = (list) =>
    (next() < 0.8 ? list[0] : list[Math.floor(next() * list.length)]) as (typeof list)[number];
  const request: Record<string, unknown> = {
    model: pick(['gpt-5', 'anthropic:claude-sonnet-4-5', 'gemini-3-flash-preview', ' padded ', '', 5]),
    transcript: Array.from({ length: Math.floor(next() * 4) }, () => randomItem(pick, next)),
    maxOutputTokens: pick([1, 8192, 8192, 0, -1, 1.5, 2 ** 53, '5', absent]),
  };
  if (request.maxOutputTokens === absent) delete request.maxOutputTokens;
  maybe(request, 'requestId', ['01HZY', ''], pick, next);
  maybe(
    request,
    'tools',
    [[randomTool(pick, next)], [randomTool(pick, next), randomTool(pick, next)], [], 'tools', undefined],
    pick,
    next,
  );
  maybe(
    request,
    'toolChoice',
    ['auto', 'none', 'required', 'any', { type: 'tool', name: 'search' }, { type: 'tool' }],
    pick,
    next,
  );
  maybe(request, 'parallelToolCalls', [true, false, 'yes'], pick, next);
  maybe(request, 'stopSequences', [['END'], [], [1], 'END'], pick, next);
  maybe(
    request,
    'temperature',
    [0, 0.7, 2, 2.5, -0.1, Number.NaN, Number.POSITIVE_INFINITY, '1'],
    pick,
    next,
  );
  maybe(request, 'topP', [0, 0.5, 1, 1.5], pick, next);
  maybe(request, 'topK', [1, 40, 0, 1.5, 2 ** 60], pick, next);
  maybe(
    request,
    'reasoning',
    [
      { effort: 'low' },
      { effort: 'none' },
      { effort: 'xhigh' },
      { effort: 'max' },
      { budgetTokens: 0 },
      { budgetTokens: -1 },
      { includeThoughts: 'x' },
      { effort: 'low', thinking: false },
      { thinking: 'no' },
      { extra: 1 },
      {},
    ],
    pick,
    next,
  );
  if (next() < 0.05) request.cache = { ttl: '5m' };
  if (next() < 0.03) request.maxTokens = 5;
  if (next() < 0.03) request.temperature = undefined;
  return request;
}

describe('plainRequest against zod', () => {
  it('never takes a request zod refuses, and gives exactly what zod gives (keys in order) whenever it takes one', () => {
    const next = seededRandom(20261126);
    let taken = 0;
    let refusedByZod = 0;
    let leftToZod = 0;
    for (let round = 0; round < 6000; round++) {
      const input = randomRequest(next);
      const zod = parseWithSchema(requestSchema, input);
      const fast = plainRequest(input);
      if (!zod.ok) refusedByZod++;
      if (fast === undefined) {
        if (zod.ok) leftToZod++;
        continue;
      }
      taken++;
      expect(zod.ok, JSON.stringify(input)).toBe(true);
      if (!zod.ok) continue;
      expect(fast).toStrictEqual(zod.value);
      expect(JSON.stringify(fast)).toBe(JSON.stringify(zod.value));
    }
    // The generator reaches every side: taken, refused, and valid but left to zod.
    expect(taken).toBeGreaterThan(1000);
    expect(refusedByZod).toBeGreaterThan(3000);
    expect(leftToZod).toBeGreaterThan(150);
  });

  it('the front door’s request too: the model name rule and an optional output limit, to the same result as zod', () => {
    const next = seededRandom(20261127);
    const names = ['gpt-5', ' padded ', '', '   ', 'gpt-*', 'a\u0007b', 'x'.repeat(513), 'x'.repeat(512), 5];
    let taken = 0;
    let refusedByZod = 0;
    for (let round = 0; round < 4000; round++) {
      const input = randomRequest(next) as Record<string, unknown>;
      if (next() < 0.5) input.model = names[Math.floor(next() * names.length)];
      if (next() < 0.4) delete input.maxOutputTokens;
      const zod = parseWithSchema(routeRequestSchema, input);
      const fast = plainRequest(input, isModelName);
      if (!zod.ok) refusedByZod++;
      if (fast === undefined) continue;
      taken++;
      expect(zod.ok, JSON.stringify(input)).toBe(true);
      if (!zod.ok) continue;
      expect(fast).toStrictEqual(zod.value);
      expect(JSON.stringify(fast)).toBe(JSON.stringify(zod.value));
    }
    expect(taken).toBeGreaterThan(500);
    expect(refusedByZod).toBeGreaterThan(1500);
  });

  it('call options: accepted exactly when zod accepts them', () => {
    const next = seededRandom(20261128);
    const pick: Pick = (list) => list[Math.floor(next() * list.length)] as (typeof list)[number];
    const values: Record<string, unknown[]> = {
      signal: [new AbortController().signal, undefined, {}, 'signal'],
      session: [createSession(), undefined, { id: 's' }, { id: 1, state: new Map() }, null],
      onRetry: [() => {}, undefined, 'retry'],
      retryGate: [{ allow: () => true }, undefined, { allow: 1 }, null],
      headers: [undefined, { 'x-a': 'b' }, { 'x-a': 1 }, 'h'],
      extra: [1, undefined],
    };
    let accepted = 0;
    for (let round = 0; round < 2000; round++) {
      const options: Record<string, unknown> = {};
      for (const [key, choices] of Object.entries(values)) if (next() < 0.5) options[key] = pick(choices);
      const input = next() < 0.05 ? pick([null, 5, [], 'options']) : options;
      const ok = validateCallOptions(input).ok;
      expect(ok, String(Object.keys(options))).toBe(callOptionsSchema.safeParse(input).success);
      if (ok) accepted++;
    }
    expect(accepted).toBeGreaterThan(200);
  });

  it('copies what zod copies and keeps the caller’s JSON values as they are', () => {
    const properties = { city: { type: 'string' } };
    const input = {
      model: 'gpt-5',
      transcript: [{ kind: 'user', parts: [{ type: 'text', text: 'hi' }] }],
      tools: [{ name: 'get_weather', inputSchema: { type: 'object', properties } }],
      maxOutputTokens: 100,
    };
    const fast = plainRequest(input) as CanonicalRequest;
    expect(fast).not.toBe(input);
    expect(fast.transcript).not.toBe(input.transcript);
    expect(fast.transcript[0]).not.toBe(input.transcript[0]);
    expect(fast.transcript[0]!.parts[0]).not.toBe(input.transcript[0]!.parts[0]);
    expect(fast.tools![0]!.inputSchema).not.toBe(input.tools[0]!.inputSchema);
    expect(fast.tools![0]!.inputSchema.properties).toBe(properties);
  });

  it.each([
    ['an unknown field', { maxTokens: 5 }],
    ['a field set to undefined', { temperature: undefined }],
    ['a model with spaces around it (zod trims it)', { model: ' gpt-5 ' }],
    [
      'a media part',
      {
        transcript: [
          {
            kind: 'user',
            parts: [
              {
                type: 'media',
                modality: 'image',
                mimeType: 'image/png',
                data: { type: 'uri', uri: 'https://x' },
              },
            ],
          },
        ],
      },
    ],
    ['a cache setting', { cache: { ttl: '5m' } }],
    ['an output schema', { outputSchema: { schema: { type: 'object' } } }],
  ])('leaves %s to zod', (_name, change) => {
    const input = { model: 'gpt-5', transcript: [], maxOutputTokens: 10, ...change };
    expect(plainRequest(input)).toBeUndefined();
  });

  it('reads each member once: a getter that answers differently the second time cannot slip past', () => {
    let kindReads = 0;
    const item = { parts: [{ type: 'text', text: 'hi' }] } as Record<string, unknown>;
    Object.defineProperty(item, 'kind', { enumerable: true, get: () => (kindReads++ === 0 ? 'user' : 42) });
    const fast = plainRequest({ model: 'gpt-5', transcript: [item], maxOutputTokens: 10 });
    expect(fast === undefined || (fast.transcript[0] as { kind: unknown }).kind === 'user').toBe(true);
    let errorReads = 0;
    const result = { type: 'tool-result', callId: 'c1', output: { type: 'text', text: 'ok' } } as Record<
      string,
      unknown
    >;
    Object.defineProperty(result, 'isError', {
      enumerable: true,
      get: () => (errorReads++ === 0 ? false : 'nope'),
    });
    const withResult = plainRequest({
      model: 'gpt-5',
      transcript: [
        { kind: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'f', input: {} }] },
        { kind: 'tool', parts: [result] },
      ],
      maxOutputTokens: 10,
    });
    const part = withResult?.transcript[1]?.parts[0] as { isError?: unknown } | undefined;
    expect(part === undefined || part.isError === false).toBe(true);
  });

  it('leaves a request built by a class to zod', () => {
    class Request {
      model = 'gpt-5';
      transcript = [];
      maxOutputTokens = 10;
    }
    expect(plainRequest(new Request())).toBeUndefined();
  });

  it('validateRequest still checks the tool pairing of a request the fast path takes', () => {
    const input = {
      model: 'gpt-5',
      transcript: [
        {
          kind: 'tool',
          parts: [{ type: 'tool-result', callId: 'c1', output: { type: 'text', text: 'x' }, isError: false }],
        },
      ],
      maxOutputTokens: 10,
    };
    expect(plainRequest(input)).toBeDefined();
    expect(validateRequest(input)).toMatchObject({ ok: false, issues: [{ path: 'transcript[0].parts[0]' }] });
  });
});
