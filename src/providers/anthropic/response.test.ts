/** Whole responses: stop-reason mapping, usage buckets, and bodies that are not what they should be. */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { isServerError } from '../../core/errors/guards.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { convertUsage, convertUsageFields, mapFinishReason, parseResponse } from './response.ts';
import { createStreamParser } from './stream.ts';
import { createRecordingBuilder, createTestContext, fixture } from './test-support.ts';

function parse(body: unknown) {
  const context = createTestContext();
  const { builder, events } = createRecordingBuilder();
  let error: unknown;
  try {
    parseResponse(body, context, builder);
  } catch (caught) {
    error = caught;
  }
  const response = builder.finish(error === undefined ? undefined : 'error');
  assertStreamInvariants(events);
  return { response, error, warnings: context.logger.entries };
}

describe('mapFinishReason', () => {
  it.each([
    ['end_turn', 'completed'],
    ['max_tokens', 'max-tokens'],
    ['stop_sequence', 'stop-sequence'],
    ['tool_use', 'tool-call'],
    ['pause_turn', 'other'],
    ['refusal', 'content-filter'],
    ['model_context_window_exceeded', 'max-tokens'],
    ['something_new', 'other'],
    [null, 'other'],
  ])('%s → %s', (raw, reason) => {
    expect(mapFinishReason(raw)).toBe(reason);
  });

  it('keeps the raw value next to the mapped one', () => {
    const { response } = parse({ id: 'msg_1', type: 'message', content: [], stop_reason: 'pause_turn' });
    expect([response.finishReason, response.rawFinishReason]).toEqual(['other', 'pause_turn']);
  });
});

/** A recorded reply read in full from its stream events (one JSON event a line). */
function parseStream(lines: string[]) {
  const context = createTestContext({ stream: true });
  const { builder, events } = createRecordingBuilder();
  const parser = createStreamParser(context, builder);
  for (const line of lines) parser.onEvent(undefined, line);
  parser.onEnd();
  const response = builder.finish();
  assertStreamInvariants(events);
  return response;
}

describe('a tool call that ends with end_turn', () => {
  // The recorded text + tool_use replies (whole and streamed), as a host relaying Claude answers when
  // it reports end_turn beside the call: the call is still the client's to run.
  const whole = readFileSync(fixture('anthropic-tool-no-args.json'), 'utf8').replace(
    '"stop_reason": "tool_use"',
    '"stop_reason": "end_turn"',
  );
  const streamed = readFileSync(fixture('anthropic-tool-no-args.chunks.txt'), 'utf8')
    .replace('"stop_reason":"tool_use"', '"stop_reason":"end_turn"')
    .split('\n')
    .filter((line) => line.trim() !== '');

  it('finishes tool-call in a whole reply, the raw end_turn kept', () => {
    const { response } = parse(JSON.parse(whole));
    expect(response.content.map((part) => part.type)).toEqual(['text', 'tool-call']);
    expect([response.finishReason, response.rawFinishReason]).toEqual(['tool-call', 'end_turn']);
  });

  it('finishes tool-call in a streamed reply, the raw end_turn kept', () => {
    const response = parseStream(streamed);
    expect(response.content.map((part) => part.type)).toEqual(['text', 'tool-call']);
    expect([response.finishReason, response.rawFinishReason]).toEqual(['tool-call', 'end_turn']);
  });

  it('stays completed when the only calls were made by code execution (programmatic tool calling)', () => {
    const body = JSON.parse(readFileSync(fixture('anthropic-programmatic-tool-calling.1.json'), 'utf8'));
    const { response } = parse(body);
    expect(response.content.some((part) => part.type === 'tool-call')).toBe(true);
    expect([response.finishReason, response.rawFinishReason]).toEqual(['completed', 'end_turn']);
  });
});

