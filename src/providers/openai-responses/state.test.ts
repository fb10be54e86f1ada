import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AdapterSession } from '../../core/adapter.ts';
import { isInvalidRequestError } from '../../core/errors/guards.ts';
import { createMemoryLogger } from '../../core/logger.ts';
import type { CanonicalResponse } from '../../core/request.ts';
import type { Item } from '../../core/transcript.ts';
import { collectStream } from '../../testing/collect.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { fixture } from '../../testing/emulator/test-support.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { createAnthropic } from '../anthropic/index.ts';
import { createOpenAIResponses } from './index.ts';
import type { ResponsesStateMode } from './options.ts';

let emulator: Emulator;
let logger: ReturnType<typeof createMemoryLogger>;

beforeAll(async () => {
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator.close();
});

beforeEach(() => {
  logger = createMemoryLogger();
});

const tools = [
  { name: 'weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } },
];

function adapter(state?: ResponsesStateMode) {
  const options = { apiKey: 'test-key', baseURL: `${emulator.url}/v1`, maxRetries: 0, logger };
  return createOpenAIResponses(state === undefined ? options : { ...options, state });
}

const user = (text: string): Item => ({ kind: 'user', parts: [{ type: 'text', text }] });
const assistant = (response: CanonicalResponse): Item => ({ kind: 'assistant', parts: response.content });
const toolResult = (response: CanonicalResponse, text: string): Item => {
  const call = response.content.find((part) => part.type === 'tool-call');
  if (call?.type !== 'tool-call') throw new Error('no tool call');
  return {
    kind: 'tool',
    parts: [{ type: 'tool-result', callId: call.id, output: { type: 'text', text }, isError: false }],
  };
};

function scriptToolTurn() {
  emulator.enqueue({
    type: 'scripted',
    content: [
      { type: 'reasoning', text: 'The weather tool knows.' },
      { type: 'tool-call', name: 'weather', input: { city: 'Rome' } },
    ],
  });
}

function scriptText(text: string) {
  emulator.enqueue({
    type: 'scripted',
    content: [
      { type: 'reasoning', text: 'Easy.' },
      { type: 'text', text },
    ],
  });
}

/** Runs one turn; returns the response and the body the adapter sent. */
async function turn(
  target: ReturnType<typeof adapter>,
  session: AdapterSession,
  transcript: Item[],
): Promise<{ response: CanonicalResponse; body: Record<string, unknown> }> {
  const before = emulator.requests.length;
  const response = await target.complete(
    { model: 'openai:gpt-5-mini', transcript, tools, maxOutputTokens: 256 },
    { session },
  );
  return { response, body: emulator.requests[before]!.body as Record<string, unknown> };
}

const inputTypes = (body: Record<string, unknown>) =>
  (body.input as Array<{ type: string }>).map((item) => item.type);

describe('stateless (default)', () => {
  it('replays the whole transcript with store: false, reasoning carried as encrypted_content', async () => {
    const openai = adapter();
    const session = openai.startSession();
    const transcript = [user('Weather in Rome?')];
    scriptToolTurn();
    const first = await turn(openai, session, transcript);
    expect(first.body).toMatchObject({ store: false, include: ['reasoning.encrypted_content'] });
    transcript.push(assistant(first.response), toolResult(first.response, 'sunny'));
    scriptText('Sunny in Rome.');
    const second = await turn(openai, session, transcript);
    expect(second.body.previous_response_id).toBeUndefined();
    expect(inputTypes(second.body)).toEqual([
      'message',
      'reasoning',
      'function_call',
      'function_call_output',
    ]);
    const reasoning = (second.body.input as Array<Record<string, unknown>>)[1];
    expect(reasoning).toMatchObject({
      type: 'reasoning',
      id: expect.stringMatching(/^rs_/),
      encrypted_content: expect.stringMatching(/^gAAAA/),
    });
    expect(second.response.content.at(-1)).toMatchObject({ type: 'text', text: 'Sunny in Rome.' });
  });

  it('drops reasoning it cannot send (no encrypted_content; nothing after it) with a WARN, and the emulator accepts', async () => {
    const openai = adapter();
    const transcript: Item[] = [
      user('Hi'),
      {
        kind: 'assistant',
        parts: [
          {
            type: 'reasoning',
            text: 'no payload',
            provider: 'openai',
            metadata: { 'openai.item_id': 'rs_1' },
          },
          { type: 'text', text: 'Hello', metadata: { 'openai.item_id': 'msg_1' } },
        ],
      },
      user('Think'),
      {
        kind: 'assistant',
        parts: [
          {
            type: 'reasoning',
            text: 'cut',
            data: 'gAAAA',
            provider: 'openai',
            metadata: { 'openai.item_id': 'rs_2' },
          },
        ],
      },
      user('Again'),
    ];
    scriptText('ok');
    const { body } = await turn(openai, openai.startSession(), transcript);
    expect(inputTypes(body)).toEqual(['message', 'message', 'message', 'message']);
    expect(logger.entries.map((entry) => entry.fields.reason)).toEqual([
      'reasoning without encrypted_content cannot be replayed when nothing is stored',
      'reasoning without the item that followed it',
    ]);
  });

  it("sends another provider's msg_ ids nowhere: only its own item ids go back", async () => {
    const openai = adapter();
    const transcript: Item[] = [
      user('a'),
      {
        kind: 'assistant',
        parts: [{ type: 'text', text: 'from xai', metadata: { 'xai.item_id': 'msg_same' } }],
      },
      user('b'),
      {
        kind: 'assistant',
        parts: [{ type: 'text', text: 'from openai', metadata: { 'openai.item_id': 'msg_same' } }],
      },
      user('c'),
    ];
    scriptText('ok');
    const { body } = await turn(openai, openai.startSession(), transcript);
    const ids = (body.input as Array<{ id?: string }>).map((item) => item.id);
    expect(ids).toEqual([undefined, undefined, undefined, 'msg_same', undefined]);
  });
});

describe('stateful: previous-response', () => {
  it('sends only the new items after the first turn, never a replayed one', async () => {
    const openai = adapter('previous-response');
    const session = openai.startSession();
    const transcript = [user('Weather in Rome?')];
    scriptToolTurn();
    const first = await turn(openai, session, transcript);
    expect(first.body).toMatchObject({ store: true });
    expect(first.body.previous_response_id).toBeUndefined();
    transcript.push(assistant(first.response), toolResult(first.response, 'sunny'));
    scriptText('Sunny.');
    const second = await turn(openai, session, transcript);
    expect(second.body).toMatchObject({ store: true, previous_response_id: first.response.responseId });
    expect(inputTypes(second.body)).toEqual(['function_call_output']);
    transcript.push(assistant(second.response), user('And Paris?'));
    scriptText('Also sunny.');
    const third = await turn(openai, session, transcript);
    expect(third.body.previous_response_id).toBe(second.response.responseId);
    expect(third.body.input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'And Paris?' }] },
    ]);
  });

  it('a developer message after the conversation began goes in place in the new input; instructions stay the leading ones', async () => {
    const openai = adapter('previous-response');
    const session = openai.startSession();
    const system: Item = { kind: 'system', parts: [{ type: 'text', text: 'Be terse.' }] };
    const transcript = [system, user('Hi')];
    scriptText('Hello.');
    const first = await turn(openai, session, transcript);
    expect(first.body.instructions).toBe('Be terse.');
    const late: Item = { kind: 'developer', parts: [{ type: 'text', text: 'Answer in French.' }] };
    transcript.push(assistant(first.response), late, user('How are you?'));
    scriptText('Bien.');
    const second = await turn(openai, session, transcript);
    expect(second.body.previous_response_id).toBe(first.response.responseId);
    expect(second.body.instructions).toBe('Be terse.');
    expect(second.body.input).toEqual([
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Answer in French.' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'How are you?' }] },
    ]);
  });

  it('falls back to one full replay when the history was edited, then chains from it', async () => {
    const openai = adapter('previous-response');
    const session = openai.startSession();
    scriptText('Hello.');
    const first = await turn(openai, session, [user('Hi')]);
    const edited = [user('Hi, edited'), assistant(first.response), user('Next')];
    scriptText('Sure.');
    const second = await turn(openai, session, edited);
    expect(second.body.previous_response_id).toBeUndefined();
    expect(inputTypes(second.body)).toEqual(['message', 'reasoning', 'message', 'message']);
    expect(logger.entries.map((entry) => entry.message)).toContain(
      'sent the whole transcript: it no longer extends what the server holds',
    );
    scriptText('Done.');
    const third = await turn(openai, session, [...edited, assistant(second.response), user('More')]);
    expect(third.body.previous_response_id).toBe(second.response.responseId);
    expect(inputTypes(third.body)).toEqual(['message']);
  });

  it('a turn served by another provider in between goes out as new items after what the server holds', async () => {
    const openai = adapter('previous-response');
    const anthropic = createAnthropic({
      apiKey: 'test-key',
      baseURL: `${emulator.url}/v1`,
      maxRetries: 0,
      logger,
    });
    const session = openai.startSession();
    scriptToolTurn();
    const first = await turn(openai, session, [user('Weather in Rome?')]);
    const transcript = [
      user('Weather in Rome?'),
      assistant(first.response),
      toolResult(first.response, 'sunny'),
    ];
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Sunny (from Claude).' }] });
    const elsewhere = await anthropic.complete(
      { model: 'anthropic:claude-sonnet-4-5', transcript, tools, maxOutputTokens: 256 },
      { session },
    );
    transcript.push(assistant(elsewhere), user('Thanks'));
    scriptText('You are welcome.');
    const back = await turn(openai, session, transcript);
    // The transcript still extends what the server holds: the foreign turn is just newer input.
    expect(back.body.previous_response_id).toBe(first.response.responseId);
    expect(inputTypes(back.body)).toEqual(['function_call_output', 'message', 'message']);
    expect((back.body.input as Array<{ role?: string }>)[1]?.role).toBe('assistant');
  });

  it('a Responses turn served by another session in between (edited prefix) falls back to a full replay', async () => {
    const openai = adapter('previous-response');
    const session = openai.startSession();
    scriptToolTurn();
    const first = await turn(openai, session, [user('Weather in Rome?')]);
    const other = adapter('previous-response');
    const transcript = [
      user('Weather in Rome?'),
      assistant(first.response),
      toolResult(first.response, 'sunny'),
    ];
    scriptText('Sunny (elsewhere).');
    const elsewhere = await turn(other, other.startSession(), transcript);
    // The other session answered with its own output; this session's server state is now behind a
    // turn whose items it never stored, and the first assistant item was rewritten by the caller.
    const rewritten = [
      user('Weather in Rome?'),
      { kind: 'assistant' as const, parts: first.response.content.slice(1) },
    ];
    transcript.splice(0, 2, ...rewritten);
    transcript.push(assistant(elsewhere.response), user('Thanks'));
    scriptText('Welcome.');
    const back = await turn(openai, session, transcript);
    expect(back.body.previous_response_id).toBeUndefined();
    expect(inputTypes(back.body)).toEqual([
      'message',
      'function_call',
      'function_call_output',
      'reasoning',
      'message',
      'message',
    ]);
  });

  it('a failed turn leaves the server state as it was: the retry continues the chain', async () => {
    const openai = adapter('previous-response');
    const session = openai.startSession();
    scriptText('Hello.');
    const first = await turn(openai, session, [user('Hi')]);
    const transcript = [user('Hi'), assistant(first.response), user('Next')];
    emulator.enqueue({
      type: 'json',
      status: 400,
      body: { error: { message: 'bad', type: 'invalid_request_error', param: null, code: null } },
    });
    await expect(turn(openai, session, transcript)).rejects.toSatisfy(isInvalidRequestError);
    scriptText('Retried.');
    const retry = await turn(openai, session, transcript);
    expect(retry.body.previous_response_id).toBe(first.response.responseId);
    expect(inputTypes(retry.body)).toEqual(['message']);
  });

  it('after a tool approval round only the approval goes out (no duplicate mcpr_ item)', async () => {
    const openai = adapter('previous-response');
    const session = openai.startSession();
    emulator.enqueue({ type: 'replay', file: fixture('openai/responses/openai-mcp-tool-approval.1.json') });
    const first = await turn(openai, session, [user('Roll 2d4+1')]);
    const request = first.response.content.find(
      (part) => part.type === 'custom' && part.kind === 'mcp_approval_request',
    );
    const requestId = (request as unknown as { data: { id: string } }).data.id;
    const approval: Item = {
      kind: 'user',
      parts: [
        {
          type: 'custom',
          provider: 'openai',
          kind: 'mcp_approval_response',
          data: { type: 'mcp_approval_response', approve: true, approval_request_id: requestId },
        },
      ],
    };
    scriptText('You rolled 7.');
    const second = await turn(openai, session, [user('Roll 2d4+1'), assistant(first.response), approval]);
    expect(second.body).toMatchObject({ previous_response_id: first.response.responseId });
    expect(inputTypes(second.body)).toEqual(['mcp_approval_response']);
  });
});

