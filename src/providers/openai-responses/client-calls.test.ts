/**
 * Built-in calls the client runs (apply_patch, local shell, shell without a container, client tool
 * search), read from the recordings: tool calls that finish the reply `tool-call`, whole and streamed.
 */
import { basename } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRecorded, readRecorded } from '../../../test/support/fixtures.ts';
import { silentLogger } from '../../core/logger.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { collectStream, userRequest } from '../openai-chat/test-support.ts';
import { assertStreamInvariants } from '../../testing/index.ts';
import type { JsonValue } from '../../core/json.ts';
import type { Item, ToolOutput } from '../../core/transcript.ts';
import { clientCallOf } from '../../core/responses-client-calls.ts';
import { createOpenAIResponses, type OpenAIResponsesOptions } from './index.ts';

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator.close();
});

const adapter = () =>
  createOpenAIResponses({
    apiKey: 'test-key',
    baseURL: `${emulator.url}/v1`,
    maxRetries: 0,
    logger: silentLogger,
  });

const file = (name: string) =>
  listRecorded('openai/responses').find((path) => basename(path) === name) as string;

/** The first response's output items of a recording, read without the adapter (a stream's done items). */
function recordedItems(path: string): Array<Record<string, unknown>> {
  const raw = readRecorded(path);
  if (path.endsWith('.json')) return JSON.parse(raw).output;
  const items: Array<Record<string, unknown>> = [];
  for (const line of raw.split('\n')) {
    if (line.trim() === '') continue;
    const event = JSON.parse(line);
    if (event.type === 'response.output_item.done') items[event.output_index] = event.item;
    if (event.type === 'response.completed') break;
  }
  return items;
}

/** Recording → the tool the call names, its call id, and the item field that is its input. */
const clientCalls: Array<[string, string, string, string]> = [
  ['openai-apply-patch-tool.1.json', 'apply_patch', 'call_CdXiGtcRl49Q6Ek20tG9lYOr', 'operation'],
  ['openai-apply-patch-tool.1.chunks.txt', 'apply_patch', 'call_kA46f91ZwocQyMCKyyZqRyC5', 'operation'],
  ['openai-apply-patch-tool-delete.1.chunks.txt', 'apply_patch', 'call_delete_1', 'operation'],
  ['openai-local-shell-tool.1.json', 'local_shell', 'call_XWgeTylovOiS8xLNz2TONOgO', 'action'],
  ['openai-local-shell-tool.1.chunks.txt', 'local_shell', 'call_h3nm8hUG0KO9tVNuRACkL1ri', 'action'],
  ['openai-shell-tool.1.json', 'shell', 'call_udkLUvR8lWvG8cDO2B6GNpvZ', 'action'],
  ['openai-shell-tool.1.chunks.txt', 'shell', 'call_pbxjNs1tMJUahLZKAS9qLtvw', 'action'],
  ['openai-client-tool-search.1.json', 'tool_search', 'call_AEvXZ1rvYpxHh8QZb7wGlTGH', 'arguments'],
  // Announced as call_NHis…, done as call_RWTI…: the done item's id is the call's.
  ['openai-client-tool-search.1.chunks.txt', 'tool_search', 'call_RWTIIVfxsJW9fecsg6fy23Dy', 'arguments'],
];

