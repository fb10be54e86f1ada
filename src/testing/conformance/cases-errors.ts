/** Conformance cases: every error class, and statuses whose body says little or nothing. */
import assert from 'node:assert/strict';
import type { ErrorClass } from '../../core/errors/error-class.ts';
import { collectStream } from '../collect.ts';
import { protocolError, responseErrorClasses } from '../emulator/protocol-errors.ts';
import type { EmulatorFault, EmulatorProtocolId, JsonScript } from '../emulator/types.ts';
import { assertStreamInvariants } from '../invariants.ts';
import { createRequestId } from '../../core/ids.ts';
import {
  assertClassified,
  assertErrorFields,
  assertNoCredential,
  credentialsOf,
  errorClassOf,
  finishOf,
  firstText,
  rejection,
} from './assertions.ts';
import type { SuiteCase } from './types.ts';

/** A port nothing listens on (connection refused). */
const closedPort = 'http://127.0.0.1:1';

const bodyClassCases: SuiteCase[] = responseErrorClasses.map((errorClass) => ({
  name: 'error-classes',
  title: `classifies the protocol's ${errorClass} response, streamed and complete()`,
  async run({ adapter, emulator, logger, options, request }) {
    const before = emulator.requests.length;
    const warningsFrom = logger.entries.length;
    const streamed = protocolError(options.protocol, errorClass);
    const streamedId = createRequestId();
    emulator.enqueue(streamed);
    const { events, error } = await collectStream(adapter.stream(request({ requestId: streamedId })));
    assertClassified(error, errorClass, `stream() ${errorClass}`);
    assertErrorFields(error, streamed, streamedId, `stream() ${errorClass}`);
    assert.equal((error as { provider?: string }).provider, adapter.name);
    assertStreamInvariants(events);
    assert.equal(finishOf(events).finishReason, 'error');
    const completed = protocolError(options.protocol, errorClass);
    const completedId = createRequestId();
    emulator.enqueue(completed);
    const completeError = await rejection(adapter.complete(request({ requestId: completedId })), errorClass);
    assertClassified(completeError, errorClass, `complete() ${errorClass}`);
    assertErrorFields(completeError, completed, completedId, `complete() ${errorClass}`);
    const credentials = credentialsOf(emulator.requests.slice(before));
    assertNoCredential(error, credentials, logger, warningsFrom, `stream() ${errorClass}`);
    assertNoCredential(completeError, credentials, logger, warningsFrom, `complete() ${errorClass}`);
  },
}));

const otherClassCases: SuiteCase[] = [
  {
    name: 'error-classes',
    title: 'classifies a refused connection as network',
    async run({ createAdapter, request }) {
      const error = await rejection(createAdapter({}, closedPort).complete(request()), 'network');
      assert.equal(errorClassOf(error), 'network');
    },
  },
  {
    name: 'error-classes',
    title: 'classifies a connection dropped mid-body as network',
    async run({ adapter, emulator, options, request }) {
      emulator.enqueue({
        type: 'scripted',
        protocol: options.protocol,
        content: [{ type: 'text', text: 'cut short before the end of the body' }],
        fault: { disconnectAfterBytes: 10 },
      });
      assert.equal(errorClassOf(await rejection(adapter.complete(request()), 'dropped')), 'network');
    },
  },
  {
    name: 'error-classes',
    title: 'classifies an unexpected status as other',
    async run({ adapter, emulator, request }) {
      emulator.enqueue({ type: 'json', status: 399, body: 'unexpected status' });
      assert.equal(errorClassOf(await rejection(adapter.complete(request()), 'status 399')), 'other');
    },
  },
];

