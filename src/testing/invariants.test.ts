import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../core/events.ts';
import type { RequestId, ToolCallId } from '../core/ids.ts';
import { StreamBuilder } from '../core/stream-builder.ts';
import { assertStreamInvariants, findStreamViolations, StreamInvariantError } from './invariants.ts';

const requestId = 'req' as RequestId;
const id = (value: string) => value as ToolCallId;

/** A valid stream: text, reasoning, a tool call, usage, finish — built by the real builder. */
function validStream(): StreamEvent[] {
  const events: StreamEvent[] = [];
  const builder = new StreamBuilder({ requestId, provider: 'test', model: 'test:m', startedAt: 0 }, (event) =>
    events.push(event),
  );
  builder.start({ responseId: 'r1' });
  builder.reasoning('r', 'think');
  builder.end('r', { signature: 'sig' });
  builder.text('t', 'Hel');
  builder.text('t', 'lo');
  builder.end('t');
  builder.toolStart('c', id('call_1'), 'read');
  builder.toolDelta('c', '{"pa');
  builder.toolDelta('c', 'th":"a"}');
  builder.end('c');
  builder.usage({ input: 3, output: 5 });
  builder.setFinish('tool-call', 'tool_use');
  builder.finish();
  return events;
}

function violationsAfter(edit: (events: StreamEvent[]) => StreamEvent[]): string[] {
  return findStreamViolations(edit(validStream()));
}

function indexOfType(events: StreamEvent[], type: StreamEvent['type']): number {
  return events.findIndex((event) => event.type === type);
}

describe('assertStreamInvariants', () => {
  it('accepts a valid stream built by StreamBuilder', () => {
    expect(() => assertStreamInvariants(validStream())).not.toThrow();
  });

  it('flags a finish reason outside the closed set', () => {
    for (const reason of ['length', 'stop', 'end_turn', '']) {
      const events = validStream();
      const last = events.at(-1)!;
      if (last.type !== 'finish') throw new Error('the valid stream ends with finish');
      events[events.length - 1] = {
        ...last,
        response: { ...last.response, finishReason: reason as 'other' },
      };
      expect(findStreamViolations(events)).toEqual([
        `event ${events.length - 1} (finish): finish reason "${reason}" is not one of completed, tool-call, max-tokens, stop-sequence, content-filter, cancelled, error, other`,
      ]);
    }
  });

  it('throws a StreamInvariantError listing the violations', () => {
    const events = validStream().slice(1);
    expect(() => assertStreamInvariants(events)).toThrow(StreamInvariantError);
  });

  const cases: Array<[string, (events: StreamEvent[]) => StreamEvent[], RegExp]> = [
    ['message-start missing', (events) => events.slice(1), /first event must be message-start/],
    ['message-start repeated', (events) => [events[0]!, ...events], /message-start repeated/],
    ['finish missing', (events) => events.slice(0, -1), /no finish event/],
    ['finish twice', (events) => [...events, events.at(-1)!], /finish emitted 2 times|event after finish/],
    [
      'finish not last',
      (events) => [
        ...events.slice(0, -1),
        events.at(-1)!,
        { type: 'usage', usage: { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 } },
      ],
      /event after finish|last event is not finish/,
    ],
    ['a part never ended', (events) => events.filter((event) => event.type !== 'text-end'), /never ended/],
    [
      'a summary part that is not a positive integer',
      (events) => events.map((event) => (event.type === 'reasoning-delta' ? { ...event, part: 0 } : event)),
      /summary part 0 is not a positive integer/,
    ],
    [
      'a part ended twice',
      (events) => {
        const at = indexOfType(events, 'text-end');
        return [...events.slice(0, at + 1), events[at]!, ...events.slice(at + 1)];
      },
      /already ended/,
    ],
    [
      'a delta before its start',
      (events) => {
        const start = indexOfType(events, 'text-start');
        return events.filter((_, position) => position !== start);
      },
      /no text part started/,
    ],
    [
      'indices decreasing',
      (events) => events.map((event) => (event.type === 'tool-call-delta' ? { ...event, index: 0 } : event)),
      /decreases|no tool-call part started/,
    ],
    [
      'a part index reused',
      (events) => events.map((event) => (event.type === 'tool-call-start' ? { ...event, index: 1 } : event)),
      /already used/,
    ],
    [
      'an empty tool-call id',
      (events) =>
        events.map((event) =>
          event.type.startsWith('tool-call') ? ({ ...event, id: '' } as StreamEvent) : event,
        ),
      /empty tool-call id/,
    ],
    [
      'a repeated tool-call id',
      (events) => {
        const start = indexOfType(events, 'tool-call-start');
        const end = indexOfType(events, 'tool-call-end');
        const copy = events.slice(start, end + 1).map((event) => ({ ...event, index: 9 }) as StreamEvent);
        return [...events.slice(0, end + 1), ...copy, ...events.slice(end + 1)];
      },
      /repeated/,
    ],
    [
      'a tool-call delta with another id',
      (events) =>
        events.map((event) => (event.type === 'tool-call-delta' ? { ...event, id: id('other') } : event)),
      /differs from the start/,
    ],
    [
      'a final input that is not an object',
      (events) =>
        events.map((event) =>
          event.type === 'tool-call-end' ? ({ ...event, input: [1, 2] } as unknown as StreamEvent) : event,
        ),
      /not a JSON object/,
    ],
    [
      'negative usage',
      (events) =>
        events.map((event) =>
          event.type === 'usage' ? { ...event, usage: { ...event.usage, output: -1 } } : event,
        ),
      /usage.output is -1/,
    ],
    [
      'invalid usage in the finish response even without a usage event',
      (events) =>
        events
          .filter((event) => event.type !== 'usage')
          .map((event) =>
            event.type === 'finish'
              ? { ...event, response: { ...event.response, usage: { ...event.response.usage, input: -5 } } }
              : event,
          ),
      /response: usage.input is -5/,
    ],
    [
      'reasoning tokens exceeding output tokens',
      (events) =>
        events.map((event) =>
          event.type === 'usage' ? { ...event, usage: { ...event.usage, reasoning: 99, output: 5 } } : event,
        ),
      /usage.reasoning \(99\) exceeds usage.output \(5\)/,
    ],
    [
      'a non-string text delta',
      (events) =>
        events.map((event) =>
          event.type === 'text-delta' ? ({ ...event, delta: 42 } as unknown as StreamEvent) : event,
        ),
      /delta is not a string/,
    ],
    [
      'finish content differs from the deltas',
      (events) =>
        events.map((event) =>
          event.type === 'finish' ? { ...event, response: { ...event.response, content: [] } } : event,
        ),
      /differs from the content the deltas built/,
    ],
  ];

  for (const [name, edit, pattern] of cases) {
    it(`catches: ${name}`, () => {
      const violations = violationsAfter(edit);
      expect(violations.join('\n')).toMatch(pattern);
    });
  }
});