describe('client-executed built-in calls', () => {
  it.each(clientCalls)('%s: a %s tool call, finish tool-call', async (name, tool, callId, field) => {
    const path = file(name);
    const item = recordedItems(path).find((entry) => entry.call_id === callId)!;
    const session = adapter().startSession();
    emulator.enqueue({ type: 'replay', file: path });
    const request = userRequest('Hi', { model: 'openai:gpt-5.1' });
    const streamed = path.endsWith('.chunks.txt');
    const { response, events } = streamed
      ? await collectStream(adapter().stream(request, { session }))
      : { response: await adapter().complete(request, { session }), events: [] };
    const calls = response!.content.filter((part) => part.type === 'tool-call');
    expect(calls).toHaveLength(1);
    const call = calls[0]!;
    expect(call).toMatchObject({ name: tool, input: { [field]: item[field] } });
    expect(Object.keys(call.input)).toEqual([field]);
    expect(session.toolIds.toProvider('openai', call.id)).toBe(callId);
    expect(call.metadata).toEqual({ 'openai.item': item, 'openai.item_id': item.id });
    expect(response!.content.some((part) => part.type === 'custom')).toBe(false);
    expect(response).toMatchObject({ finishReason: 'tool-call', rawFinishReason: 'completed' });
    if (!streamed) return;
    assertStreamInvariants(events);
    const start = events.find((event) => event.type === 'tool-call-start' && event.id === call.id);
    const own = events.filter(
      (event) =>
        (event.type === 'tool-call-start' ||
          event.type === 'tool-call-delta' ||
          event.type === 'tool-call-end') &&
        start?.type === 'tool-call-start' &&
        event.index === start.index,
    );
    expect(own.map((event) => event.type)).toEqual(['tool-call-start', 'tool-call-delta', 'tool-call-end']);
    expect(own[0]).toMatchObject({ id: call.id, name: tool, metadata: { 'openai.item': item } });
    expect(own[2]).toMatchObject({ input: call.input, metadata: call.metadata });
  });

  it.each([
    ['openai-shell-container.1.json', 'shell_call'],
    ['openai-shell-container.1.chunks.txt', 'shell_call'],
    ['openai-tool-search.1.json', 'tool_search_call'],
    ['openai-tool-search.1.chunks.txt', 'tool_search_call'],
  ])('%s: the server ran the %s, which stays a custom part', async (name, kind) => {
    const path = file(name);
    emulator.enqueue({ type: 'replay', file: path });
    const request = userRequest('Hi', { model: 'openai:gpt-5.1' });
    const { response } = path.endsWith('.chunks.txt')
      ? await collectStream(adapter().stream(request))
      : { response: await adapter().complete(request) };
    const custom = response!.content.find((part) => part.type === 'custom' && part.kind === kind);
    expect(custom).toBeDefined();
    expect(
      response!.content.filter((part) => part.type === 'tool-call').map((part) => part.name),
    ).not.toContain(kind === 'shell_call' ? 'shell' : 'tool_search');
  });
});

const textAnswer = {
  id: 'resp_next',
  object: 'response',
  status: 'completed',
  model: 'gpt-5.1',
  output: [
    { id: 'msg_next', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] },
  ],
  usage: { input_tokens: 30, output_tokens: 3 },
};

/** Decodes a recording, answers its call with `output`, and returns the `input` of the next request as sent. */
async function nextInput(
  name: string,
  output: ToolOutput,
  isError = false,
  options: Partial<OpenAIResponsesOptions> = {},
): Promise<unknown[]> {
  const responses = createOpenAIResponses({
    apiKey: 'test-key',
    baseURL: `${emulator.url}/v1`,
    maxRetries: 0,
    logger: silentLogger,
    ...options,
  });
  const session = responses.startSession();
  emulator.enqueue({ type: 'replay', file: file(name) });
  const opening: Item[] = [{ kind: 'user', parts: [{ type: 'text', text: 'Go.' }] }];
  const first = await responses.complete(
    { model: 'openai:gpt-5.1', transcript: opening, maxOutputTokens: 256 },
    { session },
  );
  const call = first.content.find((part) => part.type === 'tool-call')!;
  const transcript: Item[] = [
    ...opening,
    { kind: 'assistant', parts: first.content },
    { kind: 'tool', parts: [{ type: 'tool-result', callId: call.id as never, output, isError }] },
  ];
  const before = emulator.requests.length;
  emulator.enqueue({ type: 'json', body: textAnswer });
  await responses.complete({ model: 'openai:gpt-5.1', transcript, maxOutputTokens: 256 }, { session });
  return (emulator.requests[before]!.body as { input: unknown[] }).input;
}

const text = (value: string): ToolOutput => ({ type: 'text', text: value });

