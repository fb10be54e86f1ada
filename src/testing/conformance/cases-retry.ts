/** Conformance cases: retries with backoff, exhausted retries, `retry-after` honoured and capped. */
import assert from 'node:assert/strict';
import type { RetryInfo } from '../../core/adapter.ts';
import { protocolError } from '../emulator/protocol-errors.ts';
import type { Adapter } from '../../core/adapter.ts';
import { collectStream } from '../collect.ts';
import type { EmulatorProtocolId, EmulatorScript } from '../emulator/types.ts';
import { errorClassOf, finishOf, firstText, rejection } from './assertions.ts';
import type { SuiteCase, SuiteContext } from './types.ts';

/** The protocols whose APIs send `x-should-retry` (OpenAI's and Anthropic's own; not Google's nor AWS's). */
const shouldRetryProtocols = new Set<string>(['openai-chat', 'openai-responses', 'anthropic-messages']);

/**
 * The protocols whose APIs send `retry-after-ms`, the wait in milliseconds (OpenAI's; its SDKs read
 * it before `retry-after`).
 */
const retryAfterMsProtocols = new Set<string>(['openai-chat', 'openai-responses']);

/** The longest wait a `retry-after` hint may impose (the contract's cap). */
const retryAfterCapMs = 60_000;

const answer = (protocol: EmulatorProtocolId, text: string): EmulatorScript => ({
  type: 'scripted',
  protocol,
  content: [{ type: 'text', text }],
});

/**
 * How many attempts one `complete()` makes when the emulator answers `script` and then would answer
 * a success (a retry the adapter should not make turns the failure into that success).
 */
async function attemptsAfter(
  { emulator, options, request }: SuiteContext,
  adapter: Adapter,
  script: EmulatorScript,
): Promise<{ attempts: number; failed: boolean }> {
  emulator.enqueue(script);
  emulator.enqueue(answer(options.protocol, 'retried'));
  const before = emulator.requests.length;
  const failed = await adapter.complete(request()).then(
    () => false,
    () => true,
  );
  emulator.clear();
  return { attempts: emulator.requests.length - before, failed };
}