describe('stateful: conversation', () => {
  it('adds only new items to the conversation; after an edit, full stateless replays for good', async () => {
    const openai = adapter({ conversation: 'conv_42' });
    const session = openai.startSession();
    scriptText('Hello.');
    const first = await turn(openai, session, [user('Hi')]);
    expect(first.body).toMatchObject({ conversation: 'conv_42', store: true });
    const transcript = [user('Hi'), assistant(first.response), user('Next')];
    scriptText('Next.');
    const second = await turn(openai, session, transcript);
    expect(second.body).toMatchObject({ conversation: 'conv_42' });
    expect(inputTypes(second.body)).toEqual(['message']);
    const edited = [user('Hi, edited'), ...transcript.slice(1), assistant(second.response), user('More')];
    scriptText('More.');
    const third = await turn(openai, session, edited);
    expect(third.body.conversation).toBeUndefined();
    expect(third.body.store).toBe(false);
    scriptText('Still stateless.');
    const fourth = await turn(openai, session, [...edited, assistant(third.response), user('Again')]);
    expect(fourth.body).toMatchObject({ store: false });
    expect(fourth.body.conversation).toBeUndefined();
  });
});

describe('honest endings', () => {
  const event = (data: Record<string, unknown>) => ({ event: String(data.type), data });
  const message = { id: 'msg_1', type: 'message', role: 'assistant', content: [] };
  const delta = (text: string) =>
    event({
      type: 'response.output_text.delta',
      output_index: 0,
      content_index: 0,
      item_id: 'msg_1',
      delta: text,
    });
  const done = event({
    type: 'response.output_item.done',
    output_index: 0,
    item: { ...message, content: [{ type: 'output_text', text: 'Hello world', annotations: [] }] },
  });
  const completed = event({
    type: 'response.completed',
    response: { id: 'resp_1', model: 'gpt-5-mini', status: 'completed', output: [] },
  });
  const created = event({
    type: 'response.created',
    response: { id: 'resp_1', model: 'gpt-5-mini', status: 'in_progress', output: [] },
  });
  const added = (type = 'message') =>
    event({ type: 'response.output_item.added', output_index: 0, item: { ...message, type } });

  it.each([
    ['announced twice', [created, added(), delta('Hello'), added(), delta(' world'), done, completed]],
    ['a delta before its announcement', [created, delta('Hello'), added(), delta(' world'), done, completed]],
  ])('an output item %s: its text is given once', async (_, events) => {
    emulator.enqueue({ type: 'sse', events });
    const { response, error } = await collectStream(
      adapter().stream({ model: 'openai:gpt-5-mini', transcript: [user('Hi')], maxOutputTokens: 64 }),
    );
    expect(error).toBeUndefined();
    expect(response?.content).toMatchObject([{ type: 'text', text: 'Hello world' }]);
  });

  const failed = event({
    type: 'response.failed',
    response: {
      id: 'resp_1',
      model: 'gpt-5-mini',
      status: 'failed',
      output: [],
      error: { code: 'server_error', message: 'The model failed.' },
    },
  });
  it.each([
    ['before any content', [created, failed], ''],
    ['after some text', [created, added(), delta('Hel'), failed], 'Hel'],
  ])('response.failed %s is a classified failure, never a complete end', async (_, events, kept) => {
    emulator.enqueue({ type: 'sse', events });
    const { events: seen, error } = await collectStream(
      adapter().stream({ model: 'openai:gpt-5-mini', transcript: [user('Hi')], maxOutputTokens: 64 }),
    );
    expect(error).toMatchObject({ errorClass: 'server_error' });
    const finish = seen.at(-1) as { type: string; response: { finishReason: string; content: unknown[] } };
    expect(finish.response.finishReason).toBe('error');
    if (kept !== '') expect(finish.response.content).toMatchObject([{ type: 'text', text: kept }]);
  });

  it('function-call arguments for an item never announced: the done item’s arguments are used', async () => {
    const call = { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'weather' };
    emulator.enqueue({
      type: 'sse',
      events: [
        created,
        event({
          type: 'response.function_call_arguments.delta',
          output_index: 0,
          item_id: 'fc_1',
          delta: '{"ci',
        }),
        event({
          type: 'response.output_item.done',
          output_index: 0,
          item: { ...call, arguments: '{"city":"Paris"}' },
        }),
        completed,
      ],
    });
    const { response, error } = await collectStream(
      adapter().stream({ model: 'openai:gpt-5-mini', transcript: [user('Hi')], maxOutputTokens: 64 }),
    );
    expect(error).toBeUndefined();
    expect(response?.content).toMatchObject([
      { type: 'tool-call', name: 'weather', input: { city: 'Paris' } },
    ]);
  });

  it('an output item announced again as another type is a classified error, the text so far kept', async () => {
    emulator.enqueue({
      type: 'sse',
      events: [created, added(), delta('Hello'), added('function_call'), completed],
    });
    const { events, error } = await collectStream(
      adapter().stream({ model: 'openai:gpt-5-mini', transcript: [user('Hi')], maxOutputTokens: 64 }),
    );
    expect(error).toMatchObject({ errorClass: 'server_error' });
    expect(events.at(-1)).toMatchObject({
      type: 'finish',
      response: { finishReason: 'error', content: [{ type: 'text', text: 'Hello' }] },
    });
  });

  it('a stream without response.completed ends with error stream_truncated, content kept', async () => {
    const openai = adapter();
    emulator.enqueue({
      type: 'sse',
      events: [
        {
          event: 'response.created',
          data: {
            type: 'response.created',
            response: { id: 'resp_cut', model: 'gpt-5-mini', status: 'in_progress', output: [] },
          },
        },
        {
          event: 'response.output_item.added',
          data: {
            type: 'response.output_item.added',
            output_index: 0,
            item: { id: 'msg_cut', type: 'message', role: 'assistant', content: [] },
          },
        },
        {
          event: 'response.output_text.delta',
          data: {
            type: 'response.output_text.delta',
            output_index: 0,
            content_index: 0,
            item_id: 'msg_cut',
            delta: 'Half a sent',
          },
        },
      ],
    });
    const { events, response, error } = await collectStream(
      openai.stream({ model: 'openai:gpt-5-mini', transcript: [user('Hi')], maxOutputTokens: 64 }),
    );
    assertStreamInvariants(events);
    expect(error).toMatchObject({ errorClass: 'network', providerCode: 'stream_truncated', retryable: true });
    const finish = events.at(-1);
    expect(finish).toMatchObject({
      type: 'finish',
      response: { finishReason: 'error', content: [{ type: 'text', text: 'Half a sent' }] },
    });
    expect(response?.finishReason).toBe('error');
  });
});
