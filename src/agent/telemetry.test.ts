import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createScriptedAdapter } from '../testing/scripted-adapter.ts';
import { createAgent } from './agent.ts';
import { call, text } from './test-support.ts';
import { tool } from '../schemas/structured.ts';

describe('OpenTelemetry spans', () => {
  it('one invoke_agent span per run with execute_tool children carrying GenAI attributes', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const tools = [
      tool({ name: 'ok', input: z.object({}), execute: () => 'fine' }),
      tool({
        name: 'bad',
        input: z.object({}),
        execute: () => {
          throw new Error('nope');
        },
      }),
    ];
    const adapter = createScriptedAdapter([
      { content: [call('c1', 'ok', {}), call('c2', 'bad', {})], usage: { input: 10, output: 3 } },
      { content: [text('done')], usage: { input: 20, output: 1 } },
    ]);
    const agent = createAgent({
      name: 'coder',
      client: adapter,
      model: 'scripted:m',
      tools,
      tracer: provider.getTracer('switchyard-test'),
    });
    await agent.run('go').result();
    const spans = exporter.getFinishedSpans();
    const root = spans.find((span) => span.name === 'invoke_agent coder')!;
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'coder',
      'gen_ai.request.model': 'scripted:m',
      'gen_ai.usage.input_tokens': 30,
      'gen_ai.usage.output_tokens': 4,
      'switchyard.agent.outcome': 'completed',
      'switchyard.agent.turns': 2,
    });
    const toolSpans = spans.filter((span) => span.name.startsWith('execute_tool'));
    expect(toolSpans.map((span) => span.name).sort()).toEqual(['execute_tool bad', 'execute_tool ok']);
    for (const span of toolSpans) {
      expect(span.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
      expect(span.attributes['gen_ai.operation.name']).toBe('execute_tool');
      expect(span.attributes['gen_ai.tool.call.id']).toMatch(/^c[12]$/);
    }
    const failed = toolSpans.find((span) => span.name === 'execute_tool bad')!;
    expect(failed.status).toMatchObject({ code: 2, message: 'Tool "bad" failed: nope' });
    expect(failed.attributes['error.type']).toBe('tool_error');
  });

  it('marks the agent span as an error when the run fails', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const adapter = createScriptedAdapter([]);
    const result = await createAgent({
      client: adapter,
      model: 'scripted:m',
      tracer: provider.getTracer('t'),
    })
      .run('go')
      .result();
    expect(result.outcome).toBe('error');
    const [root] = exporter.getFinishedSpans();
    expect(root?.status.code).toBe(2);
    expect(root?.attributes['error.type']).toBe('invalid_request');
  });
});