describe('client-executed calls go back as their own items, answered by their output items', () => {
  it('apply_patch: the call verbatim, then apply_patch_call_output (completed; failed for an error)', async () => {
    const item = recordedItems(file('openai-apply-patch-tool.1.json'))[0];
    const input = await nextInput('openai-apply-patch-tool.1.json', text('Created shopping-checklist.md'));
    expect(input.slice(1)).toEqual([
      item,
      {
        type: 'apply_patch_call_output',
        call_id: 'call_CdXiGtcRl49Q6Ek20tG9lYOr',
        status: 'completed',
        output: 'Created shopping-checklist.md',
      },
    ]);
    const failed = await nextInput('openai-apply-patch-tool.1.json', text('no such directory'), true);
    expect(failed.at(-1)).toMatchInlineSnapshot(`
      {
        "call_id": "call_CdXiGtcRl49Q6Ek20tG9lYOr",
        "output": "no such directory",
        "status": "failed",
        "type": "apply_patch_call_output",
      }
    `);
  });

  it('shell: text becomes stdout with exit 0 (1 for an error); a JSON array of outcomes goes as it is', async () => {
    const item = recordedItems(file('openai-shell-tool.1.json'))[0];
    const input = await nextInput('openai-shell-tool.1.json', text('/Users/me'));
    expect(input.slice(1)).toEqual([
      item,
      {
        type: 'shell_call_output',
        call_id: 'call_udkLUvR8lWvG8cDO2B6GNpvZ',
        output: [{ stdout: '/Users/me', stderr: '', outcome: { type: 'exit', exit_code: 0 } }],
        max_output_length: 9907,
      },
    ]);
    const outcomes: JsonValue[] = [
      { stdout: '', stderr: 'boom', outcome: { type: 'exit', exit_code: 2 } },
      { stdout: '', stderr: '', outcome: { type: 'timeout' } },
    ];
    const json = await nextInput('openai-shell-tool.1.json', { type: 'json', value: outcomes });
    expect(json.at(-1)).toMatchObject({ type: 'shell_call_output', output: outcomes });
    const failed = await nextInput('openai-shell-tool.1.json', text('denied'), true);
    expect(failed.at(-1)).toMatchObject({ output: [{ stdout: 'denied', outcome: { exit_code: 1 } }] });
  });

  it('local_shell: the call verbatim (without its id: its reasoning had no encrypted_content), then local_shell_call_output', async () => {
    const items = recordedItems(file('openai-local-shell-tool.1.json'));
    const input = await nextInput('openai-local-shell-tool.1.json', text('a.txt\nb.txt'));
    const { id: _, ...call } = items[1]!;
    expect(input.slice(1)).toEqual([
      call,
      { type: 'local_shell_call_output', call_id: 'call_XWgeTylovOiS8xLNz2TONOgO', output: 'a.txt\nb.txt' },
    ]);
  });

  it('tool_search: the call verbatim, then tool_search_output with the tools the result lists', async () => {
    const item = recordedItems(file('openai-client-tool-search.1.json'))[0];
    const tools = [{ type: 'function', name: 'get_weather', parameters: { type: 'object' } }];
    const input = await nextInput('openai-client-tool-search.1.json', { type: 'json', value: { tools } });
    expect(input.slice(1)).toEqual([
      item,
      {
        type: 'tool_search_output',
        call_id: 'call_AEvXZ1rvYpxHh8QZb7wGlTGH',
        execution: 'client',
        status: 'completed',
        tools,
      },
    ]);
  });

  it('previous-response state: only the output item is sent, still as its own type', async () => {
    const input = await nextInput('openai-apply-patch-tool.1.json', text('ok'), false, {
      state: 'previous-response',
    });
    expect(input).toEqual([
      {
        type: 'apply_patch_call_output',
        call_id: 'call_CdXiGtcRl49Q6Ek20tG9lYOr',
        status: 'completed',
        output: 'ok',
      },
    ]);
  });

  it('a call named apply_patch without its item (another provider’s) is an ordinary function call', async () => {
    const responses = adapter();
    const transcript: Item[] = [
      { kind: 'user', parts: [{ type: 'text', text: 'Go.' }] },
      {
        kind: 'assistant',
        parts: [
          {
            type: 'tool-call',
            id: 'tu_foreign' as never,
            name: 'apply_patch',
            input: { operation: { path: 'a' } },
          },
        ],
      },
      {
        kind: 'tool',
        parts: [{ type: 'tool-result', callId: 'tu_foreign' as never, output: text('ok'), isError: false }],
      },
    ];
    const before = emulator.requests.length;
    emulator.enqueue({ type: 'json', body: textAnswer });
    await responses.complete({ model: 'openai:gpt-5.1', transcript, maxOutputTokens: 256 });
    const input = (emulator.requests[before]!.body as { input: Array<Record<string, unknown>> }).input;
    expect(input.slice(1).map((entry) => entry.type)).toEqual(['function_call', 'function_call_output']);
    expect(input[1]).toMatchObject({ name: 'apply_patch', arguments: '{"operation":{"path":"a"}}' });
    expect(input[2]).toMatchObject({ call_id: input[1]!.call_id, output: 'ok' });
  });
});

describe('clientCallOf', () => {
  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'an upstream item of type %s (an Object.prototype name) is no call',
    (type) => {
      expect(clientCallOf({ type, id: 'x_1', call_id: 'c1' })).toBeUndefined();
    },
  );
});
