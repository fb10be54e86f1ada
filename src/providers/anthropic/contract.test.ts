/** Anthropic's per-adapter contract tests (docs/contract.md §10.1), over the emulator; the shared cases run in the conformance suite. */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AdapterSession, createSession } from '../../core/adapter.ts';
import type { ErrorClass } from '../../core/errors/error-class.ts';
import { isInvalidRequestError } from '../../core/errors/guards.ts';
import { toolCallId } from '../../core/ids.ts';
import type { JsonObject } from '../../core/json.ts';
import type { CanonicalRequest, CanonicalResponse } from '../../core/request.ts';
import type { Item } from '../../core/transcript.ts';
import {
  anthropicError,
  type Emulator,
  type EmulatorScript,
  startEmulator,
} from '../../testing/emulator/index.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { collect, createTestAdapter, fixture, partsOf, textRequest } from './test-support.ts';

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator.close();
});

afterEach(() => {
  emulator.requests.length = 0;
});

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

/** The response without the fields that change per run. */
function stable(response: CanonicalResponse): Omit<CanonicalResponse, 'requestId' | 'latencyMs'> {
  const { requestId: _requestId, latencyMs: _latencyMs, ...rest } = response;
  return rest;
}

const weatherTool = {
  name: 'get_weather',
  description: 'Current weather',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
};

const nestedInput: JsonObject = {
  text: 'naïve "quoted" \\ 🌍',
  integer: 42,
  negative: -7,
  float: 3.25,
  yes: true,
  no: false,
  nothing: null,
  list: [1, 'two', { three: [3] }, [], {}],
  nested: { deeper: { deepest: ['a', { b: null }] } },
};

function lastBody(): JsonObject {
  return emulator.requests.at(-1)?.body as JsonObject;
}

