/**
 * The kit's fault matrix: correct-adapter wrappers that each inject ONE contract violation, the
 * cases that must catch it and the words the failure must use to name it (brought in from the
 * prober's /work/probe-kit/mutants.ts; findings F1–F21 of its report).
 */
import type { StreamEvent } from '../../../src/core/events.ts';
import type { CanonicalResponse } from '../../../src/core/request.ts';
import { AdapterError } from '../../../src/core/errors/adapter-error.ts';
import { AuthError } from '../../../src/core/errors/auth-error.ts';
import { InvalidRequestError } from '../../../src/core/errors/invalid-request-error.ts';
import type { Usage } from '../../../src/core/usage.ts';
import type { ChatReasoningField, EmulatorProtocolId } from '../../../src/testing/index.ts';
import { createOpenAICompatible, presets } from '../../../src/providers/openai-compatible/index.ts';

import {
  asStream,
  base,
  errorMap,
  type Factory,
  fakeCancelStream,
  mapParts,
  mapStream,
  omit,
  openaiBase,
  requestMap,
  type Stream,
  streamMap,
  wrap,
} from './mutate.ts';

/** One mutant: the adapter, the cases that must fail it, and what their failure must say. */
export interface Mutant {
  create: Factory;
  cases: readonly string[];
  /** Matched against the failure messages of the mutant's cases: one must name the violation. */
  names: RegExp;
  /** The protocol and model the suite runs in, when not Anthropic's (the base `create` wraps). */
  suite?: KitSuite;
}

/** The protocol and model of one kit run. */
export interface KitSuite {
  protocol: EmulatorProtocolId;
  model: string;
  chatReasoningField?: ChatReasoningField;
}

/** The suite of the OpenAI Chat Completions mutants (`openaiBase`). */
export const openaiSuite: KitSuite = { protocol: 'openai-chat', model: 'openai:gpt-4.1' };

const badUsage = (usage: Usage): Usage => ({ ...usage, cacheRead: -3, cacheWrite: Number.NaN });

/** Usage whose cache buckets a stream forgot (a `message_start` usage never read). */
const withoutCache = (usage: Usage): Usage => ({ ...usage, cacheRead: 0, cacheWrite: 0 });
/** The stream's usage (its `usage` events, finish and result) without the cache. */
const streamWithoutCache = streamMap(
  (event) =>
    event.type === 'usage'
      ? [{ ...event, usage: withoutCache(event.usage) }]
      : event.type === 'finish'
        ? [{ ...event, response: { ...event.response, usage: withoutCache(event.response.usage) } }]
        : [event],
  { result: (response) => ({ ...response, usage: withoutCache(response.usage) }) },
);

/** An error's own fields, read without trusting its shape. */
const fieldsOf = (error: unknown): Record<string, unknown> =>
  typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};

/** Holds the finish; a network error after it is swallowed and the finish reported as completed. */
function swallowTruncation(inner: Stream): Stream {
  async function* events(): AsyncGenerator<StreamEvent> {
    let held: StreamEvent | undefined;
    try {
      for await (const event of inner) {
        if (event.type === 'finish') held = event;
        else yield event;
      }
      if (held !== undefined) yield held;
    } catch (error) {
      if (held?.type === 'finish' && fieldsOf(error).errorClass === 'network') {
        yield { ...held, response: { ...held.response, finishReason: 'completed' } };
        return;
      }
      if (held !== undefined) yield held;
      throw error;
    }
  }
  return asStream(
    () => events(),
    () => inner.result(),
  );
}

/** Characters of text a {@link holdStart} stream holds back before it lets the answer flow. */
const heldCharacters = 32;

/**
 * Holds the start of a text answer back (its events after `message-start`, until 32 characters of
 * text arrived or another kind of event comes) and, when the stream fails while holding it, drops it: the finish reports `error` with no
 * content, though text had arrived (contract §6.5: the finish holds the content received).
 */
