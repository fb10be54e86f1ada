/** Helpers for the Gemini adapter's tests: the adapter over the emulator, event collection, contexts. */
import type { Adapter } from '../../core/adapter.ts';
import { createSession } from '../../core/adapter.ts';
import type { StreamEvent } from '../../core/events.ts';
import type { RequestId } from '../../core/ids.ts';
import { createMemoryLogger } from '../../core/logger.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { StreamBuilder } from '../../core/stream-builder.ts';
import { userText } from '../../core/transcript.ts';
import type { Emulator } from '../../testing/emulator/index.ts';
import type { ProviderContext } from '../common/definition.ts';
import { createProviderError } from '../common/errors.ts';
import { capabilitiesFor } from './capabilities.ts';
import { errorRules } from './errors.ts';
import { createGemini } from './index.ts';
import type { GeminiOptions } from './options.ts';
import { buildRequest } from './request.ts';
import { parseResponse } from './response.ts';
import { createStreamParser } from './stream.ts';

/** The key the tests use; it must never show up in errors or logs. */
export const testApiKey = 'AIza.TEST.gemini.key.0123456789abcdefghij';

/** The Gemini adapter pointed at the emulator, fast retries, warnings kept in memory. */
export function emulatedGemini(
  emulator: Emulator,
  options: GeminiOptions = {},
): { adapter: Adapter; logger: ReturnType<typeof createMemoryLogger> } {
  const logger = createMemoryLogger();
  const adapter = createGemini({
    baseURL: `${emulator.url}/v1beta`,
    apiKey: testApiKey,
    maxRetries: 0,
    retryBaseDelay: 1,
    logger,
    ...options,
  });
  return { adapter, logger };
}

/** A minimal request for `model` (a wire name). */
export function simpleRequest(
  model = 'gemini-2.5-flash',
  extra: Partial<CanonicalRequest> = {},
): CanonicalRequest {
  return { model: `gemini:${model}`, transcript: [userText('Hello')], maxOutputTokens: 1024, ...extra };
}

export { collectStream as collect } from '../../testing/collect.ts';

/** The concatenated `tool-call-delta` fragments of each tool call, by id. */
export function toolDeltas(events: readonly StreamEvent[]): Map<string, string> {
  const deltas = new Map<string, string>();
  for (const event of events) {
    if (event.type === 'tool-call-delta') deltas.set(event.id, (deltas.get(event.id) ?? '') + event.delta);
  }
  return deltas;
}

/** The last event (the `finish`), typed. */
export function finishOf(
  events: readonly StreamEvent[],
): Extract<StreamEvent, { type: 'finish' }>['response'] {
  const last = events.at(-1);
  if (last?.type !== 'finish') throw new Error(`the last event is ${last?.type}, not finish`);
  return last.response;
}

/** A ProviderContext for calling the pure functions directly (no HTTP). */
export function testContext(
  overrides: Partial<ProviderContext> = {},
): ProviderContext & { logger: ReturnType<typeof createMemoryLogger> } {
  const logger = createMemoryLogger();
  const requestId = 'req_test' as RequestId;
  const session = overrides.session ?? createSession();
  return {
    requestId,
    provider: 'gemini',
    model: 'gemini-2.5-flash',
    capabilities: capabilitiesFor(overrides.model ?? 'gemini-2.5-flash'),
    session,
    stream: false,
    warn: (message, fields) => logger.warn(message, { adapter: 'gemini', requestId, ...fields }),
    fail(body, status) {
      const site = { provider: 'gemini', method: 'POST', url: 'http://gemini.test', requestId };
      throw createProviderError({ site, status, body, rules: errorRules });
    },
    fetchJson: async () => {
      throw new Error('no network in this test');
    },
    ...overrides,
    logger,
  };
}

/** Feeds chunk objects straight to the stream parser (no HTTP) and finishes like the runtime does. */
export function parseChunks(
  chunks: readonly unknown[],
  context: ProviderContext = testContext(),
): StreamEvent[] {
  const events: StreamEvent[] = [];
  const builder = new StreamBuilder(
    { requestId: context.requestId, provider: 'gemini', model: `gemini:${context.model}`, startedAt: 0 },
    (event) => events.push(event),
  );
  const parser = createStreamParser({ ...context, stream: true }, builder);
  for (const chunk of chunks) parser.onEvent(undefined, JSON.stringify(chunk));
  parser.onEnd();
  builder.finish();
  return events;
}

/** Parses a whole response body (no HTTP) into the canonical response. */
export function parseBody(body: unknown, context: ProviderContext = testContext()) {
  const builder = new StreamBuilder(
    { requestId: context.requestId, provider: 'gemini', model: `gemini:${context.model}`, startedAt: 0 },
    () => {},
  );
  parseResponse(body, context, builder);
  return builder.finish();
}

/** Builds the wire request for `request` (Gemini 2.5 Flash, one user text, unless it says otherwise). */
export function build(request: Partial<CanonicalRequest>, context = testContext()) {
  const full: CanonicalRequest = {
    model: 'gemini:gemini-2.5-flash',
    transcript: [userText('Hello')],
    maxOutputTokens: 256,
    ...request,
  };
  return { wire: buildRequest(full, context, { useJsonSchema: false }), context };
}

/** A function tool with a strict object schema: a city and an optional unit. */
export const weatherTool = {
  name: 'weather',
  description: 'Current weather for a city',
  inputSchema: {
    type: 'object',
    properties: {
      city: { type: 'string', description: 'City name' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    },
    required: ['city'],
    additionalProperties: false,
  },
};