/** Statuses with an empty, HTML or foreign body: the status alone decides. */
function statusEdgeCases(_api: EmulatorProtocolId): Array<[string, JsonScript, ErrorClass]> {
  // "Overloaded" (Anthropic's 529) is the provider's capacity, not the caller's quota: server_error everywhere.
  const overloaded: ErrorClass = 'server_error';
  return [
    ['413, empty body', { type: 'json', status: 413, body: '' }, 'context_overflow'],
    [
      '413, HTML',
      { type: 'json', status: 413, body: '<html>413 Request Entity Too Large</html>' },
      'context_overflow',
    ],
    ['429, empty body', { type: 'json', status: 429, body: '' }, 'rate_limit'],
    ['429, foreign JSON', { type: 'json', status: 429, body: { message: 'slow down' } }, 'rate_limit'],
    ['401, plain text', { type: 'json', status: 401, body: 'Unauthorized' }, 'auth'],
    ['401, empty body', { type: 'json', status: 401, body: '' }, 'auth'],
    ['403, empty body', { type: 'json', status: 403, body: '' }, 'auth'],
    ['503, HTML', { type: 'json', status: 503, body: '<html>Service Unavailable</html>' }, 'server_error'],
    ['529, empty body', { type: 'json', status: 529, body: '' }, overloaded],
    ['404, empty body', { type: 'json', status: 404, body: '' }, 'invalid_request'],
  ];
}

const edgeCases: SuiteCase[] = [
  {
    name: 'status-edge-cases',
    title: 'classifies statuses whose body is empty, HTML or foreign by the status alone',
    async run({ adapter, emulator, options, request }) {
      for (const [label, script, errorClass] of statusEdgeCases(options.protocol)) {
        // A body that says little holds no code of the provider's: only status and request id.
        const completeId = createRequestId();
        emulator.enqueue(script);
        const completeError = await rejection(adapter.complete(request({ requestId: completeId })), label);
        assertClassified(completeError, errorClass, `complete() ${label}`);
        assertErrorFields(completeError, script, completeId, `complete() ${label}`, false);
        const streamId = createRequestId();
        emulator.enqueue(script);
        const { events, error } = await collectStream(adapter.stream(request({ requestId: streamId })));
        assertClassified(error, errorClass, `stream() ${label}`);
        assertErrorFields(error, script, streamId, `stream() ${label}`, false);
        assertStreamInvariants(events);
      }
    },
  },
];

const truncationCases: SuiteCase[] = [
  {
    name: 'stream-truncation',
    title:
      'a stream cut mid-body, before or after the first text, ends as a network failure, never completed',
    async run({ adapter, emulator, options, request }) {
      const fullText = 'This answer is cut short by the connection dropping in the middle of it.';
      // The first text delta is wire event 1 (Gemini), 2 (Chat, Converse), 4 (Anthropic, Bedrock
      // Invoke, Vertex Claude) or 5 (Responses): a cut after six events lands after it in every
      // protocol and before the last of the 18 deltas. The checks below make sure of it each run.
      const cuts: Array<[string, EmulatorFault, boolean]> = [
        ['before the first text', { disconnectAfterBytes: 10 }, false],
        ['after the first text', { disconnectAfterEvents: 6 }, true],
      ];
      for (const [label, fault, afterText] of cuts) {
        emulator.enqueue({
          type: 'scripted',
          protocol: options.protocol,
          content: [{ type: 'text', text: fullText }],
          chunkSize: 4,
          fault,
        });
        const { events, error } = await collectStream(adapter.stream(request()));
        assertStreamInvariants(events);
        const finishReason = finishOf(events).finishReason;
        assert.equal(finishReason, 'error', `stream cut ${label}: finish reason ${finishReason}, not error`);
        assert.equal(
          errorClassOf(error),
          'network',
          `stream cut ${label}: the error is not classified network`,
        );
        // What arrived before the cut reaches the caller, and the finish holds it (contract §6.5).
        const received = events.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : []));
        const kept = firstText(finishOf(events));
        if (!afterText) {
          assert.equal(kept, '', `stream cut ${label}: text arrived, though no text was written`);
          continue;
        }
        assert.ok(
          received.length > 0,
          `stream cut ${label}: no text reached the caller, though the cut came after the first text delta`,
        );
        const text = received.join('');
        assert.ok(
          text.length < fullText.length && fullText.startsWith(text),
          `stream cut ${label}: the text received (${JSON.stringify(text)}) is not a part of the answer cut short`,
        );
        assert.equal(
          kept,
          text,
          `stream cut ${label}: the finish does not hold the content received before the cut`,
        );
      }
    },
  },
];

export const errorCases: SuiteCase[] = [
  ...bodyClassCases,
  ...otherClassCases,
  ...edgeCases,
  ...truncationCases,
];