function holdStart(inner: Stream): Stream {
  let failed: CanonicalResponse | undefined;
  async function* events(): AsyncGenerator<StreamEvent> {
    let held: StreamEvent[] | undefined = [];
    let characters = 0;
    for await (const event of inner) {
      if (held === undefined || event.type === 'message-start') {
        yield event;
        continue;
      }
      if (event.type === 'finish' && event.response.finishReason === 'error') {
        failed = { ...event.response, content: [] };
        yield { ...event, response: failed };
        continue;
      }
      held.push(event);
      if (event.type === 'text-delta') characters += event.delta.length;
      const text = event.type.startsWith('text-') || event.type === 'usage';
      if (characters >= heldCharacters || !text) {
        yield* held;
        held = undefined;
      }
    }
  }
  return asStream(
    () => events(),
    async () => failed ?? inner.result(),
  );
}

/** A response header rewritten on its way from the emulator to the adapter. */
function headerFilter(change: (headers: Headers) => void): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const headers = new Headers(response.headers);
    change(headers);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}

const withoutSignature = <T extends { type: string }>(part: T): T =>
  part.type === 'reasoning' || part.type === 'reasoning-end' ? omit(part, 'signature') : part;

export const mutants: Record<string, Mutant> = {
  // ---- stream shape
  'event-after-finish': {
    create: streamMap((event) =>
      event.type === 'finish' ? [event, { type: 'usage', usage: event.response.usage }] : [event],
    ),
    cases: ['text'],
    names: /event after finish/,
  },
  'no-message-start': {
    create: streamMap((event) => (event.type === 'message-start' ? [] : [event])),
    cases: ['text'],
    names: /first event must be message-start/,
  },
  'two-message-starts': {
    create: streamMap((event) => (event.type === 'message-start' ? [event, event] : [event])),
    cases: ['text'],
    names: /message-start repeated/,
  },
  'delta-for-unstarted-part': {
    create: streamMap((event) =>
      event.type === 'finish' ? [{ type: 'text-delta', index: 99, delta: 'x' }, event] : [event],
    ),
    cases: ['text'],
    names: /no text part started at index 99/,
  },
  'tool-id-changed-at-end': {
    create: streamMap((event) =>
      event.type === 'tool-call-end' ? [{ ...event, id: `${event.id}x` } as StreamEvent] : [event],
    ),
    cases: ['tool-call'],
    names: /differs from the start's/,
  },
  'tool-call-never-ended': {
    create: streamMap((event) => (event.type === 'tool-call-end' ? [] : [event])),
    cases: ['tool-call'],
    names: /\(tool-call\) never ended/,
  },
  'tool-end-input-not-object': {
    create: streamMap((event) =>
      event.type === 'tool-call-end' ? [{ ...event, input: '{"city":' } as unknown as StreamEvent] : [event],
    ),
    cases: ['tool-call'],
    names: /final input is not a JSON object/,
  },
  'tool-deltas-not-json': {
    create: streamMap((event) =>
      event.type === 'tool-call-delta' ? [{ ...event, delta: `${event.delta}}` }] : [event],
    ),
    cases: ['tool-call'],
    names: /tool-call-delta fragments .*final input/,
  },
  'tool-deltas-dropped': {
    create: streamMap((event) => (event.type === 'tool-call-delta' ? [] : [event])),
    cases: ['tool-call'],
    names: /declares streamingToolCalls.*no tool-call-delta/,
  },
  'stream-usage-negative': {
    create: streamMap((event) =>
      event.type === 'usage'
        ? [{ ...event, usage: badUsage(event.usage) }]
        : event.type === 'finish'
          ? [{ ...event, response: { ...event.response, usage: badUsage(event.response.usage) } }]
          : [event],
    ),
    cases: ['text'],
    names: /usage\.cacheRead is -3, not a non-negative integer/,
  },
  'stream-usage-drops-cache': {
    create: streamWithoutCache,
    cases: ['usage'],
    names: /usage\.cacheRead: the stream reports 0, its complete\(\) twin 40/,
  },
  // One usage mapper shared by both paths loses the cache in both: the twins agree, the bill does not.
  'usage-drops-cache-in-both': {
    create: (url, settings) => {
      const inner = base(url, settings);
      return wrap(streamWithoutCache(url, settings), {
        complete: (request, options) =>
          inner
            .complete(request, options)
            .then((response) => ({ ...response, usage: withoutCache(response.usage) })),
      });
    },
    cases: ['usage'],
    names: /complete\(\) usage: cacheRead 0, the answer's 40/,
  },
  'stream-finish-reason-outside-enum': {
    create: streamMap((event) =>
      event.type === 'finish' && event.response.finishReason === 'max-tokens'
        ? [{ ...event, response: { ...event.response, finishReason: 'length' as 'other' } }]
        : [event],
    ),
    cases: ['finish-reasons'],
    names: /finish reason "length" is not one of/,
  },
  'stream-provider-wrong': {
    create: streamMap((event) =>
      event.type === 'finish'
        ? [{ ...event, response: { ...event.response, provider: 'someone-else' } }]
        : [event],
    ),
    cases: ['text'],
    names: /streamed finish: provider someone-else, not the adapter's anthropic/,
  },
  'groq-reads-reasoning_content': {
    // Groq writes reasoning in `reasoning`; an adapter reading only DeepSeek's field loses it.
    create: (url, settings) =>
      createOpenAICompatible(
        { ...presets.groq, quirks: { ...presets.groq.quirks, reasoningFields: ['reasoning_content'] } },
        { ...settings, apiKey: 'test-key', baseURL: `${url}/v1` },
      ),
    cases: ['reasoning'],
    names: /reasoning the provider streamed was not read/,
    suite: { protocol: 'openai-chat', model: 'groq:openai/gpt-oss-120b', chatReasoningField: 'reasoning' },
  },
  'reasoning-signature-dropped': {
    create: streamMap(
      (event) =>
        event.type === 'finish'
          ? [{ ...event, response: mapParts(event.response, withoutSignature) }]
          : [withoutSignature(event) as StreamEvent],
      { result: (response) => mapParts(response, withoutSignature) },
    ),
    cases: ['reasoning'],
    names: /reasoning signature/,
  },
  'incomplete-marker-dropped': {
    create: streamMap(
      (event) =>
        event.type.endsWith('-end')
          ? [omit(event, 'incomplete')]
          : event.type === 'finish'
            ? [{ ...event, response: mapParts(event.response, (part) => omit(part, 'incomplete')) }]
            : [event],
      { result: (response) => mapParts(response, (part) => omit(part, 'incomplete')) },
    ),
    cases: ['cancel-request-id'],
    names: /not marked incomplete/,
  },
  'max-tokens-reported-completed': {
    create: streamMap((event) =>
      event.type === 'finish' && event.response.finishReason === 'max-tokens'
        ? [{ ...event, response: { ...event.response, finishReason: 'completed' } }]
        : [event],
    ),
    cases: ['finish-reasons'],
    names: /max_tokens.*finish reason/,
  },
  'result-differs-from-finish': {
    create: streamMap((event) => [event], {
      result: (response) => ({
        ...mapParts(response, (part) => (part.type === 'text' ? { ...part, text: 'TAMPERED' } : part)),
        usage: { ...response.usage, output: response.usage.output + 1000 },
      }),
    }),
    cases: ['text'],
    names: /result\(\) after the stream differs from its finish event/,
  },
  'stream-swallows-truncation': {
    create: (url, settings) => {
      const inner = base(url, settings);
      return wrap(inner, { stream: (request, options) => swallowTruncation(inner.stream(request, options)) });
    },
    cases: ['stream-truncation'],
    names: /stream cut .*(finish reason|network)/,
  },
  'truncation-drops-partial-content': {
    create: (url, settings) => {
      const inner = base(url, settings);
      return wrap(inner, { stream: (request, options) => holdStart(inner.stream(request, options)) });
    },
    cases: ['stream-truncation'],
    names: /stream cut after the first text: .*(no text|content received)/,
  },
  // ---- complete()
  'complete-usage-negative-nan': {
    create: (url, settings) => {
      const inner = base(url, settings);
      return wrap(inner, {
        complete: async (request, options) => {
          const response = await inner.complete(request, options);
          return { ...response, usage: badUsage(response.usage) };
        },
      });
    },
    cases: ['text'],
    names: /complete\(\) usage.*cacheRead is -3/,
  },
  'complete-tool-ids-not-canonical': {
    create: (url, settings) => {
      const inner = base(url, settings);
      return wrap(inner, {
        complete: async (request, options) =>
          mapParts(await inner.complete(request, options), (part) =>
            part.type === 'tool-call' ? ({ ...part, id: 'toolu_raw_provider_id' } as typeof part) : part,
          ),
      });
    },
    cases: ['tool-call'],
    names: /complete\(\) tool call id toolu_raw_provider_id is not canonical/,
  },
  // ---- errors
  'plain-error-instead-of-class': {
    create: errorMap((error) =>
      fieldsOf(error).errorClass === 'rate_limit' ? new Error('rate limited') : error,
    ),
    cases: ['error-classes'],
    names: /not an AdapterError/,
  },
  'duck-typed-error-not-AdapterError': {
    create: errorMap((error) => {
      const fields = fieldsOf(error);
      if (fields.errorClass === undefined) return error;
      const plain = new Error(String(fields.message)) as Error & Record<string, unknown>;
      for (const key of ['errorClass', 'provider', 'status', 'retryable', 'providerCode', 'requestId'])
        plain[key] = fields[key];
      return plain;
    }),
    cases: ['error-classes'],
    names: /not an AdapterError/,
  },
  'stream-403-misclassified': {
    create: (url, settings) => {
      const inner = base(url, settings);
      return wrap(inner, {
        stream: (request, options) =>
          mapStream(inner.stream(request, options), (event) => [event], {
            onError: (error) => {
              const fields = fieldsOf(error);
              return fields.status === 403
                ? new InvalidRequestError({
                    message: String(fields.message),
                    status: 403,
                    provider: inner.name,
                  })
                : error;
            },
          }),
      });
    },
    cases: ['status-edge-cases'],
    names: /stream\(\) 403, empty body/,
  },
  'error-base-class-not-subclass': {
    create: errorMap((error) =>
      AdapterError.isInstance(error) && error.errorClass === 'rate_limit'
        ? new AdapterError({
            message: error.message,
            errorClass: 'rate_limit',
            status: error.status,
            providerCode: error.providerCode,
            retryable: error.retryable,
            requestId: error.requestId,
            provider: error.provider,
          })
        : error,
    ),
    cases: ['error-classes'],
    names: /raised as AdapterError, not as its subclass RateLimitError/,
  },
  'error-status-dropped': {
    create: errorMap((error) => {
      if (AdapterError.isInstance(error)) Object.defineProperty(error, 'status', { value: undefined });
      return error;
    }),
    cases: ['error-classes'],
    names: /error status undefined, not the response's/,
  },
  'error-provider-code-dropped': {
    create: errorMap((error) => {
      if (AdapterError.isInstance(error) && error.status !== undefined)
        Object.defineProperty(error, 'providerCode', { value: undefined });
      return error;
    }),
    cases: ['error-classes'],
    names: /no providerCode, though the provider's error answer had one/,
  },
  // A code that never reads the answer: "error" is in every protocol's error body.
  'error-provider-code-constant': {
    create: errorMap((error) => {
      if (AdapterError.isInstance(error) && error.status !== undefined)
        Object.defineProperty(error, 'providerCode', { value: 'error' });
      return error;
    }),
    cases: ['error-classes'],
    names: /providerCode error is not a code of the provider's error answer/,
  },
  'error-request-id-not-the-calls': {
    create: errorMap((error) => {
      if (AdapterError.isInstance(error))
        Object.defineProperty(error, 'requestId', { value: 'req_011CUpstreamHeaderId' });
      return error;
    }),
    cases: ['error-classes'],
    names: /requestId req_011CUpstreamHeaderId, not the call's request id/,
  },
  'non-transient-marked-retryable': {
    create: errorMap((error) => {
      if (typeof error === 'object' && error !== null && 'retryable' in error)
        Object.defineProperty(error, 'retryable', { value: true });
      return error;
    }),
    cases: ['error-classes'],
    names: /marked retryable/,
  },
  'api-key-in-error-message': {
    create: errorMap((error) => {
      if (error instanceof Error)
        Object.defineProperty(error, 'message', { value: `${error.message} [x-api-key: test-key]` });
      return error;
    }),
    cases: ['error-classes'],
    names: /API key .*error/,
  },
  // ---- retries
  'retries-beyond-maxRetries': {
    create: (url, settings) => base(url, { ...settings, maxRetries: settings.maxRetries > 0 ? 6 : 0 }),
    cases: ['retry-exhausted'],
    names: /attempts.*maxRetries 1/,
  },
  'stream-never-retries': {
    create: (url, settings) => {
      const inner = base(url, settings);
      const once = base(url, { ...settings, maxRetries: 0 });
      return wrap(inner, {
        stream: (request, options) => once.stream(request, options),
        cancel: (id) => once.cancel(id) || inner.cancel(id),
        close: async () => {
          await inner.close();
          await once.close();
        },
      });
    },
    cases: ['retry'],
    names: /stream\(\) .*retr/,
  },
  'auth-retried-when-retries-on': {
    create: (url, settings) => {
      const inner = base(url, settings);
      return wrap(inner, {
        complete: async (request, options) => {
          try {
            return await inner.complete(request, options);
          } catch (error) {
            if (settings.maxRetries > 0 && error instanceof AuthError)
              return inner.complete(request, options);
            throw error;
          }
        },
      });
    },
    cases: ['retry'],
    names: /401.* not retried/,
  },
  'retry-after-date-and-should-retry-ignored': {
    create: (url, settings) =>
      base(url, {
        ...settings,
        fetch: headerFilter((headers) => {
          const hint = headers.get('retry-after');
          if (hint !== null && Number.isNaN(Number(hint))) headers.delete('retry-after');
          headers.delete('x-should-retry');
        }),
      }),
    cases: ['retry-after'],
    names: /(HTTP-date|x-should-retry)/,
  },
  'backoff-reported-not-waited': {
    create: (url, settings) => {
      const inner = base(url, { ...settings, retryBaseDelay: 0 });
      return wrap(inner, {
        complete: (request, options) =>
          inner.complete(request, {
            ...options,
            onRetry:
              options?.onRetry &&
              ((info) => {
                const ceiling = settings.retryBaseDelay * 2 ** (info.attempt - 1);
                options.onRetry!({
                  ...info,
                  delayMs: info.delayMs > 0 ? info.delayMs : Math.round(ceiling * 0.75),
                });
              }),
          }),
      });
    },
    cases: ['retry'],
    names: /backoff .*waited/,
  },
  'count-retried-on-5xx': {
    create: (url, settings) => {
      const inner = base(url, settings);
      return wrap(inner, {
        countInputTokens: (request, options) =>
          inner.countInputTokens!(request, options).catch(() => inner.countInputTokens!(request, options)),
      });
    },
    cases: ['token-count'],
    names: /count that failed with a 5xx is never retried/,
  },
  'retry-after-ms-ignored': {
    create: (url, settings) =>
      openaiBase(url, { ...settings, fetch: headerFilter((headers) => headers.delete('retry-after-ms')) }),
    cases: ['retry-after'],
    names: /retry-after-ms/,
    suite: openaiSuite,
  },
  'retry-after-ignored': {
    create: (url, settings) =>
      base(url, { ...settings, fetch: headerFilter((headers) => headers.delete('retry-after')) }),
    cases: ['retry-after'],
    names: /retry-after/,
  },
  // ---- cancellation
  'signal-ignored': {
    create: (url, settings) => {
      const inner = base(url, settings);
      return wrap(inner, {
        stream: (request, options) => inner.stream(request, { ...options, signal: undefined }),
      });
    },
    cases: ['cancel-signal'],
    names: /after the signal aborted/,
  },
  'cancel-reported-but-upstream-keeps-running': {
    create: (url, settings) => {
      const inner = base(url, settings);
      return wrap(inner, { stream: (request, options) => fakeCancelStream(inner, request, options) });
    },
    cases: ['cancel-signal', 'cancel-consumer-break'],
    names: /upstream request .*not closed/,
  },
  'stream-ignores-pre-aborted-signal': {
    create: (url, settings) => {
      const inner = base(url, settings);
      return wrap(inner, {
        stream: (request, options) =>
          inner.stream(
            request,
            options?.signal?.aborted === true ? { ...options, signal: undefined } : options,
          ),
      });
    },
    cases: ['cancel-before-start'],
    names: /stream\(\) with an aborted signal/,
  },
  // ---- token counts
  'estimate-negative-fractional': {
    create: (url, settings) => wrap(base(url, settings), { estimateInputTokens: () => -3.5 }),
    cases: ['token-count'],
    names: /estimateInputTokens .*-3\.5.*non-negative integer/,
  },
  'count-fractional': {
    create: (url, settings) => {
      const inner = base(url, settings);
      return wrap(inner, {
        countInputTokens: async (request, options) => {
          const counted = await inner.countInputTokens!(request, options);
          return counted === undefined ? counted : counted + 0.5;
        },
      });
    },
    cases: ['token-count'],
    names: /countInputTokens returned .*\.5/,
  },
  'count-drops-tools-and-system': {
    create: (url, settings) => {
      const inner = base(url, settings);
      return wrap(inner, {
        countInputTokens: (request, options) =>
          inner.countInputTokens!(
            {
              ...request,
              tools: undefined,
              transcript: request.transcript.filter((item) => item.kind !== 'system'),
            },
            options,
          ),
      });
    },
    cases: ['token-count'],
    names: /count.*(tools|system)/,
  },
  // ---- a declared capability's field must reach the wire
  'declared-tools-silently-dropped': {
    create: requestMap((request) => ({ ...request, tools: undefined, toolChoice: undefined })),
    cases: ['request-fields'],
    names: /tools .*never reached the wire/,
  },
  'stop-sequences-silently-dropped': {
    create: requestMap((request) => ({ ...request, stopSequences: undefined })),
    cases: ['request-fields'],
    names: /stopSequences never reached the wire/,
  },
  'declared-reasoning-silently-dropped': {
    create: requestMap((request) => ({ ...request, reasoning: undefined })),
    cases: ['reasoning'],
    names: /reasoning .*never reached the wire/,
  },
  'maxOutputTokens-silently-changed': {
    create: requestMap((request, adapter) => {
      const limit = adapter.capabilities(request.model).maxOutputTokens;
      return request.maxOutputTokens > 0 && request.maxOutputTokens <= limit
        ? { ...request, maxOutputTokens: Math.min(limit, request.maxOutputTokens * 2) }
        : request;
    }),
    cases: ['request-fields'],
    names: /maxOutputTokens .*never reached the wire/,
  },
  'system-prompt-dropped': {
    create: requestMap((request) => ({
      ...request,
      transcript: request.transcript.filter((item) => item.kind !== 'system' && item.kind !== 'developer'),
    })),
    cases: ['request-fields'],
    names: /system .*never reached the wire/,
  },
  'temperature-and-stop-silently-dropped': {
    create: requestMap((request) => ({
      ...request,
      temperature: undefined,
      stopSequences: undefined,
      topP: undefined,
    })),
    cases: ['request-fields'],
    names: /(temperature|stopSequences) .*never reached the wire/,
  },
};