describe('the incomplete marker', () => {
  function cutStream(): StreamEvent[] {
    const events: StreamEvent[] = [];
    const builder = new StreamBuilder(
      { requestId, provider: 'test', model: 'test:m', startedAt: 0 },
      (event) => events.push(event),
    );
    builder.text('t', 'Half an ans');
    builder.toolStart('c', id('call_1'), 'read');
    builder.toolDelta('c', '{"path":"a');
    builder.finish('error');
    return events;
  }

  it('accepts the part the runtime closed, marked on its end event and in finish (the text the call closed is whole)', () => {
    const events = cutStream();
    assertStreamInvariants(events);
    const finish = events.at(-1);
    expect(finish?.type === 'finish' && finish.response.content.map((part) => 'incomplete' in part)).toEqual([
      false,
      true,
    ]);
    expect(events.find((event) => event.type === 'tool-call-end')).toMatchObject({ incomplete: true });
  });

  it('flags a repaired tool input that is not marked', () => {
    const events = cutStream().map((event) => {
      if (event.type !== 'tool-call-end') return event;
      const { incomplete: _incomplete, ...rest } = event;
      return rest;
    });
    expect(findStreamViolations(events)).toContain(
      'event 6 (tool-call-end): a repaired tool input (switchyard.raw_input) is not marked incomplete',
    );
  });

  it('flags a marker that is not true, and an incomplete part in a completed response', () => {
    const notTrue = cutStream().map((event) =>
      event.type === 'tool-call-end' ? ({ ...event, incomplete: false } as unknown as StreamEvent) : event,
    );
    expect(findStreamViolations(notTrue).some((violation) => violation.includes('incomplete is false'))).toBe(
      true,
    );
    const completed = cutStream().map((event) =>
      event.type === 'finish'
        ? { ...event, response: { ...event.response, finishReason: 'completed' as const } }
        : event,
    );
    expect(findStreamViolations(completed)).toContain(
      'finish: finish reason completed, but part 1 (tool-call) is incomplete',
    );
  });
});
