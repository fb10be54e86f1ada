import { describe, expect, it } from 'vitest';
import { createSession } from '../core/adapter.ts';
import type { Item } from '../core/transcript.ts';
import { createScriptedAdapter } from '../testing/scripted-adapter.ts';
import { createAgent } from './agent.ts';
import { estimateTranscriptTokens, type StrategyContext } from './compaction.ts';
import { dropOldReasoning, keepLastTurns, renderForSummary, summarizeOldTurns } from './strategies.ts';
import { call, drain, expectConsistent, text } from './test-support.ts';

/** system, context, then `turns` rounds of user → assistant(reasoning, call) → tool. */
function longTranscript(turns: number): Item[] {
  const items: Item[] = [
    { kind: 'system', parts: [text('You are a coding agent.')] },
    { kind: 'context', parts: [text('AGENTS.md: use tabs.')] },
    { kind: 'user', parts: [text('Fix the build.')] },
  ];
  for (let turn = 1; turn <= turns; turn++) {
    items.push(
      {
        kind: 'assistant',
        parts: [
          {
            type: 'reasoning',
            text: `thinking ${turn} `.repeat(20),
            signature: `sig${turn}`,
            provider: 'anthropic',
          },
          call(`c${turn}`, 'run', { command: `step ${turn}` }),
        ],
      },
      {
        kind: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId: `c${turn}` as never,
            output: { type: 'text', text: `output ${turn}` },
            isError: false,
          },
        ],
      },
    );
  }
  return items;
}

const context: StrategyContext = {
  client: createScriptedAdapter([]),
  model: 'scripted:m',
  clientFor: () => createScriptedAdapter([]),
  signal: new AbortController().signal,
  session: createSession(),
};

describe('compaction strategies', () => {
  it('dropOldReasoning keeps reasoning only in the last turn', async () => {
    const compacted = await dropOldReasoning().apply(longTranscript(4), context);
    const reasoning = compacted.flatMap((item, index) =>
      item.parts.filter((part) => part.type === 'reasoning').map(() => index),
    );
    expect(reasoning).toHaveLength(1);
    expect(compacted.at(-2)?.parts[0]?.type).toBe('reasoning');
    expect(compacted).toHaveLength(longTranscript(4).length);
    expectConsistent(compacted);
  });

  it('keepLastTurns keeps system, context and the task, the last N turns whole, and says what it left out', async () => {
    const compacted = await keepLastTurns(2).apply(longTranscript(5), context);
    expect(compacted.map((item) => item.kind)).toEqual([
      'system',
      'context',
      'user',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
    ]);
    expect(compacted[3]).toMatchObject({ metadata: { 'switchyard.compacted': true } });
    expect((compacted[3]!.parts[0] as { text: string }).text).toContain(
      '6 earlier conversation items were removed',
    );
    expect(compacted[4]?.parts[1]).toMatchObject({ id: 'c4' });
    expectConsistent(compacted);
  });

  it('keepLastTurns leaves a transcript with few turns alone', async () => {
    const transcript = longTranscript(2);
    expect(await keepLastTurns(3).apply(transcript, context)).toEqual(transcript);
  });

  it('summarizeOldTurns asks the configured model for a summary of the rendered older turns', async () => {
    const summarizer = createScriptedAdapter([{ content: [text('Ran steps 1-3; all passed.')] }], {
      name: 'cheap',
    });
    const strategy = summarizeOldTurns({ keepTurns: 1, model: 'cheap:small', client: summarizer });
    const compacted = await strategy.apply(longTranscript(4), context);
    expect(summarizer.requests[0]?.model).toBe('cheap:small');
    const rendered = (summarizer.requests[0]!.transcript[1]!.parts[0] as { text: string }).text;
    expect(rendered).toContain('[called run {"command":"step 1"}]');
    expect(rendered).toContain('[tool result: output 3]');
    expect(rendered).not.toContain('thinking');
    expect(compacted.map((item) => item.kind)).toEqual([
      'system',
      'context',
      'user',
      'user',
      'assistant',
      'tool',
    ]);
    expect(compacted[3]).toEqual({
      kind: 'user',
      parts: [text('Summary of the earlier conversation:\nRan steps 1-3; all passed.')],
      metadata: { 'switchyard.summary': true },
    });
    expectConsistent(compacted);
  });

  it('summarizeOldTurns keeps the transcript when the summary comes back empty or cut', async () => {
    const transcript = longTranscript(4);
    const empty = createScriptedAdapter([{ content: [text('  ')] }], { name: 'cheap' });
    expect(await summarizeOldTurns({ keepTurns: 1, client: empty }).apply(transcript, context)).toEqual(
      transcript,
    );
    const cut = createScriptedAdapter([{ content: [text('Ran st')], finishReason: 'max-tokens' }], {
      name: 'cheap',
    });
    expect(await summarizeOldTurns({ keepTurns: 1, client: cut }).apply(transcript, context)).toEqual(
      transcript,
    );
  });

  it('renders every part kind for the summary', () => {
    expect(renderForSummary([{ kind: 'user', parts: [text('hi'), { type: 'structured', value: 1 }] }])).toBe(
      'user: hi\n[structured]',
    );
  });
});

describe('compaction in the loop', () => {
  it('runs before a turn once the transcript nears the context window, and the run continues', async () => {
    const adapter = createScriptedAdapter([{ content: [text('continuing')] }]);
    const start = longTranscript(6);
    const before = estimateTranscriptTokens(start);
    const agent = createAgent({
      client: adapter,
      model: 'scripted:m',
      compaction: {
        contextWindow: before,
        threshold: 0.9,
        strategies: [dropOldReasoning(), keepLastTurns(2)],
      },
    });
    const { events, result } = await drain(agent.run([...start, { kind: 'user', parts: [text('Go on.')] }]));
    const compactions = events.filter((event) => event.type === 'compaction');
    expect(compactions.map((event) => (event as { strategy: string }).strategy)).toEqual([
      'drop-old-reasoning',
    ]);
    expect(result.outcome).toBe('completed');
    const sent = adapter.requests[0]!.transcript;
    expect(sent.filter((item) => item.parts.some((part) => part.type === 'reasoning'))).toHaveLength(1);
    expectConsistent(result.transcript);
  });

  it('does nothing below the threshold', async () => {
    const adapter = createScriptedAdapter([{ content: [text('ok')] }]);
    const { events } = await drain(
      createAgent({
        client: adapter,
        model: 'scripted:m',
        compaction: { contextWindow: 1_000_000, strategies: [keepLastTurns(1)] },
      }).run(longTranscript(3)),
    );
    expect(events.some((event) => event.type === 'compaction')).toBe(false);
  });
});
