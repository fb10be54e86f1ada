/** Helpers for the Chat Completions tests: a provider context, direct parser feeding, event collection. */
import { type Adapter, type AdapterSession, createSession } from '../../core/adapter.ts';
import type { Capabilities } from '../../core/capabilities.ts';
import type { ErrorBody } from '../../core/errors/status-map.ts';
import type { StreamEvent } from '../../core/events.ts';
import type { RequestId } from '../../core/ids.ts';
import type { CanonicalRequest, CanonicalResponse } from '../../core/request.ts';
import { StreamBuilder } from '../../core/stream-builder.ts';
import type { Item } from '../../core/transcript.ts';
import type { Emulator } from '../../testing/emulator/index.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import type { ProviderContext } from '../common/definition.ts';
import { createProviderError } from '../common/errors.ts';
import { createCapabilityResolver } from './capabilities.ts';
import { errorRules } from './errors.ts';
import { type ChatQuirks, openaiQuirks } from './quirks.ts';
import { parseResponse } from './response.ts';
import { createStreamParser } from './stream.ts';

/** A WARN entry recorded by {@link createTestContext}. */
export interface RecordedWarning {
  message: string;
  fields: Record<string, unknown>;
}

/**
 * A provider context for direct calls, recording its WARN entries; also used by the Responses tests
 * (same OpenAI error rules), which pass their own `path` and default model.
 */
export function createTestContext(
  fields: {
    provider?: string;
    model?: string;
    stream?: boolean;
    session?: AdapterSession;
    path?: string;
    capabilities?: Capabilities;
  } = {},
): ProviderContext & { warnings: RecordedWarning[] } {
  const warnings: RecordedWarning[] = [];
  const provider = fields.provider ?? 'openai';
  const model = fields.model ?? 'gpt-4.1-mini';
  return {
    requestId: 'req_test' as RequestId,
    provider,
    model,
    capabilities: fields.capabilities ?? createCapabilityResolver(openaiQuirks)(model),
    session: fields.session ?? createSession(),
    logger: { warn: () => {} },
    stream: fields.stream ?? false,
    warnings,
    warn(message, entry) {
      warnings.push({ message, fields: entry });
    },
    fail(body: ErrorBody, status?: number): never {
      const site = {
        provider,
        method: 'POST',
        url: `http://test.invalid${fields.path ?? '/chat/completions'}`,
      };
      throw createProviderError({ site, status, body, rules: errorRules });
    },
    fetchJson: async () => {
      throw new Error('fetchJson is not used by the OpenAI adapters');
    },
  };
}

function createBuilder(context: ProviderContext, events: StreamEvent[]): StreamBuilder {
  return new StreamBuilder(
    {
      requestId: context.requestId,
      provider: context.provider,
      model: `${context.provider}:${context.model}`,
      startedAt: performance.now(),
    },
    (event) => events.push(event),
  );
}

/** What feeding a parser produced: the events, the response, and the error it threw if any. */
export interface FeedResult {
  events: StreamEvent[];
  response: CanonicalResponse;
  error: unknown;
}

/**
 * Feeds SSE data payloads (`{event?, data}` or bare data strings) to the stream parser, then
 * `onEnd()`, and finishes the builder the way the runtime does (`error` when the parser threw).
 */
export function feedStream(
  payloads: ReadonlyArray<string | { event?: string; data: string }>,
  quirks: ChatQuirks,
  context: ProviderContext = createTestContext({ stream: true }),
): FeedResult {
  const events: StreamEvent[] = [];
  const builder = createBuilder(context, events);
  const parser = createStreamParser(context, builder, quirks);
  try {
    for (const payload of payloads) {
      if (typeof payload === 'string') parser.onEvent(undefined, payload);
      else parser.onEvent(payload.event, payload.data);
    }
    parser.onEnd();
  } catch (error) {
    return { events, response: builder.finish('error'), error };
  }
  return { events, response: builder.finish(), error: undefined };
}

/** Parses a whole response body the way `complete()` does. */
export function feedResponse(
  body: unknown,
  quirks: ChatQuirks,
  context: ProviderContext = createTestContext(),
): CanonicalResponse {
  const builder = createBuilder(context, []);
  parseResponse(body, context, builder, quirks);
  return builder.finish();
}

import { collectStream } from '../../testing/collect.ts';

export { collectStream };

/** A minimal request: one user message. */
export function userRequest(text: string, extra: Partial<CanonicalRequest> = {}): CanonicalRequest {
  const transcript: Item[] = [{ kind: 'user', parts: [{ type: 'text', text }] }];
  return { model: 'openai:gpt-4.1-mini', transcript, maxOutputTokens: 256, ...extra };
}

/** The concatenated text of every text part of a response. */
export function textOf(response: CanonicalResponse | undefined): string {
  return (response?.content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** The concatenated text of every reasoning part of a response. */
export function reasoningOf(response: CanonicalResponse | undefined): string {
  return (response?.content ?? []).map((part) => (part.type === 'reasoning' ? part.text : '')).join('');
}

/** The tool calls of a response as `{name, input}` pairs. */
export function toolCallsOf(
  response: CanonicalResponse | undefined,
): Array<{ name: string; input: unknown }> {
  return (response?.content ?? []).flatMap((part) =>
    part.type === 'tool-call' ? [{ name: part.name, input: part.input }] : [],
  );
}

/** What replaying one recorded file through an adapter produced. */
export interface ReplayResult {
  response: CanonicalResponse | undefined;
  events: StreamEvent[];
  error: unknown;
  /** The body of the request the adapter sent. */
  body: Record<string, unknown>;
}

/**
 * Serves a recorded file from the emulator and runs it through the adapter: `.json` with
 * `complete()`, `.chunks.txt` / `.sse` with `stream()` (asserting the stream invariants).
 */
export async function replayRecorded(
  emulator: Emulator,
  adapter: Adapter,
  file: string,
  request: CanonicalRequest = userRequest('Hi', { model: `${adapter.name}:test-model` }),
): Promise<ReplayResult> {
  emulator.enqueue({ type: 'replay', file });
  const before = emulator.requests.length;
  const bodyOf = () => (emulator.requests[before]?.body ?? {}) as Record<string, unknown>;
  if (file.endsWith('.json')) {
    try {
      const response = await adapter.complete(request);
      return { response, events: [], error: undefined, body: bodyOf() };
    } catch (error) {
      return { response: undefined, events: [], error, body: bodyOf() };
    }
  }
  const { events, response, error } = await collectStream(adapter.stream(request));
  assertStreamInvariants(events);
  return { response, events, error, body: bodyOf() };
}
