/** Conformance cases: cancellation by signal, by request id, by the consumer, and before the start. */
import assert from 'node:assert/strict';
import { createRequestId } from '../../core/ids.ts';
import type { StreamEvent } from '../../core/events.ts';
import type { Emulator, EmulatorProtocolId, EmulatorScript, ServedRequest } from '../emulator/types.ts';
import { collectStream } from '../collect.ts';
import { assertStreamInvariants } from '../invariants.ts';
import { assertFields, errorClassOf, finishOf, firstText, rejection } from './assertions.ts';
import type { SuiteCase } from './types.ts';

const fullText = 'This sentence is long enough to be streamed in many small pieces. '.repeat(3).trim();

/**
 * A text answer streamed slowly in small pieces (about 50 of them, 20 ms apart: a second of writing,
 * so a client that cancels early, however loaded the machine, closes the response before the
 * emulator has written it all). No stall: an adapter that ignores the cancellation completes the
 * answer and fails the checks instead of hanging the suite.
 */
function slowText(protocol: EmulatorProtocolId): EmulatorScript {
  return {
    type: 'scripted',
    protocol,
    content: [{ type: 'text', text: fullText }],
    chunkSize: 4,
    fault: { dripMs: 20 },
  };
}

/** How long after a cancellation the emulator may still be writing the response. */
const closeBoundMs = 1_500;

/**
 * Asserts that the response the emulator began after `before` ended responses was closed by the
 * client before it was fully written, within {@link closeBoundMs}: a cancellation aborts the HTTP
 * request, it does not just stop reporting it (the provider would go on generating and billing).
 */
/**
 * Waits (within {@link closeBoundMs}) until every response the emulator began has ended, and returns
 * how many ended: the next one to end is then the next request's.
 */
async function settled(served: readonly ServedRequest[], emulator: Emulator): Promise<number> {
  const deadline = performance.now() + closeBoundMs;
  while (served.length < emulator.requests.length && performance.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 10));
  return served.length;
}

async function assertUpstreamClosed(
  served: readonly ServedRequest[],
  before: number,
  how: string,
): Promise<void> {
  const deadline = performance.now() + closeBoundMs;
  while (served.length <= before && performance.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 10));
  const response = served[before];
  assert.ok(
    response !== undefined && !response.complete,
    `${how}: the upstream request was not closed (${response === undefined ? `still open ${closeBoundMs} ms later` : 'the emulator wrote the whole response'})`,
  );
}

export const cancellationCases: SuiteCase[] = [
  {
    name: 'cancel-signal',
    title: "the caller's signal aborting mid-stream finishes cancelled with the partial content",
    async run({ adapter, emulator, options, request, served }) {
      emulator.enqueue(slowText(options.protocol));
      const before = await settled(served, emulator);
      const controller = new AbortController();
      const events: StreamEvent[] = [];
      for await (const event of adapter.stream(request(), { signal: controller.signal })) {
        events.push(event);
        if (event.type === 'text-delta') controller.abort();
      }
      assertStreamInvariants(events);
      const response = finishOf(events);
      assert.equal(response.finishReason, 'cancelled', 'the finish reason after the signal aborted');
      const kept = firstText(response);
      assert.ok(kept.length > 0 && kept.length < fullText.length, 'the text received is kept, and only that');
      await assertUpstreamClosed(served, before, 'after the signal aborted');
    },
  },
  {
    name: 'cancel-request-id',
    title: 'cancel(requestId) mid tool call closes the call with what arrived; cancel reports true once',
    applies: (declared) => declared.tools,
    async run({ adapter, declared, emulator, options, request, served }) {
      const before = await settled(served, emulator);
      // Slow events, no stall: an adapter that ignores cancel() simply completes and fails the checks.
      emulator.enqueue({
        type: 'scripted',
        protocol: options.protocol,
        content: [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool-call', name: 'get_weather', input: { city: 'Paris', days: [1, 2, 3, 4, 5, 6, 7] } },
        ],
        chunkSize: 4,
        fault: { dripMs: 15 },
      });
      const requestId = createRequestId();
      const tools = [{ name: 'get_weather', inputSchema: { type: 'object' } }];
      const stream = adapter.stream(request({ requestId, tools }));
      const events: StreamEvent[] = [];
      const cancelled: boolean[] = [];
      for await (const event of stream) {
        events.push(event);
        if (cancelled.length === 0 && event.type === 'tool-call-delta')
          cancelled.push(adapter.cancel(requestId));
      }
      cancelled.push(adapter.cancel(requestId));
      assert.deepEqual(cancelled, [true, false]);
      assertStreamInvariants(events);
      const response = finishOf(events);
      assert.equal(response.finishReason, 'cancelled');
      assertFields(response.content[0], { type: 'text', text: 'Let me check.' }, 'the text before the call');
      const call = response.content.find((part) => part.type === 'tool-call');
      assertFields(call, { type: 'tool-call', name: 'get_weather' }, 'the call cut short');
      assert.equal((await stream.result()).finishReason, 'cancelled');
      // A call sent whole (no streaming tool calls) arrives with the response's last event: nothing left to close.
      if (declared.streamingToolCalls) await assertUpstreamClosed(served, before, 'after cancel(requestId)');
    },
  },
  {
    name: 'cancel-consumer-break',
    title: 'a consumer that stops iterating cancels the request',
    async run({ adapter, emulator, options, request, served }) {
      emulator.enqueue(slowText(options.protocol));
      const before = await settled(served, emulator);
      const stream = adapter.stream(request());
      for await (const event of stream) {
        if (event.type === 'text-delta') break;
      }
      assert.equal((await stream.result()).finishReason, 'cancelled');
      await assertUpstreamClosed(served, before, 'after the consumer stopped iterating');
    },
  },
  {
    name: 'cancel-before-start',
    title: 'an already aborted signal fails as cancelled before any request; unknown ids cancel nothing',
    async run({ adapter, emulator, request }) {
      const before = emulator.requests.length;
      const error = await rejection(
        adapter.complete(request(), { signal: AbortSignal.abort() }),
        'an aborted signal',
      );
      assert.equal(errorClassOf(error), 'cancelled');
      assert.equal(emulator.requests.length, before, 'nothing reached the wire');
      // A stream reports a cancellation as its finish reason (or fails with a cancelled error).
      const streamed = await collectStream(adapter.stream(request(), { signal: AbortSignal.abort() }));
      const outcome =
        streamed.error === undefined
          ? finishOf(streamed.events).finishReason
          : errorClassOf(streamed.error, 'stream() with an aborted signal');
      assert.equal(outcome, 'cancelled', `stream() with an aborted signal ended ${outcome}, not cancelled`);
      assert.equal(
        emulator.requests.length,
        before,
        'stream() with an aborted signal: nothing reached the wire',
      );
      assert.equal(adapter.cancel('no-such-request'), false);
    },
  },
];
