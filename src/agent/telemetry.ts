/** OpenTelemetry spans of a run: `invoke_agent` around it, `execute_tool` per call (GenAI conventions). */
import type { ToolCallPart, ToolResultPart } from '../core/transcript.ts';
import type { ToolHooks } from './tool-runner.ts';
import type { AgentResult } from './types.ts';

type AttributeValue = string | number | boolean;

/** The part of an OpenTelemetry `Span` the agent uses. */
export interface AgentSpan {
  setAttribute(key: string, value: AttributeValue): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
}

/** The part of an OpenTelemetry `Tracer` the agent uses (pass `trace.getTracer('…')`). */
export interface AgentTracer {
  startSpan(
    name: string,
    options?: { kind?: number; attributes?: Record<string, AttributeValue> },
    context?: unknown,
  ): AgentSpan;
}

/** The optional `@opentelemetry/api` functions used to parent spans (loaded only with a tracer). */
interface ContextApi {
  active(): unknown;
  with<Value>(context: unknown, fn: () => Value): Value;
}
interface TraceApi {
  setSpan(context: unknown, span: AgentSpan): unknown;
}

/** What the loop calls; a no-op without a tracer. */
export interface Telemetry {
  /** Runs `fn` with the `invoke_agent` span active, so the front door's call spans nest under it. */
  withSpanContext<Value>(fn: () => Value): Value;
  toolHooks(turn: number): ToolHooks | undefined;
  end(result: AgentResult): void;
}

const noop: Telemetry = {
  withSpanContext: (fn) => fn(),
  toolHooks: () => undefined,
  end: () => {},
};

const statusError = 2;
const kindInternal = 0;

/** Starts the `invoke_agent` span of one run. */
export async function startTelemetry(
  tracer: AgentTracer | undefined,
  attributes: { agentName: string; model: string },
): Promise<Telemetry> {
  if (tracer === undefined) return noop;
  const api = await loadApi();
  const span = tracer.startSpan(
    `invoke_agent ${attributes.agentName}`,
    {
      kind: kindInternal,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': attributes.agentName,
        'gen_ai.request.model': attributes.model,
      },
    },
    api?.context.active(),
  );
  const parent = api === undefined ? undefined : api.trace.setSpan(api.context.active(), span);
  const spans = new Map<string, AgentSpan>();
  return {
    withSpanContext: (fn) => (api === undefined ? fn() : api.context.with(parent, fn)),
    toolHooks: (turn) => ({
      start(call: ToolCallPart) {
        const child = tracer.startSpan(
          `execute_tool ${call.name}`,
          {
            kind: kindInternal,
            attributes: {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': call.name,
              'gen_ai.tool.call.id': call.id,
              'gen_ai.tool.type': 'function',
              'switchyard.agent.turn': turn,
            },
          },
          parent,
        );
        spans.set(call.id, child);
      },
      end(call: ToolCallPart, result: ToolResultPart, durationMs: number) {
        const child = spans.get(call.id);
        spans.delete(call.id);
        if (child === undefined) return;
        child.setAttribute('switchyard.tool.duration_ms', durationMs);
        if (result.isError) {
          child.setAttribute('error.type', 'tool_error');
          child.setStatus({ code: statusError, message: firstText(result) });
        }
        child.end();
      },
    }),
    end(result) {
      span.setAttribute('switchyard.agent.outcome', result.outcome);
      span.setAttribute('switchyard.agent.turns', result.turns.length);
      span.setAttribute(
        'gen_ai.usage.input_tokens',
        result.usage.input + result.usage.cacheRead + result.usage.cacheWrite,
      );
      span.setAttribute('gen_ai.usage.output_tokens', result.usage.output);
      if (result.cost > 0) span.setAttribute('switchyard.agent.cost', result.cost);
      if (result.outcome === 'error') {
        span.setAttribute('error.type', errorType(result.error));
        span.setStatus({
          code: statusError,
          message: String((result.error as Error)?.message ?? result.error),
        });
      }
      span.end();
    },
  };
}

function firstText(result: ToolResultPart): string {
  return result.output.type === 'text' ? result.output.text.slice(0, 200) : 'tool error';
}

function errorType(error: unknown): string {
  const errorClass = (error as { errorClass?: unknown } | undefined)?.errorClass;
  return typeof errorClass === 'string' ? errorClass : error instanceof Error ? error.name : 'error';
}

let apiPromise: Promise<{ context: ContextApi; trace: TraceApi } | undefined> | undefined;

function loadApi(): Promise<{ context: ContextApi; trace: TraceApi } | undefined> {
  // Optional peer: present whenever the caller has a tracer from it; absent → spans stay unparented.
  apiPromise ??= import('@opentelemetry/api').then(
    (module) => ({ context: module.context as ContextApi, trace: module.trace as unknown as TraceApi }),
    () => undefined,
  );
  return apiPromise;
}