export const retryCases: SuiteCase[] = [
  {
    name: 'retry',
    title: 'retries rate limits, server errors and dropped connections with exponential backoff, not 4xx',
    async run(context) {
      const { createAdapter, emulator, options, request } = context;
      emulator.enqueue(protocolError(options.protocol, 'rate_limit'));
      emulator.enqueue(protocolError(options.protocol, 'server_error'));
      emulator.enqueue({
        type: 'scripted',
        protocol: options.protocol,
        content: [{ type: 'text', text: 'cut short before the end of the body' }],
        fault: { disconnectAfterBytes: 10 },
      });
      emulator.enqueue({
        type: 'scripted',
        protocol: options.protocol,
        content: [{ type: 'text', text: 'finally' }],
      });
      const base = 40;
      const adapter = createAdapter({ maxRetries: 3, retryBaseDelay: base });
      const retries: RetryInfo[] = [];
      const before = emulator.requests.length;
      const started = performance.now();
      const response = await adapter.complete(request(), { onRetry: (info) => retries.push(info) });
      const elapsed = performance.now() - started;
      assert.equal(firstText(response), 'finally');
      const waited = retries.reduce((sum, info) => sum + info.delayMs, 0);
      assert.ok(
        elapsed >= waited - 5,
        `backoff reported (${Math.round(waited)} ms in onRetry) but not waited (the call took ${Math.round(elapsed)} ms)`,
      );
      assert.deepEqual(
        retries.map((info) => [info.attempt, errorClassOf(info.error)]),
        [
          [1, 'rate_limit'],
          [2, 'server_error'],
          [3, 'network'],
        ],
      );
      // Jitter on the upper half of base × 2^(attempt − 1).
      for (const info of retries) {
        const ceiling = base * 2 ** (info.attempt - 1);
        assert.ok(info.delayMs >= ceiling / 2 && info.delayMs <= ceiling, `delay ${info.delayMs} ms`);
      }
      assert.equal(emulator.requests.length - before, 4);
      emulator.enqueue(protocolError(options.protocol, 'invalid_request'));
      await rejection(adapter.complete(request()), 'a 400');
      assert.equal(emulator.requests.length - before, 5, 'a 400 is not retried');
      for (const status of [401, 403, 404, 413]) {
        const { attempts, failed } = await attemptsAfter(context, adapter, {
          type: 'json',
          status,
          body: '',
        });
        assert.ok(
          attempts === 1 && failed,
          `a ${status} is not retried (${attempts} attempts reached the wire)`,
        );
      }
      // A stream is retried too, before its first event reached the caller.
      emulator.enqueue(protocolError(options.protocol, 'rate_limit'));
      emulator.enqueue(answer(options.protocol, 'streamed after a retry'));
      const streamed = await collectStream(adapter.stream(request()));
      emulator.clear();
      assert.equal(
        streamed.error,
        undefined,
        `stream() did not retry a 429 before its first event (maxRetries 3): ${errorClassOf(streamed.error)}`,
      );
      assert.equal(firstText(finishOf(streamed.events)), 'streamed after a retry');
    },
  },
  {
    name: 'retry-exhausted',
    title: 'exhausted retries raise the last classified error, marked retryable',
    async run({ createAdapter, emulator, options, request }) {
      emulator.enqueue(protocolError(options.protocol, 'server_error'));
      emulator.enqueue(protocolError(options.protocol, 'server_error'));
      // A third attempt (beyond 1 + maxRetries) would get this success instead of failing.
      emulator.enqueue({
        type: 'scripted',
        protocol: options.protocol,
        content: [{ type: 'text', text: 'late' }],
      });
      const before = emulator.requests.length;
      const outcome = await createAdapter({ maxRetries: 1, retryBaseDelay: 1 })
        .complete(request())
        .then(
          () => undefined,
          (error: unknown) => ({ error }),
        );
      emulator.clear();
      const attempts = emulator.requests.length - before;
      assert.equal(attempts, 2, `${attempts} attempts reached the wire; maxRetries 1 allows 1 + 1`);
      assert.ok(outcome !== undefined, 'two server errors: expected the call to fail');
      assert.equal(errorClassOf(outcome.error), 'server_error');
      assert.equal(
        (outcome.error as { retryable?: boolean }).retryable,
        true,
        'the last error is marked retryable',
      );
    },
  },
  {
    name: 'retry-after',
    title: 'honours a retry-after header as the delay before the retry',
    async run(context) {
      const { createAdapter, emulator, options, request } = context;
      emulator.enqueue(protocolError(options.protocol, 'rate_limit', { 'retry-after': '0.2' }));
      emulator.enqueue({
        type: 'scripted',
        protocol: options.protocol,
        content: [{ type: 'text', text: 'after the wait' }],
      });
      const delays: number[] = [];
      const started = performance.now();
      await createAdapter({ maxRetries: 1 }).complete(request(), {
        onRetry: (info) => delays.push(info.delayMs),
      });
      assert.deepEqual(delays, [200], 'the retry-after hint (0.2 s) sets the delay');
      assert.ok(performance.now() - started >= 190, 'waited for the retry-after hint');
      // OpenAI's precise hint, in milliseconds, where the protocol's API sends it.
      if (retryAfterMsProtocols.has(options.protocol)) {
        emulator.enqueue(protocolError(options.protocol, 'rate_limit', { 'retry-after-ms': '250' }));
        emulator.enqueue(answer(options.protocol, 'after the wait'));
        const msDelays: number[] = [];
        const msStarted = performance.now();
        await createAdapter({ maxRetries: 1 }).complete(request(), {
          onRetry: (info) => msDelays.push(info.delayMs),
        });
        const waited = performance.now() - msStarted;
        assert.deepEqual(
          msDelays,
          [250],
          `the retry-after-ms hint (250 ms) sets the delay, not ${msDelays.join(', ')} ms`,
        );
        assert.ok(waited >= 240, `retry-after-ms: 250 not waited (the call took ${Math.round(waited)} ms)`);
      }
      // An HTTP-date hint two minutes ahead: capped like any other, then cancelled during the wait.
      const dated = createAdapter({ maxRetries: 1 });
      const inTwoMinutes = new Date(Date.now() + 120_000).toUTCString();
      emulator.enqueue(protocolError(options.protocol, 'rate_limit', { 'retry-after': inTwoMinutes }));
      const controller = new AbortController();
      const datedDelays: number[] = [];
      await rejection(
        dated.complete(request(), {
          signal: controller.signal,
          onRetry: (info) => {
            datedDelays.push(info.delayMs);
            controller.abort();
          },
        }),
        'cancelled during the wait',
      );
      emulator.clear();
      assert.deepEqual(
        datedDelays,
        [retryAfterCapMs],
        `an HTTP-date retry-after (${inTwoMinutes}) sets the delay`,
      );
      // The provider's own word, where the protocol has one (OpenAI's and Anthropic's APIs send
      // x-should-retry; Google and AWS do not): it overrides the status rule both ways.
      if (!shouldRetryProtocols.has(options.protocol)) return;
      const noRetry = await attemptsAfter(context, dated, {
        ...protocolError(options.protocol, 'server_error'),
        headers: { 'x-should-retry': 'false' },
      });
      assert.equal(noRetry.attempts, 1, 'x-should-retry: false on a server error is obeyed (no retry)');
      const retry = await attemptsAfter(context, dated, {
        type: 'json',
        status: 409,
        body: '',
        headers: { 'x-should-retry': 'true' },
      });
      assert.ok(retry.attempts === 2 && !retry.failed, 'x-should-retry: true on a 409 is obeyed (one retry)');
    },
  },
  {
    name: 'retry-after-cap',
    title: 'caps a long retry-after at 60 s, and cancelling during the wait ends the call at once',
    async run({ createAdapter, emulator, options, request }) {
      emulator.enqueue(protocolError(options.protocol, 'rate_limit', { 'retry-after': '120' }));
      const controller = new AbortController();
      const delays: number[] = [];
      const started = performance.now();
      const error = await rejection(
        createAdapter({ maxRetries: 1 }).complete(request(), {
          signal: controller.signal,
          onRetry: (info) => {
            delays.push(info.delayMs);
            setTimeout(() => controller.abort(), 10);
          },
        }),
        'cancelled during the wait',
      );
      assert.deepEqual(delays, [retryAfterCapMs]);
      assert.equal(errorClassOf(error), 'cancelled');
      assert.ok(performance.now() - started < 5_000, 'the wait ended with the cancellation');
    },
  },
];