describe('per-adapter tests (docs/contract.md §10.1)', () => {
  it('1. round-trip canonical → wire → canonical', async () => {
    emulator.enqueue({ type: 'replay', file: fixture('anthropic-tool-no-args.json') });
    const session = createSession();
    const adapter = createTestAdapter(emulator);
    const request: CanonicalRequest = {
      model: 'anthropic:claude-3-opus-20240229',
      transcript: [
        { kind: 'system', parts: [{ type: 'text', text: 'You manage issues.' }] },
        { kind: 'user', parts: [{ type: 'text', text: 'Update the issue list.' }] },
      ],
      tools: [
        { name: 'updateIssueList', description: 'Refresh the issue list', inputSchema: { type: 'object' } },
      ],
      maxOutputTokens: 512,
    };
    const response = await adapter.complete(request, { session });
    expect(lastBody()).toEqual({
      model: 'claude-3-opus-20240229',
      max_tokens: 512,
      system: 'You manage issues.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Update the issue list.' }] }],
      tools: [
        { name: 'updateIssueList', description: 'Refresh the issue list', input_schema: { type: 'object' } },
      ],
    });
    const [call] = partsOf(response.content, 'tool-call');
    expect(stable(response)).toEqual({
      responseId: 'msg_01GCBaV8gyWAYgMVggRqZbuQ',
      model: 'anthropic:claude-3-opus-20240229',
      provider: 'anthropic',
      content: [
        {
          type: 'text',
          text: '<thinking>\nThe updateIssueList tool was provided in the list of available functions. The tool has no required parameters, so it can be called without any additional information needed from the user.\n</thinking>\n\nOkay, I will update the current issue list:',
        },
        { type: 'tool-call', id: call?.id, name: 'updateIssueList', input: {}, provider: 'anthropic' },
      ],
      finishReason: 'tool-call',
      rawFinishReason: 'tool_use',
      // The recording's `usage.service_tier`.
      usage: { input: 602, cacheRead: 0, cacheWrite: 0, output: 93, reasoning: 0, serviceTier: 'standard' },
    });

    // The response goes back as the next turn: the wire carries the original provider tool id.
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Done.' }] });
    const next = await adapter.complete(
      {
        ...request,
        transcript: [
          ...request.transcript,
          { kind: 'assistant', parts: response.content },
          {
            kind: 'tool',
            parts: [
              {
                type: 'tool-result',
                callId: call?.id ?? toolCallId(''),
                output: { type: 'text', text: 'updated' },
                isError: false,
              },
            ],
          },
        ],
      },
      { session },
    );
    expect(partsOf(next.content, 'text')[0]?.text).toBe('Done.');
    const messages = lastBody().messages as Array<{ content: JsonObject[] }>;
    expect(messages[1]?.content[1]).toEqual({
      type: 'tool_use',
      id: 'toolu_01LRmxn9vGM1d2DZSDBowdZ1',
      name: 'updateIssueList',
      input: {},
    });
    expect(messages[2]?.content[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_01LRmxn9vGM1d2DZSDBowdZ1',
      content: 'updated',
    });
  });

  it('2. tool call serialization', async () => {
    const call = toolCallId('tu_01JNESTED0000000000000000');
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'tool-call', name: 'record', input: nestedInput }],
      chunkSize: 5,
    });
    const adapter = createTestAdapter(emulator);
    const result = await collect(
      adapter.stream(
        textRequest('again', {
          transcript: [
            { kind: 'user', parts: [{ type: 'text', text: 'record it' }] },
            {
              kind: 'assistant',
              parts: [{ type: 'tool-call', id: call, name: 'record', input: nestedInput }],
            },
            {
              kind: 'tool',
              parts: [
                {
                  type: 'tool-result',
                  callId: call,
                  output: { type: 'json', value: nestedInput },
                  isError: false,
                },
              ],
            },
          ],
        }),
      ),
    );
    const messages = lastBody().messages as Array<{ content: JsonObject[] }>;
    expect(messages[1]?.content[0]).toEqual({
      type: 'tool_use',
      id: call,
      name: 'record',
      input: nestedInput,
    });
    expect(JSON.parse(messages[2]?.content[0]?.content as string)).toEqual(nestedInput);
    assertStreamInvariants(result.events);
    expect(partsOf(result.response?.content ?? [], 'tool-call')[0]?.input).toEqual(nestedInput);
  });

  it('3. tool id round-trip', async () => {
    const session: AdapterSession = createSession();
    const canonical = toolCallId('tu_01JROUNDTRIP0000000000000');
    const foreign = toolCallId('call_abc.def:ghi/jkl');
    const adapter = createTestAdapter(emulator);
    const transcript: Item[] = [
      { kind: 'user', parts: [{ type: 'text', text: 'go' }] },
      {
        kind: 'assistant',
        parts: [
          { type: 'tool-call', id: canonical, name: 'a', input: {} },
          { type: 'tool-call', id: foreign, name: 'b', input: {} },
        ],
      },
      {
        kind: 'tool',
        parts: [
          { type: 'tool-result', callId: canonical, output: { type: 'text', text: '1' }, isError: false },
          { type: 'tool-result', callId: foreign, output: { type: 'text', text: '2' }, isError: false },
        ],
      },
    ];
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
    await adapter.complete(textRequest('x', { transcript }), { session });
    const sent = (lastBody().messages as Array<{ content: Array<{ id: string }> }>)[1]?.content.map(
      (block) => block.id,
    );
    expect(sent).toEqual([canonical, 'call_abc_def_ghi_jkl']);
    // A response issuing calls with those same ids holds NEW calls: fresh canonical ids; from then
    // on the earlier calls get wire ids of their own (never two calls with one id in a session).
    emulator.enqueue({
      type: 'scripted',
      content: [
        { type: 'tool-call', id: sent?.[0], name: 'a', input: {} },
        { type: 'tool-call', id: sent?.[1], name: 'b', input: {} },
        { type: 'tool-call', id: 'toolu_01NEWCALL', name: 'c', input: {} },
      ],
    });
    const response = await adapter.complete(textRequest('x', { transcript }), { session });
    const ids = partsOf(response.content, 'tool-call').map((part) => part.id);
    for (const id of ids) expect(id).toMatch(/^tu_[0-9A-Z]{26}$/);
    expect(new Set([...ids, canonical, foreign]).size).toBe(5);
    expect(session.toolIds.toProvider('anthropic', ids[0] as string)).toBe(sent?.[0]);
    expect(session.toolIds.toProvider('anthropic', canonical)).not.toBe(sent?.[0]);
    expect(session.toolIds.toProvider('anthropic', ids[2] as string)).toBe('toolu_01NEWCALL');
  });

  it('4. system prompt placement', async () => {
    const adapter = createTestAdapter(emulator);
    const systems = async (instructions: Item[]) => {
      emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
      await adapter.complete(
        textRequest('x', {
          transcript: [...instructions, { kind: 'user', parts: [{ type: 'text', text: 'q' }] }],
        }),
      );
      return lastBody().system;
    };
    expect(await systems([])).toBeUndefined();
    expect(await systems([{ kind: 'system', parts: [{ type: 'text', text: '' }] }])).toBeUndefined();
    expect(await systems([{ kind: 'system', parts: [{ type: 'text', text: 'Be brief.' }] }])).toBe(
      'Be brief.',
    );
    expect(
      await systems([
        { kind: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
        { kind: 'developer', parts: [{ type: 'text', text: 'Use metric units.' }] },
        { kind: 'context', parts: [{ type: 'text', text: 'AGENTS.md: tabs.' }] },
      ]),
    ).toBe('Be brief.\n\nUse metric units.\n\nAGENTS.md: tabs.');
    expect((lastBody().messages as unknown[]).length).toBe(1);
  });

  it('5. capability declaration honesty', async () => {
    const adapter = createTestAdapter(emulator);
    const image: Item = {
      kind: 'user',
      parts: [
        { type: 'media', modality: 'image', mimeType: 'image/png', data: { type: 'base64', data: 'iVBO' } },
      ],
    };
    const pdf: Item = {
      kind: 'user',
      parts: [{ type: 'file', mimeType: 'application/pdf', data: { type: 'base64', data: 'JVBE' } }],
    };
    const audio: Item = {
      kind: 'user',
      parts: [
        { type: 'media', modality: 'audio', mimeType: 'audio/wav', data: { type: 'base64', data: 'UklG' } },
      ],
    };
    const refused: Array<[string, Partial<CanonicalRequest>, string]> = [
      ['images', { transcript: [image] }, 'claude-future-1'],
      ['pdf', { transcript: [pdf] }, 'claude-3-haiku-20240307'],
      ['reasoning', { reasoning: { effort: 'low' } }, 'claude-3-5-haiku-20241022'],
      ['structuredOutput', { outputSchema: { schema: { type: 'object' } } }, 'claude-sonnet-4-20250514'],
      ['audio', { transcript: [audio] }, 'claude-sonnet-4-5'],
    ];
    for (const [capability, overrides, model] of refused) {
      expect(adapter.capabilities(`anthropic:${model}`)[capability as 'images']).toBe(false);
      const error = await failure(
        adapter.complete(textRequest('x', { model: `anthropic:${model}`, ...overrides })),
      );
      expect(isInvalidRequestError(error)).toBe(true);
      expect(error).toMatchObject({ providerCode: 'unsupported_capability' });
      expect((error as Error).message).toContain(capability);
    }
    expect(emulator.requests).toHaveLength(0);
    // Where the table says yes, the same requests go through.
    for (const overrides of [
      { transcript: [image, pdf] },
      { reasoning: { effort: 'low' as const }, maxOutputTokens: 4096 },
      { outputSchema: { schema: { type: 'object' } } },
      { tools: [weatherTool], parallelToolCalls: true },
    ]) {
      emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
      await adapter.complete(textRequest('x', { model: 'anthropic:claude-sonnet-4-5', ...overrides }));
    }
    expect(emulator.requests).toHaveLength(4);
  });

  it('6. streaming event sequence', async () => {
    emulator.enqueue({ type: 'replay', file: fixture('anthropic-tool-no-args.chunks.txt') });
    const { events } = await collect(createTestAdapter(emulator).stream(textRequest('x')));
    assertStreamInvariants(events);
    expect(events.map((event) => ('index' in event ? `${event.type}@${event.index}` : event.type))).toEqual([
      'message-start',
      'usage',
      'text-start@0',
      'text-delta@0',
      'text-delta@0',
      'text-end@0',
      'tool-call-start@1',
      'tool-call-end@1',
      'usage',
      'finish',
    ]);
  });

  it('7. streaming partial JSON fidelity', async () => {
    const lines = readFileSync(fixture('anthropic-json-tool.1.chunks.txt'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line));
    const raw = lines
      .filter((line) => line.delta?.type === 'input_json_delta' && line.delta.partial_json !== '')
      .map((line) => line.delta.partial_json as string);
    emulator.enqueue({
      type: 'replay',
      file: fixture('anthropic-json-tool.1.chunks.txt'),
      fault: { splitBytes: { size: 7 } },
    });
    const { events } = await collect(createTestAdapter(emulator).stream(textRequest('x')));
    const deltas = events.filter((event) => event.type === 'tool-call-delta');
    expect(deltas.map((event) => event.delta)).toEqual(raw);
    expect(deltas.every((event) => typeof event.delta === 'string')).toBe(true);
  });

  // Error classes, status edge cases, retries, retry-after and cancellation are the public
  // conformance suite's (src/testing/conformance, run in test/conformance/anthropic.test.ts).
  it('9. Anthropic status edge cases: 413 request_too_large, 529 overloaded_error, an empty error object', async () => {
    const cases: Array<[EmulatorScript, ErrorClass]> = [
      [
        anthropicError(413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.'),
        'context_overflow',
      ],
      [anthropicError(529, 'overloaded_error', 'Overloaded'), 'server_error'],
      [{ type: 'json', status: 401, body: { type: 'error', error: {} } }, 'auth'],
    ];
    for (const [script, errorClass] of cases) {
      emulator.enqueue(script);
      const error = await failure(createTestAdapter(emulator).complete(textRequest('x')));
      expect([script, (error as { errorClass: string }).errorClass]).toEqual([script, errorClass]);
    }
  });

  it('13. cost-token mapping', async () => {
    emulator.enqueue({
      type: 'json',
      body: {
        id: 'msg_usage',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text: 'cached' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: {
          input_tokens: 21,
          cache_creation_input_tokens: 1800,
          cache_read_input_tokens: 9400,
          output_tokens: 350,
          output_tokens_details: { thinking_tokens: 120 },
        },
      },
    });
    const response = await createTestAdapter(emulator).complete(textRequest('x'));
    // input_tokens already excludes cache reads and writes: one bucket each, as reported.
    expect(response.usage).toEqual({
      input: 21,
      cacheRead: 9400,
      cacheWrite: 1800,
      output: 350,
      reasoning: 120,
    });
  });

  it('14. streaming usage propagation', async () => {
    const script: EmulatorScript = {
      type: 'scripted',
      content: [
        { type: 'reasoning', text: 'Thinking it over.', signature: 'sig' },
        { type: 'text', text: 'The answer is 4.' },
      ],
      usage: { input: 120, output: 30, reasoning: 8, cacheRead: 500, cacheWrite: 40 },
    };
    const adapter = createTestAdapter(emulator);
    emulator.enqueue(script);
    const complete = await adapter.complete(textRequest('x'));
    emulator.enqueue(script);
    const streamed = await collect(adapter.stream(textRequest('x')));
    const usages = streamed.events.filter((event) => event.type === 'usage');
    expect(usages.length).toBeGreaterThanOrEqual(2);
    expect(streamed.response?.usage).toEqual(complete.usage);
    // The emulator answers as the API does: `usage.service_tier` (its default, `standard`, here).
    expect(complete.usage).toEqual({
      input: 120,
      cacheRead: 500,
      cacheWrite: 40,
      output: 38,
      reasoning: 0,
      serviceTier: 'standard',
    });
    expect(usages.at(-1)?.type === 'usage' && usages.at(-1)).toMatchObject({ usage: complete.usage });
  });
});
