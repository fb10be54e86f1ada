/** Stream parser tests for parallel tool calls: sequential calls stream live, interleaved ones are buffered. */
import { describe, expect, it } from 'vitest';
import { isNetworkError, isRateLimitError } from '../../core/errors/guards.ts';
import type { StreamEvent } from '../../core/events.ts';
import type { RequestId } from '../../core/ids.ts';
import { StreamBuilder } from '../../core/stream-builder.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { openaiQuirks } from './quirks.ts';
import { createStreamParser } from './stream.ts';
import { createTestContext, feedStream, toolCallsOf } from './test-support.ts';

const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini' };

function chunk(delta: object, finish: string | null = null): string {
  return JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
}

/** A chunk carrying tool-call entries `[index, fields]`. */
function calls(...entries: Array<[number, object]>): string {
  return chunk({ tool_calls: entries.map(([index, fields]) => ({ index, ...fields })) });
}

const named = (id: string, name: string, fragment = '') => ({
  id,
  type: 'function',
  function: { name, arguments: fragment },
});
const args = (fragment: string) => ({ function: { arguments: fragment } });

/** The raw deltas of each tool call, by the call's part index. */
function deltasByCall(events: StreamEvent[]): Map<number, string[]> {
  const deltas = new Map<number, string[]>();
  for (const event of events) {
    if (event.type === 'tool-call-start') deltas.set(event.index, []);
    if (event.type === 'tool-call-delta') deltas.get(event.index)?.push(event.delta);
  }
  return deltas;
}

/** Feeds payloads one at a time, returning the event types each one produced. */
function feedStepwise(payloads: string[]): { steps: string[][]; events: StreamEvent[] } {
  const context = createTestContext({ stream: true });
  const events: StreamEvent[] = [];
  const builder = new StreamBuilder(
    { requestId: 'req_test' as RequestId, provider: 'openai', model: 'openai:m', startedAt: 0 },
    (event) => events.push(event),
  );
  const parser = createStreamParser(context, builder, openaiQuirks);
  const steps: string[][] = [];
  for (const payload of payloads) {
    const before = events.length;
    parser.onEvent(undefined, payload);
    steps.push(events.slice(before).map((event) => event.type));
  }
  parser.onEnd();
  builder.finish();
  return { steps, events };
}