describe('convertUsage', () => {
  it('maps each Anthropic count to its disjoint bucket', () => {
    expect(
      convertUsage({
        input_tokens: 5,
        cache_read_input_tokens: 1000,
        cache_creation_input_tokens: 200,
        output_tokens: 90,
        output_tokens_details: { thinking_tokens: 40 },
      }),
    ).toEqual({ input: 5, cacheRead: 1000, cacheWrite: 200, output: 90, reasoning: 40 });
  });

  it('counts absent or invalid counts as zero, and no usage as all zero', () => {
    expect(convertUsage({ output_tokens: 3, input_tokens: null, cache_read_input_tokens: -1 })).toEqual({
      input: 0,
      cacheRead: 0,
      cacheWrite: 0,
      output: 3,
      reasoning: 0,
    });
    expect(convertUsage(undefined)).toEqual({
      input: 0,
      cacheRead: 0,
      cacheWrite: 0,
      output: 0,
      reasoning: 0,
    });
  });

  it('returns only the counts present and valid for a per-report update', () => {
    expect(convertUsageFields({ output_tokens: 3, input_tokens: null, cache_read_input_tokens: -1 })).toEqual(
      { output: 3 },
    );
  });

  it('bills usage.iterations as the sum of the iterations, not the top-level counts', () => {
    expect(
      convertUsageFields({
        input_tokens: 682,
        output_tokens: 1320,
        iterations: [
          { type: 'compaction', input_tokens: 60385, output_tokens: 592, cache_read_input_tokens: 7 },
          { type: 'message', input_tokens: 682, output_tokens: 1320, cache_read_input_tokens: 3 },
        ],
      }),
    ).toEqual({ input: 61067, output: 1912, cacheRead: 10 });
  });

  it('web searches: server_tool_use.web_search_requests is webSearches, with or without iterations (the top-level count)', () => {
    const searched = { web_search_requests: 3, web_fetch_requests: 1 };
    expect(convertUsage({ input_tokens: 5, output_tokens: 1, server_tool_use: searched })).toEqual({
      input: 5,
      cacheRead: 0,
      cacheWrite: 0,
      output: 1,
      reasoning: 0,
      webSearches: 3,
    });
    expect(
      convertUsageFields(
        {
          input_tokens: 6,
          output_tokens: 2,
          server_tool_use: searched,
          iterations: [
            { type: 'message', input_tokens: 4, output_tokens: 1 },
            { type: 'advisor_message', model: 'claude-opus-4-7', input_tokens: 9, output_tokens: 5 },
            { type: 'message', input_tokens: 6, output_tokens: 2 },
          ],
        },
        'claude-sonnet-4-5',
      ),
    ).toEqual({
      input: 10,
      output: 3,
      webSearches: 3,
      byModel: {
        'anthropic:claude-opus-4-7': { input: 9, cacheRead: 0, cacheWrite: 0, output: 5, reasoning: 0 },
      },
    });
  });

  it('web searches: none, a malformed count or server_tool_use not an object count no searches', () => {
    expect(
      convertUsage({ output_tokens: 1, server_tool_use: { web_search_requests: 0 } }),
    ).not.toHaveProperty('webSearches');
    for (const server_tool_use of [{ web_search_requests: -2 }, { web_search_requests: '3' }, [3], 'x', null])
      expect(
        convertUsageFields({ output_tokens: 1, server_tool_use }),
        JSON.stringify(server_tool_use),
      ).toEqual({
        output: 1,
      });
  });

  it('falls back to the top-level counts when usage.iterations is empty or not objects', () => {
    expect(convertUsageFields({ input_tokens: 4, output_tokens: 2, iterations: [] })).toEqual({
      input: 4,
      output: 2,
    });
    expect(convertUsageFields({ input_tokens: 4, output_tokens: 2, iterations: ['x', 1] })).toEqual({
      input: 4,
      output: 2,
    });
  });
});

describe('parseResponse', () => {
  it('throws the classified error for an error body', () => {
    const { error, response } = parse({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
    expect(isServerError(error)).toBe(true);
    expect(response.finishReason).toBe('error');
  });

  it('throws a ServerError for a body that is not a message object', () => {
    for (const body of [null, 'text', [1, 2]]) expect(isServerError(parse(body).error)).toBe(true);
  });

  it('survives missing and malformed fields', () => {
    const { response, error, warnings } = parse({
      id: 'msg_x',
      content: [null, { text: 'no type' }, { type: 'text', text: 'kept' }],
      usage: null,
    });
    expect(error).toBeUndefined();
    expect(response.content).toEqual([{ type: 'text', text: 'kept' }]);
    expect(warnings).toHaveLength(2);
    expect(parse({ id: 'msg_y', content: 'not a list' }).response.content).toEqual([]);
  });
});

describe('malformed stream events', () => {
  it('never crash the parser', () => {
    const context = createTestContext({ stream: true });
    const { builder, events } = createRecordingBuilder();
    const parser = createStreamParser(context, builder);
    for (const payload of [
      { type: 'message_start', message: null },
      { type: 'content_block_start', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: null },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'fine' } },
      { type: 'content_block_stop' },
      { type: 'content_block_stop', index: 1 },
      { type: 'message_delta', delta: null, usage: 'many' },
      { type: 'message_stop' },
    ])
      parser.onEvent(undefined, JSON.stringify(payload));
    parser.onEnd();
    const response = builder.finish();
    assertStreamInvariants(events);
    expect(response.content).toEqual([{ type: 'text', text: 'fine' }]);
    expect(context.logger.entries.length).toBeGreaterThan(0);
  });
});
