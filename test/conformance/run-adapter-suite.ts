/**
 * The shared conformance suite (contract §10.2): every adapter runs it against the emulator, so
 * substitutability is proven by one set of tests rather than by each adapter's own.
 */
import { collectStream as collect } from '../../src/testing/collect.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accumulateResponse } from '../../src/core/accumulator.ts';
import type { Adapter } from '../../src/core/adapter.ts';
import type { ErrorClass } from '../../src/core/errors/error-class.ts';
import type { StreamEvent } from '../../src/core/events.ts';
import { createMemoryLogger, type Logger } from '../../src/core/logger.ts';
import type { CanonicalRequest, CanonicalResponse } from '../../src/core/request.ts';
import { type Part, userText } from '../../src/core/transcript.ts';
import {
  anthropicError,
  type Emulator,
  type EmulatorApi,
  type EmulatorScript,
  googleError,
  openaiError,
  startEmulator,
} from '../../src/testing/emulator/index.ts';
import { assertStreamInvariants } from '../../src/testing/invariants.ts';

/** Content without part metadata (provider item ids, annotations), to compare what was said. */
function withoutMetadata(content: readonly Part[]): Part[] {
  return content.map((part) => {
    if (part.metadata === undefined) return part;
    const { metadata: _metadata, ...rest } = part;
    return rest as Part;
  });
}

/** What an adapter registers with the suite. */
export interface AdapterSuiteOptions {
  /** Display name, e.g. `anthropic` or `groq (openai-compatible)`. */
  name: string;
  /** The wire protocol the emulator should speak. */
  api: EmulatorApi;
  /** Canonical model id used for every call. */
  model: string;
  /** Creates the adapter pointed at the emulator (`emulatorUrl` has no path). */
  createAdapter(emulatorUrl: string, options: { logger: Logger; maxRetries: number }): Adapter;
  /** Whether the scripted reasoning scenario applies (the protocol carries reasoning). */
  reasoning?: boolean;
}

/** Error responses with the provider's own body shapes, by error class. */
export function errorScripts(api: EmulatorApi): Array<[ErrorClass, EmulatorScript]> {
  switch (api) {
    case 'anthropic-messages':
      return [
        ['auth', anthropicError(401, 'authentication_error', 'invalid x-api-key')],
        [
          'rate_limit',
          anthropicError(429, 'rate_limit_error', 'Number of requests has exceeded your rate limit'),
        ],
        ['rate_limit', anthropicError(529, 'overloaded_error', 'Overloaded')],
        ['server_error', anthropicError(500, 'api_error', 'Internal server error')],
        [
          'context_overflow',
          anthropicError(400, 'invalid_request_error', 'prompt is too long: 215000 tokens > 200000 maximum'),
        ],
        ['invalid_request', anthropicError(400, 'invalid_request_error', 'max_tokens: field required')],
      ];
    case 'gemini':
      return [
        ['auth', googleError(403, 'Permission denied: API key not valid.', 'PERMISSION_DENIED')],
        [
          'rate_limit',
          googleError(429, 'Resource has been exhausted (e.g. check quota).', 'RESOURCE_EXHAUSTED'),
        ],
        ['server_error', googleError(503, 'The model is overloaded. Please try again later.', 'UNAVAILABLE')],
        [
          'context_overflow',
          googleError(
            400,
            'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
            'INVALID_ARGUMENT',
          ),
        ],
        [
          'invalid_request',
          googleError(400, 'Invalid value at generation_config.temperature', 'INVALID_ARGUMENT'),
        ],
      ];
    default:
      return [
        [
          'auth',
          openaiError(401, 'Incorrect API key provided.', {
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          }),
        ],
        [
          'rate_limit',
          openaiError(429, 'Rate limit reached for requests', {
            type: 'requests',
            code: 'rate_limit_exceeded',
          }),
        ],
        [
          'server_error',
          openaiError(500, 'The server had an error while processing your request.', {
            type: 'server_error',
          }),
        ],
        [
          'context_overflow',
          openaiError(400, "This model's maximum context length is 128000 tokens.", {
            type: 'invalid_request_error',
            code: 'context_length_exceeded',
          }),
        ],
        [
          'invalid_request',
          openaiError(400, 'Unrecognized request argument supplied: foo', { type: 'invalid_request_error' }),
        ],
      ];
  }
}

