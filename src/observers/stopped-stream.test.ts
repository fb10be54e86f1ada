/** Observers of a stream its reader stops (`break` out of `for await`): the call ends for them once. */
import type { Tracer } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userText } from '../core/transcript.ts';
import type { Switchyard } from '../switchyard.ts';
import type { Emulator } from '../testing/emulator/index.ts';
import { createOpenTelemetryObserver } from './otel.ts';
import type { CallEvent, CallFailedEvent } from './types.ts';
import { startEmulatedSwitchyard } from '../../test/support/emulated.ts';

let emulator: Emulator;
let sy: Switchyard;
let close: () => Promise<void>;
const events: CallEvent[] = [];
/** Spans the OTel observer started and not yet ended: what its span map still holds. */
const open = new Set<object>();
const attributes = new Map<object, Record<string, unknown>>();
const tracer = {
  startSpan() {
    const span = {
      setAttribute: (key: string, value: unknown) => void (attributes.get(span)![key] = value),
      setAttributes: (values: Record<string, unknown>) => void Object.assign(attributes.get(span)!, values),
      addEvent() {},
      recordException() {},
      setStatus() {},
      end: () => void open.delete(span),
    };
    open.add(span);
    attributes.set(span, {});
    return span;
  },
} as unknown as Tracer;

beforeAll(async () => {
  ({
    emulator,
    switchyard: sy,
    close,
  } = await startEmulatedSwitchyard({
    observers: [{ onEvent: (event) => events.push(event) }, createOpenTelemetryObserver({ tracer })],
    adapters: { anthropic: 'anthropic' },
    apiKey: 'test-key-observers',
    config: { models: { 'anthropic:claude-sonnet-4-5': { aliases: ['primary'] } } },
  }));
});
afterAll(() => close());

const until = async (check: () => boolean) => {
  for (let waited = 0; !check() && waited < 2000; waited += 10) await new Promise((r) => setTimeout(r, 10));
};

describe('a stream stopped by its reader', () => {
  it('ends for observers once, as call-failed (cancelled) with the usage so far: no OTel span left open', async () => {
    const streams = 5;
    for (let index = 0; index < streams; index++) {
      emulator.enqueue({
        type: 'scripted',
        content: [{ type: 'text', text: 'a long answer that the reader abandons early' }],
        chunkSize: 3,
        usage: { input: 40, output: 12 },
        fault: { dripMs: 20 },
      });
      const turn = sy.stream({ model: 'primary', transcript: [userText('Hi')] });
      for await (const event of turn) if (event.type === 'text-delta') break;
      await expect(turn.result()).rejects.toMatchObject({ errorClass: 'cancelled' });
    }
    await until(() => open.size === 0);
    expect(open.size).toBe(0);
    expect(attributes.size).toBe(streams);
    const counts: Record<string, number> = {};
    for (const event of events) counts[event.type] = (counts[event.type] ?? 0) + 1;
    expect(counts).toEqual({ 'call-started': streams, 'call-first-chunk': streams, 'call-failed': streams });
    const failed = events.filter((event): event is CallFailedEvent => event.type === 'call-failed');
    for (const event of failed) {
      expect(event).toMatchObject({ errorClass: 'cancelled', fallback: false });
      // What arrived before the stop (the input tokens of `message_start`), priced.
      expect(event.response).toMatchObject({ finishReason: 'cancelled', usage: { input: 40 } });
      expect(event.response?.usage.cost?.amount).toBeGreaterThan(0);
    }
    for (const values of attributes.values())
      expect(values).toMatchObject({
        'error.type': 'cancelled',
        'gen_ai.usage.input_tokens': 40,
        'gen_ai.response.finish_reasons': ['cancelled'],
      });
  });
});
