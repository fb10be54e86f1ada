/**
 * `parallelToolCalls: false` on Gemini, which has no such setting: the reply keeps its first
 * function call; later ones are dropped with a WARN, streamed arguments (Gemini 3 `partialArgs`)
 * included, and the answer function (`answer-function.ts`) is never counted as a call.
 */
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../core/events.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { StreamBuilder } from '../../core/stream-builder.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { rememberAnswerFunction } from './answer-function.ts';
import { rememberSerialCalls } from './serial-calls.ts';
import { createStreamParser } from './stream.ts';
import { finishOf, parseBody, simpleRequest, testContext } from './test-support.ts';

const serialRequest: CanonicalRequest = {
  ...simpleRequest(),
  tools: [{ name: 'weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }],
  parallelToolCalls: false,
};

const droppedWarnings = (context: ReturnType<typeof testContext>) =>
  context.logger.entries.filter(
    (entry) => entry.message === 'dropped a parallel tool call: the request asked for one call at a time',
  );

function streamed(context: ReturnType<typeof testContext>, chunks: object[]) {
  const events: StreamEvent[] = [];
  const builder = new StreamBuilder(
    { requestId: context.requestId, provider: 'gemini', model: 'gemini:gemini-3-pro-preview', startedAt: 0 },
    (event) => events.push(event),
  );
  const parser = createStreamParser(context, builder);
  for (const chunk of chunks) parser.onEvent(undefined, JSON.stringify({ candidates: [chunk] }));
  parser.onEnd();
  builder.finish();
  assertStreamInvariants(events);
  return events;
}

const parts = (...list: object[]) => ({ content: { role: 'model', parts: list } });

describe('parallel calls forbidden, toward Gemini', () => {
  it('whole: the second call is dropped with a WARN naming it and the kept one', () => {
    const context = testContext();
    rememberSerialCalls(serialRequest, context);
    const response = parseBody(
      {
        candidates: [
          {
            ...parts(
              { functionCall: { name: 'weather', args: { city: 'Paris' } } },
              { functionCall: { name: 'clock', args: { zone: 'CET' } } },
            ),
            finishReason: 'STOP',
          },
        ],
      },
      context,
    );
    expect(response.content.filter((part) => part.type === 'tool-call')).toMatchObject([
      { name: 'weather', input: { city: 'Paris' } },
    ]);
    expect(response.finishReason).toBe('tool-call');
    expect(droppedWarnings(context).map((entry) => entry.fields)).toMatchObject([
      { function: 'clock', kept: 'weather' },
    ]);
  });

  // A hostile reply of 2,000 calls wrote 1,999 lines for one request (adversarial pass).
  it('many dropped calls: one WARN for the reply, naming the first dropped', () => {
    const context = testContext();
    rememberSerialCalls(serialRequest, context);
    const calls = Array.from({ length: 50 }, (_, index) => ({
      functionCall: { name: `f${index}`, args: {} },
    }));
    const response = parseBody({ candidates: [{ ...parts(...calls), finishReason: 'STOP' }] }, context);
    expect(response.content.filter((part) => part.type === 'tool-call')).toHaveLength(1);
    expect(droppedWarnings(context).map((entry) => entry.fields)).toMatchObject([
      { function: 'f1', kept: 'f0' },
    ]);
  });

  it('streamed partialArgs of a dropped call are read and never emitted', () => {
    const context = testContext({ stream: true });
    rememberSerialCalls(serialRequest, context);
    const events = streamed(context, [
      parts({ functionCall: { name: 'weather', args: { city: 'Paris' } } }),
      parts({ functionCall: { name: 'weather', willContinue: true } }),
      parts({
        functionCall: { partialArgs: [{ jsonPath: '$.city', stringValue: 'Rome' }], willContinue: true },
      }),
      { ...parts({ functionCall: {} }), finishReason: 'STOP' },
    ]);
    expect(events.filter((event) => event.type === 'tool-call-start')).toHaveLength(1);
    expect(JSON.stringify(events)).not.toContain('Rome');
    expect(finishOf(events).content).toMatchObject([{ type: 'tool-call', input: { city: 'Paris' } }]);
    expect(droppedWarnings(context)).toHaveLength(1);
  });

  it('the answer function’s call is no tool call: a real call after it is kept', () => {
    const context = testContext();
    rememberSerialCalls(serialRequest, context);
    rememberAnswerFunction(context, { name: 'final_answer', wrapped: false });
    const response = parseBody(
      {
        candidates: [
          {
            ...parts(
              { functionCall: { name: 'final_answer', args: { a: 1 } } },
              { functionCall: { name: 'weather', args: { city: 'Paris' } } },
            ),
            finishReason: 'STOP',
          },
        ],
      },
      context,
    );
    expect(response.content.filter((part) => part.type === 'tool-call')).toMatchObject([{ name: 'weather' }]);
    expect(droppedWarnings(context)).toEqual([]);
  });
});
