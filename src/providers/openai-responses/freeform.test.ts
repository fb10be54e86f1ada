/**
 * Freeform tools (`ToolSpec.freeform`, OpenAI's `custom` tools): sent as `custom` tools where the
 * host takes them (OpenAI, Azure) and as the function of one string `input` elsewhere (xAI, Open
 * Responses servers); a `custom_tool_call` to one is a tool call whose input is `{ input: text }`,
 * and the response finishes `tool-call`. A `custom_tool_call` the request did not declare (xAI runs
 * its own `x_search` as one) stays a custom part, as before. The call and its result go back as
 * `custom_tool_call` and `custom_tool_call_output` items.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordedDir } from '../../../test/support/fixtures.ts';
import { silentLogger } from '../../core/logger.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { freeformTool } from '../../core/tools.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { replayRecorded, userRequest } from '../openai-chat/test-support.ts';
import { createOpenAIResponses, createXaiResponses } from './index.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.close());

const fast = { apiKey: 'test-key', maxRetries: 0, logger: silentLogger };
const openai = () => createOpenAIResponses({ ...fast, baseURL: `${emulator.url}/v1` });
const xai = () => createXaiResponses({ ...fast, baseURL: `${emulator.url}/v1` });
const writeSql = freeformTool('write_sql', 'Write a SQL SELECT query.', {
  type: 'grammar',
  syntax: 'regex',
  definition: 'SELECT .+',
});
const recorded = (name: string) => join(recordedDir, 'openai/responses', name);
const withTool = (model: string, extra: Partial<CanonicalRequest> = {}) =>
  userRequest('Users over 25?', { model, tools: [writeSql], ...extra });

/**
 * The recorded custom call, then the body of a next turn holding it and its result: `request` is
 * the next turn's start (the call and result are appended), `extra` items follow them.
 */
async function nextTurnBody(request: CanonicalRequest, ...extra: CanonicalRequest['transcript']) {
  const first = await replayRecorded(
    emulator,
    openai(),
    recorded('openai-custom-tool.1.json'),
    withTool(model),
  );
  const call = first.response!.content[0]!;
  if (call.type !== 'tool-call') throw new Error('expected a tool call');
  request.transcript.push(
    { kind: 'assistant', parts: [call] },
    {
      kind: 'tool',
      parts: [
        { type: 'tool-result', callId: call.id, output: { type: 'text', text: '3 rows' }, isError: false },
      ],
    },
    ...extra,
  );
  const next = await replayRecorded(emulator, openai(), recorded('openai-custom-tool.1.json'), request);
  return next.body.input as Array<Record<string, unknown>>;
}
const model = 'openai:gpt-5.2-codex';

describe('Responses freeform tools', () => {
  it('OpenAI gets a custom tool with its format (and a custom tool_choice); xAI the function of one string input', async () => {
    const first = await replayRecorded(
      emulator,
      openai(),
      recorded('openai-custom-tool.1.json'),
      withTool('openai:gpt-5.2-codex', { toolChoice: { type: 'tool', name: 'write_sql' } }),
    );
    expect(first.body.tools).toEqual([
      {
        type: 'custom',
        name: 'write_sql',
        description: 'Write a SQL SELECT query.',
        format: { type: 'grammar', syntax: 'regex', definition: 'SELECT .+' },
      },
    ]);
    expect(first.body.tool_choice).toEqual({ type: 'custom', name: 'write_sql' });
    const second = await replayRecorded(
      emulator,
      xai(),
      recorded('openai-custom-tool.1.json'),
      withTool('xai:grok-4', { toolChoice: { type: 'tool', name: 'write_sql' } }),
    );
    expect(second.body.tools).toEqual([
      expect.objectContaining({ type: 'function', name: 'write_sql', parameters: writeSql.inputSchema }),
    ]);
    expect(second.body.tool_choice).toEqual({ type: 'function', name: 'write_sql' });
  });

  it.each(['openai-custom-tool.1.json', 'openai-custom-tool.1.chunks.txt'])(
    'recorded %s: a call to the declared freeform tool is a tool call of {input: text}, finishing tool-call',
    async (file) => {
      const { response, error } = await replayRecorded(
        emulator,
        openai(),
        recorded(file),
        withTool('openai:gpt-5.2-codex'),
      );
      expect(error).toBeUndefined();
      expect(response!.content).toEqual([
        expect.objectContaining({
          type: 'tool-call',
          name: 'write_sql',
          input: { input: 'SELECT * FROM users WHERE age > 25' },
        }),
      ]);
      expect(response!.finishReason).toBe('tool-call');
    },
  );

  it('a custom_tool_call the request did not declare stays a custom part (the host ran it)', async () => {
    const { response } = await replayRecorded(
      emulator,
      openai(),
      recorded('openai-custom-tool.1.json'),
      userRequest('Users over 25?', { model: 'openai:gpt-5.2-codex' }),
    );
    expect(response!.content).toEqual([
      expect.objectContaining({ type: 'custom', kind: 'custom_tool_call', provider: 'openai' }),
    ]);
    expect(response!.finishReason).toBe('completed');
  });

  it('the call and its result go back as custom_tool_call and custom_tool_call_output items', async () => {
    const [sentCall, sentResult] = (await nextTurnBody(withTool(model))).slice(-2);
    expect(sentCall).toEqual({
      type: 'custom_tool_call',
      call_id: expect.any(String),
      name: 'write_sql',
      input: 'SELECT * FROM users WHERE age > 25',
      id: 'ct_abc123def456',
    });
    expect(sentResult).toEqual({
      type: 'custom_tool_call_output',
      call_id: sentCall!.call_id,
      output: '3 rows',
    });
  });

  it('a later turn that no longer declares the tool still sends OpenAI’s own custom call back as one (OpenAI checks the ct_ id)', async () => {
    const items = await nextTurnBody(userRequest('Users over 25?', { model }), {
      kind: 'user',
      parts: [{ type: 'text', text: 'Summarise.' }],
    });
    expect(items.map((item) => item.type)).toEqual([
      'message',
      'custom_tool_call',
      'custom_tool_call_output',
      'message',
    ]);
    expect(items[1]).toMatchObject({ id: 'ct_abc123def456', input: 'SELECT * FROM users WHERE age > 25' });
  });
});