function finishOf(events: StreamEvent[]): CanonicalResponse {
  const last = events.at(-1);
  if (last?.type !== 'finish') throw new Error('no finish event');
  return last.response;
}

/** Registers the conformance tests for one adapter. */
export function runAdapterSuite(options: AdapterSuiteOptions): void {
  // Declared capabilities decide which scenarios apply (a host without tools gets no tool scenarios).
  const declared = options
    .createAdapter('http://127.0.0.1:9', { logger: createMemoryLogger(), maxRetries: 0 })
    .capabilities(options.model);
  describe(`conformance: ${options.name}`, () => {
    let emulator: Emulator;
    let adapter: Adapter;
    const logger = createMemoryLogger();
    const base = (): CanonicalRequest => ({
      model: options.model,
      transcript: [userText('Hello')],
      maxOutputTokens: 256,
    });

    beforeAll(async () => {
      emulator = await startEmulator();
      adapter = options.createAdapter(emulator.url, { logger, maxRetries: 0 });
    });
    afterAll(async () => {
      await adapter.close();
      await emulator.close();
    });

    it('streams text under the stream contract, and complete() returns the same response', async () => {
      const script: EmulatorScript = {
        type: 'scripted',
        api: options.api,
        content: [{ type: 'text', text: 'Hello there, how can I help?' }],
        usage: { input: 11, output: 7 },
      };
      emulator.enqueue(script);
      const { events, error } = await collect(adapter.stream(base()));
      expect(error).toBeUndefined();
      assertStreamInvariants(events);
      const streamed = finishOf(events);
      expect(withoutMetadata(streamed.content)).toEqual([
        { type: 'text', text: 'Hello there, how can I help?' },
      ]);
      expect(streamed.finishReason).toBe('completed');
      if (streamed.metadata?.['switchyard.usage_estimated'] === true) {
        // This host sends stream usage only in ways the emulator cannot know (contract §7.2 fallback).
        expect(streamed.usage.input).toBeGreaterThan(0);
        expect(streamed.usage.output).toBeGreaterThan(0);
        expect(logger.entries.some((entry) => entry.message.includes('no usage'))).toBe(true);
      } else {
        expect(streamed.usage).toMatchObject({ input: 11, output: 7 });
      }
      expect(await accumulateResponse(events)).toEqual(streamed);
      emulator.enqueue(script);
      const completed = await adapter.complete(base());
      expect(withoutMetadata(completed.content)).toEqual(withoutMetadata(streamed.content));
      expect(completed.finishReason).toBe(streamed.finishReason);
      expect(completed.usage).toMatchObject({ input: 11, output: 7 });
      expect(completed.provider).toBe(adapter.name);
    });

    if (declared.tools) {
      it('streams a tool call: raw fragments, parsed input, finish reason tool-call, canonical id', async () => {
        const input = {
          city: 'Paris',
          days: 3,
          options: { units: 'metric', include: ['wind', 'rain'] },
          exact: true,
          note: null,
        };
        emulator.enqueue({
          type: 'scripted',
          api: options.api,
          content: [{ type: 'tool-call', name: 'get_weather', input }],
          chunkSize: 5,
        });
        const tools = [{ name: 'get_weather', inputSchema: { type: 'object' } }];
        const { events, error } = await collect(adapter.stream({ ...base(), tools }));
        expect(error).toBeUndefined();
        assertStreamInvariants(events);
        const response = finishOf(events);
        expect(response.finishReason).toBe('tool-call');
        const call = response.content.find((part) => part.type === 'tool-call');
        expect(call).toMatchObject({ name: 'get_weather', input });
        expect(call?.type === 'tool-call' && call.id).toMatch(/^tu_/);
        const fragments = events
          .filter((event) => event.type === 'tool-call-delta')
          .map((event) => event.delta);
        if (fragments.length > 0) expect(JSON.parse(fragments.join(''))).toEqual(input);
      });

      it('tool-id consistency: the next request carries the provider id the response issued', async () => {
        const session = adapter.startSession();
        emulator.enqueue({
          type: 'scripted',
          api: options.api,
          content: [{ type: 'tool-call', id: 'call_Abc123xyz', name: 'lookup', input: { q: 'x' } }],
        });
        const tools = [{ name: 'lookup', inputSchema: { type: 'object' } }];
        const first = await adapter.stream({ ...base(), tools }, { session }).result();
        const call = first.content.find((part) => part.type === 'tool-call');
        if (call?.type !== 'tool-call') throw new Error('no tool call');
        emulator.enqueue({ type: 'scripted', api: options.api, content: [{ type: 'text', text: 'done' }] });
        const transcript = [
          ...base().transcript,
          { kind: 'assistant' as const, parts: first.content },
          {
            kind: 'tool' as const,
            parts: [
              {
                type: 'tool-result' as const,
                callId: call.id,
                name: 'lookup',
                output: { type: 'text' as const, text: 'found' },
                isError: false,
              },
            ],
          },
        ];
        const second = await adapter.complete({ ...base(), tools, transcript }, { session });
        expect(withoutMetadata(second.content)).toEqual([{ type: 'text', text: 'done' }]);
        const wireBody = JSON.stringify(emulator.requests.at(-1)?.body);
        const providerId = session.toolIds.toProvider(adapter.name, call.id);
        expect(wireBody).toContain(providerId);
        expect(wireBody).not.toContain(call.id);
      });
    }

    if (options.reasoning === true) {
      it('streams reasoning before text and keeps its signature', async () => {
        emulator.enqueue({
          type: 'scripted',
          api: options.api,
          content: [
            { type: 'reasoning', text: 'Let me think.', signature: 'sig-abc' },
            { type: 'text', text: 'Answer.' },
          ],
        });
        const { events } = await collect(
          adapter.stream({ ...base(), reasoning: { budgetTokens: 1024 }, maxOutputTokens: 4096 }),
        );
        assertStreamInvariants(events);
        const response = finishOf(events);
        expect(response.content[0]).toMatchObject({ type: 'reasoning', text: 'Let me think.' });
        expect(withoutMetadata(response.content).at(-1)).toEqual({ type: 'text', text: 'Answer.' });
      });
    }

    for (const [errorClass, script] of errorScripts(options.api)) {
      it(`classifies a ${errorClass} response the same way as every adapter (${JSON.stringify(script.type === 'json' ? script.status : '')})`, async () => {
        emulator.enqueue(script);
        const { events, error } = await collect(adapter.stream(base()));
        expect(error).toMatchObject({ errorClass, provider: adapter.name });
        assertStreamInvariants(events);
        expect(finishOf(events).finishReason).toBe('error');
        emulator.enqueue(script);
        await expect(adapter.complete(base())).rejects.toMatchObject({ errorClass });
      });
    }

    it('cancellation mid-stream finishes cancelled with the partial content and terminates', async () => {
      emulator.enqueue({
        type: 'scripted',
        api: options.api,
        content: [{ type: 'text', text: 'This sentence is long enough to be streamed in several pieces.' }],
        chunkSize: 4,
        // Responses streams open with four lifecycle events before the first delta.
        fault: { stallAfterEvents: options.api === 'openai-responses' ? 8 : 4 },
      });
      const controller = new AbortController();
      const events: StreamEvent[] = [];
      for await (const event of adapter.stream(base(), { signal: controller.signal })) {
        events.push(event);
        if (event.type === 'text-delta') controller.abort();
      }
      assertStreamInvariants(events);
      const response = finishOf(events);
      expect(response.finishReason).toBe('cancelled');
      expect(response.content[0]?.type === 'text' && response.content[0].text.length).toBeGreaterThan(0);
    });

    it('capability fail-cleanly: a request needing an undeclared capability never reaches the wire', async () => {
      const capabilities = adapter.capabilities(options.model);
      expect(capabilities.contextWindow).toBeGreaterThan(0);
      expect(capabilities.maxOutputTokens).toBeGreaterThan(0);
      const before = emulator.requests.length;
      await expect(adapter.complete({ ...base(), maxOutputTokens: 0 })).rejects.toMatchObject({
        errorClass: 'invalid_request',
      });
      if (!capabilities.images) {
        const transcript = [
          {
            kind: 'user' as const,
            parts: [
              {
                type: 'media' as const,
                modality: 'image' as const,
                mimeType: 'image/png',
                data: { type: 'uri' as const, uri: 'https://example.com/a.png' },
              },
            ],
          },
        ];
        await expect(adapter.complete({ ...base(), transcript })).rejects.toMatchObject({
          providerCode: 'unsupported_capability',
        });
      }
      expect(emulator.requests.length).toBe(before);
    });
  });
}