describe('stream parser: parallel tool calls', () => {
  it('an id that arrives after the name (the first fragment had none) is that call’s, not a new nameless call', () => {
    const result = feedStream(
      [
        calls([0, { type: 'function', function: { name: 'f', arguments: '{"a":' } }]),
        calls([0, { id: 'call_late', function: { arguments: '1}' } }]),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ],
      openaiQuirks,
      createTestContext({ stream: true }),
    );
    expect(result.error).toBeUndefined();
    assertStreamInvariants(result.events);
    expect(toolCallsOf(result.response)).toEqual([{ name: 'f', input: { a: 1 } }]);
  });

  it('after a late id, another id at the same index is another call', () => {
    const result = feedStream(
      [
        calls([0, { type: 'function', function: { name: 'f', arguments: '' } }]),
        calls([0, { id: 'call_a', function: { arguments: '{"a":1}' } }]),
        calls([0, named('call_b', 'g', '{"b":2}')]),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ],
      openaiQuirks,
      createTestContext({ stream: true }),
    );
    expect(result.error).toBeUndefined();
    expect(toolCallsOf(result.response)).toEqual([
      { name: 'f', input: { a: 1 } },
      { name: 'g', input: { b: 2 } },
    ]);
  });

  it('interleaved parallel tool-call fragments are reassembled, none lost', () => {
    const context = createTestContext({ stream: true });
    const result = feedStream(
      [
        calls([0, named('call_a', 'read', '{"path":')], [1, named('call_b', 'grep', '{"pattern":')]),
        calls([0, args('"a.txt"')], [1, args('"TODO",')]),
        calls([2, named('call_c', 'list', '{"dir":"src"}')]),
        calls([1, args('"limit":3}')]),
        calls([0, args('}')]),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ],
      openaiQuirks,
      context,
    );
    expect(result.error).toBeUndefined();
    assertStreamInvariants(result.events);
    expect(toolCallsOf(result.response)).toEqual([
      { name: 'read', input: { path: 'a.txt' } },
      { name: 'grep', input: { pattern: 'TODO', limit: 3 } },
      { name: 'list', input: { dir: 'src' } },
    ]);
    // Every fragment reaches its call raw and in wire order; nothing is dropped or re-cut.
    expect([...deltasByCall(result.events).values()]).toEqual([
      ['{"path":', '"a.txt"', '}'],
      ['{"pattern":', '"TODO",', '"limit":3}'],
      ['{"dir":"src"}'],
    ]);
    for (const part of result.response.content) expect(part.metadata).toBeUndefined();
    expect(context.warnings).toEqual([]);
    expect(result.response.finishReason).toBe('tool-call');
  });

  it('reassembles calls whose names all come first and whose arguments interleave', () => {
    const result = feedStream(
      [
        calls([0, named('call_a', 'f')], [1, named('call_b', 'g')]),
        calls([1, args('{"b":')]),
        calls([0, args('{"a":')]),
        calls([1, args('2}')]),
        calls([0, args('1}')]),
        chunk({}, 'tool_calls'),
      ],
      openaiQuirks,
    );
    assertStreamInvariants(result.events);
    expect(toolCallsOf(result.response)).toEqual([
      { name: 'f', input: { a: 1 } },
      { name: 'g', input: { b: 2 } },
    ]);
  });

  it('streams the first call live and replays the interleaved one at the finish reason', () => {
    const { steps, events } = feedStepwise([
      calls([0, named('call_a', 'f', '{"a":')], [1, named('call_b', 'g', '{"b":')]),
      calls([0, args('1}')], [1, args('2}')]),
      chunk({}, 'tool_calls'),
    ]);
    expect(steps).toEqual([
      ['message-start', 'tool-call-start', 'tool-call-delta'],
      ['tool-call-delta'],
      ['tool-call-end', 'tool-call-start', 'tool-call-delta', 'tool-call-delta', 'tool-call-end'],
    ]);
    assertStreamInvariants(events);
  });

  it('streams sequential calls live, ending each when the next one starts', () => {
    const { steps, events } = feedStepwise([
      calls([0, named('call_1', 'weather', '{"city":')]),
      calls([0, args('"Paris"}')]),
      calls([1, named('call_2', 'weather', '{"city":')]),
      calls([1, args('"Oslo"}')]),
      chunk({}, 'tool_calls'),
    ]);
    expect(steps).toEqual([
      ['message-start', 'tool-call-start', 'tool-call-delta'],
      ['tool-call-delta'],
      ['tool-call-end', 'tool-call-start', 'tool-call-delta'],
      ['tool-call-delta'],
      ['tool-call-end'],
    ]);
    assertStreamInvariants(events);
  });

  it('fails invalid_stream when a buffered call never got a name, keeping the calls before it', () => {
    const context = createTestContext({ stream: true });
    const result = feedStream(
      [
        calls([0, named('call_a', 'f', '{"a":')], [1, { id: 'call_b', function: { arguments: '{"b":' } }]),
        calls([0, args('1}')], [1, args('2}')]),
        chunk({}, 'tool_calls'),
      ],
      openaiQuirks,
      context,
    );
    expect(String((result.error as Error).message)).toContain('tool call without a name');
    assertStreamInvariants(result.events);
    expect(toolCallsOf(result.response)).toEqual([{ name: 'f', input: { a: 1 } }]);
  });

  it('keeps buffered calls, with whatever parses, when the stream is cut short', () => {
    const result = feedStream(
      [
        calls([0, named('call_a', 'f', '{"a":1,')], [1, named('call_b', 'g', '{"b":"x')]),
        calls([0, args('"c":')]),
      ],
      openaiQuirks,
    );
    expect(isNetworkError(result.error)).toBe(true);
    assertStreamInvariants(result.events);
    expect(toolCallsOf(result.response)).toEqual([
      { name: 'f', input: { a: 1 } },
      { name: 'g', input: { b: 'x' } },
    ]);
  });

  it('keeps buffered calls when an in-band error fails the stream', () => {
    const error = JSON.stringify({ error: { message: 'slow down', code: 'rate_limit_exceeded' } });
    const result = feedStream(
      [calls([0, named('call_a', 'f', '{"a":')], [1, named('call_b', 'g', '{"b":2}')]), error],
      openaiQuirks,
    );
    expect(isRateLimitError(result.error)).toBe(true);
    assertStreamInvariants(result.events);
    expect(toolCallsOf(result.response).map((call) => call.name)).toEqual(['f', 'g']);
    expect(result.response.finishReason).toBe('error');
  });
});
