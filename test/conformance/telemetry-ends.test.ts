/**
 * Telemetry (#18 point 10): every span an observer opened ends — also when the reply fails its
 * output schema (complete and stream) — and compaction summary calls count in usage, cost and budget.
 */
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  BasicTracerProvider,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent } from '../../src/agent/agent.ts';
import { summarizeOldTurns } from '../../src/agent/strategies.ts';
import { call, text } from '../../src/agent/test-support.ts';
import type { Item } from '../../src/core/transcript.ts';
import { userText } from '../../src/core/transcript.ts';
import { createOpenTelemetryObserver } from '../../src/observers/otel.ts';
import type { CallEvent } from '../../src/observers/types.ts';
import type { Switchyard } from '../../src/switchyard.ts';
import type { Emulator } from '../../src/testing/emulator/index.ts';
import { createScriptedAdapter } from '../../src/testing/scripted-adapter.ts';
import { startEmulatedSwitchyard } from '../support/emulated.ts';

let emulator: Emulator;
let sy: Switchyard;
let close: () => Promise<void>;
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const events: CallEvent[] = [];
beforeAll(async () => {
  ({
    emulator,
    switchyard: sy,
    close,
  } = await startEmulatedSwitchyard({
    observers: [
      createOpenTelemetryObserver({ tracer: provider.getTracer('t') }),
      { onEvent: (event) => void events.push(event) },
    ],
    adapters: { anthropic: 'anthropic' },
    apiKey: 'telemetry-key-0123',
  }));
});
afterAll(() => close());

const output = z.object({ answer: z.number() });
const notJson = { type: 'scripted' as const, content: [{ type: 'text' as const, text: 'not json at all' }] };

describe('every span ends', () => {
  it('complete(): a reply failing its output schema ends its span with error.type', async () => {
    exporter.reset();
    events.length = 0;
    emulator.enqueue(notJson);
    const error = await sy
      .complete({ model: 'anthropic:claude-sonnet-4-5', transcript: [userText('Hi')], output })
      .catch((caught: unknown) => caught);
    expect((error as Error).name).toBe('StructuredOutputError');
    expect(events.map((event) => event.type)).toEqual(['call-started', 'call-failed']);
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(1);
    expect(spans[0]!.attributes['error.type']).toBeDefined();
  });

  it('stream(): the same', async () => {
    exporter.reset();
    events.length = 0;
    emulator.enqueue(notJson);
    const turn = sy.stream({ model: 'anthropic:claude-sonnet-4-5', transcript: [userText('Hi')], output });
    const error = await Promise.resolve(turn).catch((caught: unknown) => caught);
    expect((error as Error).name).toBe('StructuredOutputError');
    expect(events.map((event) => event.type)).toContain('call-failed');
    expect(exporter.getFinishedSpans()).toHaveLength(1);
  });
});

describe('compaction summary calls count in cost and budget', () => {
  function transcript(): Item[] {
    const items: Item[] = [{ kind: 'user', parts: [text('Fix the build.')] }];
    for (let turn = 1; turn <= 4; turn++) {
      items.push({ kind: 'assistant', parts: [call(`c${turn}`, 'run', { command: `step ${turn}` })] });
      items.push({
        kind: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId: `c${turn}` as never,
            output: { type: 'text', text: `output ${turn} `.repeat(200) },
            isError: false,
          },
        ],
      });
    }
    items.push({ kind: 'user', parts: [text('Go on.')] });
    return items;
  }

  it('the summary usage and cost are in the result; a budget sees them', async () => {
    const summarizer = createScriptedAdapter(
      [{ content: [text('Ran steps 1-4.')], usage: { input: 1000, output: 100 } }],
      { name: 'cheap' },
    );
    const client = createScriptedAdapter([{ content: [text('Done.')], usage: { input: 10, output: 5 } }]);
    const agent = createAgent({
      client,
      model: 'scripted:m',
      cost: (usage) => usage.input + usage.output,
      compaction: {
        contextWindow: 1000,
        threshold: 0.1,
        strategies: [summarizeOldTurns({ keepTurns: 1, model: 'cheap:small', client: summarizer })],
      },
    });
    const result = await agent.run(transcript()).result();
    expect(result.outcome, String(result.error)).toBe('completed');
    expect(result.usage.input).toBe(1010);
    expect(result.usage.output).toBe(105);
    expect(result.cost).toBe(1115);

    const tight = createAgent({
      client: createScriptedAdapter([{ content: [text('Done.')], usage: { input: 10, output: 5 } }]),
      model: 'scripted:m',
      cost: (usage) => usage.input + usage.output,
      budget: { maxCost: 500 },
      compaction: {
        contextWindow: 1000,
        threshold: 0.1,
        strategies: [
          summarizeOldTurns({
            keepTurns: 1,
            model: 'cheap:small',
            client: createScriptedAdapter(
              [{ content: [text('Ran.')], usage: { input: 1000, output: 100 } }],
              { name: 'cheap' },
            ),
          }),
        ],
      },
    });
    const over = await tight.run(transcript()).result();
    expect(over.outcome).toBe('budget_exceeded');
  });
});
