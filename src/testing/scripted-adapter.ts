/** An in-memory adapter that replays scripted responses through the real stream contract. */
import { type Adapter, createSession } from '../core/adapter.ts';
import type { Capabilities } from '../core/capabilities.ts';
import { assertCapabilities } from '../core/capability-check.ts';
import { CancelledError } from '../core/errors/cancelled-error.ts';
import { InvalidRequestError } from '../core/errors/invalid-request-error.ts';
import { EventStream } from '../core/event-stream.ts';
import type { StreamEvent } from '../core/events.ts';
import type { FinishReason } from '../core/finish-reason.ts';
import { createRequestId, createToolCallId, splitModelId } from '../core/ids.ts';
import type { CanonicalRequest, CanonicalResponse } from '../core/request.ts';
import { StreamBuilder } from '../core/stream-builder.ts';
import type { Part } from '../core/transcript.ts';
import type { Usage } from '../core/usage.ts';

/** One scripted response: parts to stream, and how it ends. */
export interface ScriptedResponse {
  content: Part[];
  finishReason?: FinishReason;
  usage?: Partial<Usage>;
  /** Characters per text/reasoning delta and per tool-input fragment. Default 16. */
  chunkSize?: number;
  /** Throw this error after streaming the content (mid-stream failure). */
  error?: Error;
}

/** Full capabilities, overridable. */
export const allCapabilities: Capabilities = {
  images: true,
  audio: true,
  video: true,
  pdf: true,
  reasoning: true,
  tools: true,
  parallelToolCalls: true,
  structuredOutput: true,
  streaming: true,
  streamingToolCalls: true,
  promptCaching: true,
  systemPrompt: true,
  contextWindow: 200_000,
  maxOutputTokens: 64_000,
  imageMediaTypes: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'],
  audioMediaTypes: [],
  documentMediaTypes: [],
};

/** The scripted adapter plus the requests it received. */
export interface ScriptedAdapter extends Adapter {
  readonly requests: CanonicalRequest[];
}

/** Creates an adapter that answers each call with the next scripted response (in order). */
export function createScriptedAdapter(
  scripts: ScriptedResponse[],
  options: { name?: string; capabilities?: Partial<Capabilities> } = {},
): ScriptedAdapter {
  const name = options.name ?? 'scripted';
  const capabilities = { ...allCapabilities, ...options.capabilities };
  const requests: CanonicalRequest[] = [];
  const controllers = new Map<string, AbortController>();
  let next = 0;

  function stream(request: CanonicalRequest, callOptions: { signal?: AbortSignal } = {}) {
    const requestId = request.requestId ?? createRequestId();
    const controller = new AbortController();
    const events = new EventStream<StreamEvent, CanonicalResponse>(() => controller.abort());
    const model = `${name}:${splitModelId(request.model).name}`;
    const builder = new StreamBuilder(
      { requestId, provider: name, model, startedAt: performance.now() },
      (event) => events.push(event),
    );
    if (callOptions.signal?.aborted) controller.abort();
    else callOptions.signal?.addEventListener('abort', () => controller.abort(), { once: true });
    controllers.set(requestId, controller);
    void (async () => {
      try {
        assertCapabilities(request, capabilities, { provider: name, model });
        requests.push(request);
        const script = scripts[next++];
        if (script === undefined)
          throw new InvalidRequestError({ message: `${name}: no scripted response left` });
        await play(script, builder, controller.signal);
        events.end(builder.finish());
      } catch (error) {
        if (error instanceof CancelledError) events.end(builder.finish('cancelled'));
        else {
          builder.finish('error');
          events.fail(error);
        }
      } finally {
        controllers.delete(requestId);
      }
    })();
    return events;
  }

  return {
    name,
    protocol: 'scripted',
    requests,
    capabilities: () => capabilities,
    stream,
    complete: (request, callOptions) => stream(request, callOptions).result(),
    estimateInputTokens: ({ transcript }) => Math.ceil(JSON.stringify(transcript).length / 4),
    cancel(requestId) {
      const controller = controllers.get(requestId);
      if (controller === undefined || controller.signal.aborted) return false;
      controller.abort();
      return true;
    },
    async close() {
      for (const controller of controllers.values()) controller.abort();
    },
    listModels: async () => [{ id: `${name}:model`, name: 'model' }],
    startSession: () => createSession(),
    // Scripted responses create no provider-side state.
    endSession: async () => {},
  };
}

async function play(script: ScriptedResponse, builder: StreamBuilder, signal: AbortSignal): Promise<void> {
  const size = script.chunkSize ?? 16;
  builder.start();
  for (const [key, part] of script.content.entries()) {
    await checkpoint(signal);
    if (part.type === 'text' || part.type === 'reasoning') {
      const kind = part.type;
      builder.openText(key, kind);
      for (let offset = 0; offset < part.text.length; offset += size) {
        await checkpoint(signal);
        const delta = part.text.slice(offset, offset + size);
        if (kind === 'text') builder.text(key, delta);
        else builder.reasoning(key, delta);
      }
      builder.end(key, part.type === 'reasoning' ? { signature: part.signature, data: part.data } : {});
    } else if (part.type === 'tool-call') {
      builder.toolStart(key, part.id || createToolCallId(), part.name);
      const json = JSON.stringify(part.input);
      for (let offset = 0; offset < json.length; offset += size) {
        await checkpoint(signal);
        builder.toolDelta(key, json.slice(offset, offset + size));
      }
      builder.end(key);
    } else if (part.type === 'custom') {
      builder.custom(part);
    }
  }
  if (script.usage !== undefined) builder.usage(script.usage);
  if (script.error !== undefined) throw script.error;
  builder.setFinish(script.finishReason ?? (builder.hasToolCalls ? 'tool-call' : 'completed'));
}

async function checkpoint(signal: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (signal.aborted) throw new CancelledError({ message: 'scripted call cancelled' });
}
