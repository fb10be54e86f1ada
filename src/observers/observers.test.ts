import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  BasicTracerProvider,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userText } from '../core/transcript.ts';
import type { Switchyard } from '../switchyard.ts';
import { anthropicError, type Emulator } from '../testing/emulator/index.ts';
import { createJsonLinesReporter } from './jsonl.ts';
import { createOpenTelemetryObserver } from './otel.ts';
import type { CallEvent } from './types.ts';
import { startEmulatedSwitchyard } from '../../test/support/emulated.ts';

let emulator: Emulator;
let sy: Switchyard;
let close: () => Promise<void>;
const events: CallEvent[] = [];
const lines: string[] = [];
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(async () => {
  ({
    emulator,
    switchyard: sy,
    close,
  } = await startEmulatedSwitchyard({
    observers: [
      { onEvent: (event) => events.push(event) },
      createJsonLinesReporter({ write: (line) => lines.push(line) }),
      createOpenTelemetryObserver({ tracer: provider.getTracer('test') }),
      {
        onEvent: () => {
          throw new Error('a broken observer');
        },
      },
    ],
    adapters: { anthropic: { type: 'anthropic', max_retries: 1 }, openai: 'openai' },
    apiKey: 'test-key-observers',
    config: {
      models: { 'anthropic:claude-sonnet-4-5': { aliases: ['primary'], fallbacks: ['openai:gpt-4.1-mini'] } },
    },
  }));
});
afterAll(() => close());

describe('observers', () => {
  it('started, retried, failed (with fallback), started, first chunk, completed — as events, JSON lines and spans', async () => {
    emulator.enqueue(anthropicError(529, 'overloaded_error', 'Overloaded', { 'retry-after': '0' }));
    emulator.enqueue(anthropicError(529, 'overloaded_error', 'Overloaded', { 'retry-after': '0' }));
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'hello' }],
      usage: { input: 50, cacheRead: 10, cacheWrite: 5, output: 7 },
    });
    await sy.stream({ model: 'primary', transcript: [userText('Hi')] });

    expect(events.map((event) => `${event.type}:${event.provider}:${event.retryCount}`)).toEqual([
      'call-started:anthropic:0',
      'call-retried:anthropic:1',
      'call-failed:anthropic:1',
      'call-started:openai:0',
      'call-first-chunk:openai:0',
      'call-completed:openai:0',
    ]);
    // Overloaded (529) is the provider's capacity: server_error on every adapter, and routing falls back.
    expect(events[2]).toMatchObject({ errorClass: 'server_error', fallback: true });

    const parsed = lines.map((line) => JSON.parse(line));
    expect(parsed.map((line) => line.type)).toEqual(events.map((event) => event.type));
    expect(parsed[5]).toMatchObject({
      finishReason: 'completed',
      usage: { input: 55, cacheRead: 10, cacheWrite: 0, cost: { currency: 'USD' } },
    });
    expect(lines.join('')).not.toContain('hello');

    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.name)).toEqual([
      'chat anthropic:claude-sonnet-4-5',
      'chat openai:gpt-4.1-mini',
    ]);
    const [failed, served] = spans;
    expect(failed?.attributes).toMatchObject({
      'error.type': 'server_error',
      'gen_ai.provider.name': 'anthropic',
    });
    expect(failed?.status.code).toBe(2);
    expect(failed?.events.map((event) => event.name)).toContain('retry');
    expect(served?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'openai:gpt-4.1-mini',
      'gen_ai.usage.input_tokens': 65,
      'gen_ai.usage.output_tokens': 7,
      'gen_ai.usage.cache_read.input_tokens': 10,
      'gen_ai.usage.cache_creation.input_tokens': 0,
      'switchyard.cost.currency': 'USD',
    });
    expect(served?.attributes['gen_ai.response.model']).toMatch(/^openai:gpt-4\.1-mini/);
    expect(served?.attributes['switchyard.time_to_first_chunk_ms']).toBeGreaterThanOrEqual(0);
    expect(served?.attributes['switchyard.cost.amount']).toBeGreaterThan(0);
  });
});
