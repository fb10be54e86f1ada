/** Helpers for the Anthropic adapter's own tests: contexts, fixture paths, stream collection. */
import { readdirSync } from 'node:fs';
import { type Adapter, createSession } from '../../core/adapter.ts';
import type { StreamEvent } from '../../core/events.ts';
import type { RequestId } from '../../core/ids.ts';
import { createMemoryLogger } from '../../core/logger.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { StreamBuilder } from '../../core/stream-builder.ts';
import type { Item, Part } from '../../core/transcript.ts';
import type { Emulator } from '../../testing/emulator/index.ts';
import type { ProviderContext } from '../common/definition.ts';
import { createProviderError } from '../common/errors.ts';
import { recordedDir } from '../../../test/support/fixtures.ts';
import { anthropicCapabilities } from './capabilities.ts';
import { errorRules } from './errors.ts';
import { createAnthropic } from './index.ts';
import type { AnthropicOptions } from './options.ts';
import { buildRequest } from './request.ts';

/** The folder of recorded Anthropic responses. */
export const recordedAnthropicDir = `${recordedDir}/anthropic/`;

/** Absolute path of a recorded Anthropic file. */
export function fixture(name: string): string {
  return recordedAnthropicDir + name;
}

/** Names of every recorded Anthropic file, sorted. */
export function fixtureNames(): string[] {
  return readdirSync(recordedAnthropicDir).sort();
}

/** A provider context for calling translation functions directly, with an in-memory logger. */
export function createTestContext(
  overrides: Partial<Pick<ProviderContext, 'model' | 'stream' | 'session'>> = {},
): ProviderContext & { logger: ReturnType<typeof createMemoryLogger> } {
  const logger = createMemoryLogger();
  const requestId = 'req_test' as RequestId;
  const session = overrides.session ?? createSession();
  const model = overrides.model ?? 'claude-sonnet-4-5';
  return {
    requestId,
    provider: 'anthropic',
    model,
    capabilities: anthropicCapabilities(model),
    session,
    logger,
    stream: overrides.stream ?? false,
    warn(message, fields) {
      logger.warn(message, { adapter: 'anthropic', requestId, sessionId: session.id, ...fields });
    },
    fail(body, status) {
      const site = { provider: 'anthropic', method: 'POST', url: 'test', requestId };
      throw createProviderError({ site, status, body, rules: errorRules });
    },
    fetchJson: () => Promise.reject(new Error('no network in unit tests')),
  };
}

/** A builder that records its events. */
export function createRecordingBuilder(model = 'anthropic:claude-sonnet-4-5'): {
  builder: StreamBuilder;
  events: StreamEvent[];
} {
  const events: StreamEvent[] = [];
  const builder = new StreamBuilder(
    { requestId: 'req_test' as RequestId, provider: 'anthropic', model, startedAt: performance.now() },
    (event) => events.push(event),
  );
  return { builder, events };
}

export { type CollectedStream, collectStream as collect } from '../../testing/collect.ts';

/** An adapter pointed at the emulator, with fast retries and an in-memory logger. */
export function createTestAdapter(
  emulator: Emulator,
  options: AnthropicOptions = {},
): Adapter & { logger: ReturnType<typeof createMemoryLogger> } {
  const logger = createMemoryLogger();
  const adapter = createAnthropic({
    baseURL: `${emulator.url}/v1`,
    apiKey: 'test-key',
    maxRetries: 0,
    retryBaseDelay: 1,
    logger,
    ...options,
  });
  return Object.assign(adapter, { logger });
}

/**
 * Builds the wire request for a transcript (model `claude-sonnet-4-5`, 1024 output tokens unless
 * overridden) and returns the body, headers and the WARNs logged.
 */
export function buildTestRequest(
  request: Partial<CanonicalRequest> & { transcript: Item[] },
  model = 'claude-sonnet-4-5',
) {
  const context = createTestContext({ model });
  const wire = buildRequest({ model: `anthropic:${model}`, maxOutputTokens: 1024, ...request }, context);
  return { body: wire.body, headers: wire.headers, warnings: context.logger.entries };
}

/** A minimal request. */
export function textRequest(text: string, overrides: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    model: 'anthropic:claude-sonnet-4-5',
    transcript: [{ kind: 'user', parts: [{ type: 'text', text }] }],
    maxOutputTokens: 1024,
    ...overrides,
  };
}

/** A run-length summary of a response's parts: `text, custom:server_tool_use, tool-call:rollDie×14`. */
export function describeContent(content: readonly Part[]): string {
  const runs: string[] = [];
  let previous: string | undefined;
  let repeats = 0;
  const flush = () => {
    if (previous !== undefined) runs.push(repeats > 1 ? `${previous}×${repeats}` : previous);
  };
  for (const part of content) {
    const label =
      part.type === 'custom'
        ? `custom:${part.kind}`
        : part.type === 'tool-call'
          ? `tool-call:${part.name}`
          : part.type;
    if (label === previous) {
      repeats++;
    } else {
      flush();
      previous = label;
      repeats = 1;
    }
  }
  flush();
  return runs.join(', ');
}

/** The parts of one type. */
export function partsOf<Type extends Part['type']>(
  content: readonly Part[],
  type: Type,
): Array<Extract<Part, { type: Type }>> {
  return content.filter((part): part is Extract<Part, { type: Type }> => part.type === type);
}
