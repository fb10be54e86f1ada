import { describe, expect, it } from 'vitest';
import { assertStreamInvariants } from '../testing/invariants.ts';
import { accumulateResponse } from './accumulator.ts';
import type { StreamEvent } from './events.ts';
import type { RequestId, ToolCallId } from './ids.ts';
import { StreamBuilder } from './stream-builder.ts';

function createBuilder() {
  const events: StreamEvent[] = [];
  const builder = new StreamBuilder(
    { requestId: 'req' as RequestId, provider: 'test', model: 'test:model', startedAt: performance.now() },
    (event) => events.push(event),
  );
  return { events, builder };
}

describe('StreamBuilder', () => {
  it('rounds fractional token counts and drops negative and non-finite ones as absent', () => {
    const { builder } = createBuilder();
    builder.usage({ input: 4, output: 3 });
    builder.usage({ input: 2.5, output: Number.NaN, cacheRead: -1, cacheWrite: Infinity, reasoning: 0.4 });
    expect(builder.finish().usage).toEqual({
      input: 3,
      cacheRead: 0,
      cacheWrite: 0,
      output: 3,
      reasoning: 0,
    });
  });

  it('refuses a tool call without a name, before emitting anything for it', () => {
    const { events, builder } = createBuilder();
    builder.text('t', 'a');
    expect(() => builder.toolStart('c', 'call_1' as ToolCallId, '')).toThrow('tool call without a name');
    expect(events.some((event) => event.type === 'tool-call-start')).toBe(false);
    expect(builder.finish('error').content).toMatchObject([{ type: 'text', text: 'a' }]);
  });

  it('emits message-start once even when the provider repeats it', () => {
    const { events, builder } = createBuilder();
    builder.start({ responseId: 'a' });
    builder.start({ responseId: 'b' });
    builder.finish();
    expect(events.filter((event) => event.type === 'message-start')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'finish', response: { responseId: 'a' } });
  });

  it('passes raw tool-input fragments through and parses the final input once', () => {
    const { events, builder } = createBuilder();
    builder.toolStart(0, 'tu_1' as ToolCallId, 'search');
    for (const fragment of ['{"q', 'uery": "a', 'b"}']) builder.toolDelta(0, fragment);
    builder.end(0);
    builder.finish();
    expect(events.filter((event) => event.type === 'tool-call-delta').map((event) => event.delta)).toEqual([
      '{"q',
      'uery": "a',
      'b"}',
    ]);
    expect(events.find((event) => event.type === 'tool-call-end')).toMatchObject({ input: { query: 'ab' } });
  });

  it('abort mid tool-call ends it with whatever parses and finishes cancelled', () => {
    const { events, builder } = createBuilder();
    builder.text(0, 'partial answer');
    builder.toolStart(1, 'tu_1' as ToolCallId, 'search');
    builder.toolDelta(1, '{"query": "abc", "limit": 1');
    const response = builder.finish('cancelled');
    assertStreamInvariants(events);
    expect(response.finishReason).toBe('cancelled');
    expect(response.content).toEqual([
      { type: 'text', text: 'partial answer' },
      {
        type: 'tool-call',
        id: 'tu_1',
        name: 'search',
        input: { query: 'abc', limit: 1 },
        provider: 'test',
        incomplete: true,
        metadata: { 'switchyard.raw_input': '{"query": "abc", "limit": 1' },
      },
    ]);
    expect(events.find((event) => event.type === 'tool-call-end')).toMatchObject({ incomplete: true });
  });

  it('an interrupted tool call with nothing parseable gets {}', () => {
    const { events, builder } = createBuilder();
    builder.toolStart(0, 'tu_1' as ToolCallId, 'search');
    builder.toolDelta(0, '{"que');
    builder.finish('error');
    expect(events.find((event) => event.type === 'tool-call-end')).toMatchObject({ input: {} });
  });

  it('keeps an unparseable final tool input as raw metadata instead of losing it', () => {
    const { events, builder } = createBuilder();
    builder.toolStart(0, 'tu_1' as ToolCallId, 'search');
    builder.toolDelta(0, '{"a": tru}');
    builder.end(0);
    builder.finish();
    expect(events.find((event) => event.type === 'tool-call-end')).toMatchObject({
      input: {},
      metadata: { 'switchyard.raw_input': '{"a": tru}' },
    });
  });

  it('finish carries the same response the accumulator builds from the events', async () => {
    const { events, builder } = createBuilder();
    builder.reasoning('r', 'hmm');
    builder.end('r', { signature: 'sig-1' });
    builder.text('t', 'a');
    builder.text('t', 'b');
    builder.usage({ input: 1, output: 2 });
    builder.usage({ output: 4, reasoning: 1 });
    builder.setFinish('completed', 'end_turn');
    const response = builder.finish();
    assertStreamInvariants(events);
    expect(await accumulateResponse(events)).toEqual(response);
    expect(response.usage).toEqual({ input: 1, cacheRead: 0, cacheWrite: 0, output: 4, reasoning: 1 });
    expect(response.rawFinishReason).toBe('end_turn');
    expect(response.content[0]).toEqual({
      type: 'reasoning',
      text: 'hmm',
      signature: 'sig-1',
      provider: 'test',
    });
  });

  it('a second finish() returns the same response without emitting again', () => {
    const { events, builder } = createBuilder();
    const first = builder.finish();
    const second = builder.finish('error');
    expect(second.finishReason).toBe(first.finishReason);
    expect(events.filter((event) => event.type === 'finish')).toHaveLength(1);
  });
});

