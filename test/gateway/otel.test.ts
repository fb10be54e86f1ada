/**
 * `gateway.otel: true`: one OpenTelemetry GenAI span per upstream call on the global tracer provider,
 * with no prompt content in its attributes.
 */
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayHarness, startGatewayHarness } from './harness.ts';

const exporter = new InMemorySpanExporter();
let harness: GatewayHarness;

beforeAll(async () => {
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
  harness = await startGatewayHarness({ otel: true });
});
afterAll(async () => {
  await harness?.close();
  trace.disable();
});

describe('gateway.otel', () => {
  it('records one GenAI span per upstream call, without the prompt', async () => {
    harness.emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'Hi there.' }],
      usage: { input: 7, output: 3 },
    });
    const response = await fetch(`${harness.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'up-anthropic', messages: [{ role: 'user', content: 'secret prompt' }] }),
    });
    expect(response.status).toBe(200);
    await response.json();
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(1);
    const span = spans[0]!;
    expect(span.name).toBe('chat anthropic:claude-sonnet-4-5');
    expect(span.attributes['gen_ai.provider.name']).toBe('anthropic');
    expect(span.attributes['gen_ai.usage.input_tokens']).toBe(7);
    expect(span.attributes['gen_ai.usage.output_tokens']).toBe(3);
    expect(JSON.stringify(span.attributes)).not.toContain('secret prompt');
  });
});
