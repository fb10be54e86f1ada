/** Conformance cases: retries with backoff, exhausted retries, `retry-after` honoured and capped. */
import assert from 'node:assert/strict';
import type { RetryInfo } from '../../core/adapter.ts';
import { protocolError } from '../emulator/protocol-errors.ts';
import { errorClassOf, firstText, rejection } from './assertions.ts';
import type { SuiteCase } from './types.ts';

/** The longest wait a `retry-after` hint may impose (the contract's cap). */
const retryAfterCapMs = 60_000;

export const retryCases: SuiteCase[] = [
  {
    name: 'retry',
    title: 'retries rate limits, server errors and dropped connections with exponential backoff, not 4xx',
    async run({ createAdapter, emulator, options, request }) {
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
      const base = 20;
      const adapter = createAdapter({ maxRetries: 3, retryBaseDelay: base });
      const retries: RetryInfo[] = [];
      const before = emulator.requests.length;
      const response = await adapter.complete(request(), { onRetry: (info) => retries.push(info) });
      assert.equal(firstText(response), 'finally');
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
    async run({ createAdapter, emulator, options, request }) {
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
      assert.deepEqual(delays, [200]);
      assert.ok(performance.now() - started >= 190, 'waited for the hint');
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