describe('tool inputs with __proto__ keys', () => {
  it('removes them at any depth, keeps the arguments as sent as raw input and marks the call incomplete', () => {
    const { builder, events } = createBuilder();
    builder.toolStart('k', 'call_1' as ToolCallId, 'lookup');
    builder.toolDelta('k', '{"__proto__":{"polluted":true},"a":1,"list":[{"__proto__":{"x":1},"b":2}]}');
    builder.setFinish('tool-call');
    const response = builder.finish();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    assertStreamInvariants(events);
    const call = response.content[0] as {
      input: Record<string, unknown>;
      incomplete?: boolean;
      metadata?: Record<string, unknown>;
    };
    expect(call.input).toEqual({ a: 1, list: [{ b: 2 }] });
    expect(Object.hasOwn(call.input, '__proto__')).toBe(false);
    expect(Object.hasOwn((call.input.list as object[])[0] as object, '__proto__')).toBe(false);
    expect(call.incomplete).toBe(true);
    expect(call.metadata?.['switchyard.raw_input']).toContain('"__proto__":{"polluted":true}');
  });

  it('keeps the model’s own text as raw input, digits past a double’s precision included', () => {
    const { builder } = createBuilder();
    builder.toolStart('k', 'call_1' as ToolCallId, 'lookup');
    builder.toolDelta('k', '{"__proto__":{},"id":1234567890123456789}');
    const call = builder.finish().content[0] as { metadata?: Record<string, unknown> };
    expect(call.metadata?.['switchyard.raw_input']).toBe('{"__proto__":{},"id":1234567890123456789}');
  });

  it('leaves inputs without them untouched (no raw copy, not incomplete)', () => {
    const { builder } = createBuilder();
    builder.toolStart('k', 'call_1' as ToolCallId, 'lookup');
    builder.toolDelta('k', '{"proto":1,"constructor":"x"}');
    const call = builder.finish().content[0] as { input: unknown; incomplete?: boolean; metadata?: unknown };
    expect(call).toMatchObject({ input: { proto: 1, constructor: 'x' } });
    expect(call.incomplete).toBeUndefined();
    expect(call.metadata).toBeUndefined();
  });
});

describe('StreamBuilder.holdText', () => {
  it('holds each text part and emits the filtered whole as one delta at its end (also when closed early)', () => {
    const { events, builder } = createBuilder();
    builder.holdText((text) => text.toUpperCase());
    builder.text('a', 'ab');
    builder.text('a', 'cd');
    expect(events.map((event) => event.type)).toEqual(['message-start', 'text-start']);
    builder.end('a');
    builder.text('b', 'ef');
    const response = builder.finish('error');
    assertStreamInvariants(events);
    const deltas = events.filter((event) => event.type === 'text-delta').map((event) => event.delta);
    expect(deltas).toEqual(['ABCD', 'EF']);
    expect(response.content).toMatchObject([
      { type: 'text', text: 'ABCD' },
      { type: 'text', text: 'EF' },
    ]);
  });

  it('a filter that throws leaves the held text as received: nothing lost, every part ended', () => {
    const { events, builder } = createBuilder();
    builder.holdText(() => {
      throw new RangeError('Maximum call stack size exceeded');
    });
    builder.holdToolArguments(() => () => {
      throw new RangeError('Maximum call stack size exceeded');
    });
    builder.text('a', 'as ');
    builder.text('a', 'received');
    builder.end('a');
    builder.toolStart(0, 'call_1' as ToolCallId, 'any');
    builder.toolDelta(0, '{"a":1}');
    builder.end(0);
    const response = builder.finish('completed');
    assertStreamInvariants(events);
    expect(response.content).toMatchObject([
      { type: 'text', text: 'as received' },
      { type: 'tool-call', input: { a: 1 } },
    ]);
  });
});

describe('StreamBuilder.holdToolArguments', () => {
  it("holds the arguments of the named tool's calls and emits the filtered whole as one delta; others stream", () => {
    const { events, builder } = createBuilder();
    builder.holdToolArguments((name) =>
      name === 'held' ? (text) => text.replace(',"b":null', '') : undefined,
    );
    builder.toolStart(0, 'call_1' as ToolCallId, 'held');
    builder.toolDelta(0, '{"a":1,');
    builder.toolDelta(0, '"b":null}');
    expect(events.map((event) => event.type)).toEqual(['message-start', 'tool-call-start']);
    builder.toolStart(1, 'call_2' as ToolCallId, 'free');
    builder.toolDelta(1, '{"b":');
    builder.toolDelta(1, 'null}');
    const response = builder.finish();
    assertStreamInvariants(events);
    const deltas = events.flatMap((event) => (event.type === 'tool-call-delta' ? [event.delta] : []));
    expect(deltas).toEqual(['{"a":1}', '{"b":', 'null}']);
    expect(response.content).toMatchObject([
      { type: 'tool-call', name: 'held', input: { a: 1 } },
      { type: 'tool-call', name: 'free', input: { b: null } },
    ]);
    expect(response.content.map((part) => (part.type === 'tool-call' ? part.input : undefined))).toEqual([
      { a: 1 },
      { b: null },
    ]);
  });
});
