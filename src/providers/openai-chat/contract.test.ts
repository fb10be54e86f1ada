import { basename } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRecorded, readRecorded } from '../../../test/support/fixtures.ts';
import { createSession } from '../../core/adapter.ts';
import type { AdapterError } from '../../core/errors/adapter-error.ts';
import type { ErrorClass } from '../../core/errors/error-class.ts';
import { toolCallId } from '../../core/ids.ts';
import type { JsonObject } from '../../core/json.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { Item, Part } from '../../core/transcript.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { assertStreamInvariants } from '../../testing/invariants.ts';
import { createOpenAICompatible, presets } from '../openai-compatible/index.ts';
import { createOpenAI } from './index.ts';
import { collectStream, replayRecorded, textOf, toolCallsOf, userRequest } from './test-support.ts';

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator.close();
});

function openai(options: { maxRetries?: number; retryBaseDelay?: number; baseURL?: string } = {}) {
  return createOpenAI({
    apiKey: 'test-key',
    baseURL: `${emulator.url}/v1`,
    maxRetries: 0,
    retryBaseDelay: 1,
    ...options,
  });
}

function lastBody(): Record<string, unknown> {
  return emulator.requests.at(-1)?.body as Record<string, unknown>;
}

/** Replaces canonical `tu_…` ids with stable placeholders, for golden comparison. */
function normalizeIds(parts: Part[]): unknown {
  return JSON.parse(JSON.stringify(parts).replace(/tu_[0-9A-Z]{26}/g, 'tu_<id>'));
}

const everyShape: JsonObject = {
  text: 'héllo "quoted" \\ \n 🚀',
  integer: 42,
  float: -3.25,
  zero: 0,
  yes: true,
  no: false,
  nothing: null,
  list: [1, 'two', { three: [3] }, [], null],
  nested: { deeper: { deepest: { empty: {} } } },
};

describe('per-adapter tests (docs/contract.md §10.1)', () => {
  it('1. round-trip canonical → wire → canonical', async () => {
    emulator.enqueue({
      type: 'json',
      body: {
        id: 'chatcmpl-rt',
        object: 'chat.completion',
        model: 'gpt-4.1-mini-2025-04-14',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: 'Reading it.',
              tool_calls: [
                {
                  id: 'call_rt1',
                  type: 'function',
                  function: { name: 'read_file', arguments: '{"path":"README.md"}' },
                },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 20, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 0 } },
      },
    });
    const adapter = openai();
    const session = adapter.startSession();
    const first = await adapter.complete(userRequest('Read README.md and summarize'), { session });
    expect(lastBody()).toMatchInlineSnapshot(`
      {
        "max_completion_tokens": 256,
        "messages": [
          {
            "content": "Read README.md and summarize",
            "role": "user",
          },
        ],
        "model": "gpt-4.1-mini",
      }
    `);
    expect(normalizeIds(first.content)).toMatchInlineSnapshot(`
      [
        {
          "text": "Reading it.",
          "type": "text",
        },
        {
          "id": "tu_<id>",
          "input": {
            "path": "README.md",
          },
          "name": "read_file",
          "provider": "openai",
          "type": "tool-call",
        },
      ]
    `);
    // The reply goes back on the wire exactly as the provider sent it.
    const call = first.content[1] as Extract<Part, { type: 'tool-call' }>;
    const transcript: Item[] = [
      ...userRequest('Read README.md and summarize').transcript,
      { kind: 'assistant', parts: first.content },
      {
        kind: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId: call.id,
            output: { type: 'text', text: '# Switchyard' },
            isError: false,
          },
        ],
      },
    ];
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'It is a README.' }] });
    const second = await adapter.complete({ ...userRequest(''), transcript }, { session });
    const messages = lastBody().messages as Array<Record<string, unknown>>;
    expect(messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: 'Reading it.',
        tool_calls: [
          {
            id: 'call_rt1',
            type: 'function',
            function: { name: 'read_file', arguments: '{"path":"README.md"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_rt1', content: '# Switchyard' },
    ]);
    expect(textOf(second)).toBe('It is a README.');
  });

  it('2. tool call serialization', async () => {
    const adapter = openai();
    const id = toolCallId('tu_01JSHAPES0000000000000000A');
    emulator.enqueue({
      type: 'scripted',
      chunkSize: 5,
      content: [{ type: 'tool-call', name: 'shapes', input: everyShape }],
    });
    const request: CanonicalRequest = {
      ...userRequest('x'),
      transcript: [
        { kind: 'assistant', parts: [{ type: 'tool-call', id, name: 'shapes', input: everyShape }] },
        {
          kind: 'tool',
          parts: [
            { type: 'tool-result', callId: id, output: { type: 'json', value: everyShape }, isError: false },
          ],
        },
      ],
    };
    const { response } = await collectStream(adapter.stream(request));
    const [assistant, tool] = lastBody().messages as Array<{
      tool_calls?: Array<{ function: { arguments: string } }>;
      content: string;
    }>;
    expect(JSON.parse(assistant?.tool_calls?.[0]?.function.arguments ?? '')).toEqual(everyShape);
    expect(JSON.parse(tool?.content ?? '')).toEqual(everyShape);
    expect(toolCallsOf(response)).toEqual([{ name: 'shapes', input: everyShape }]);
  });

  it('3. tool id round-trip', async () => {
    const session = createSession();
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'tool-call', id: 'call_first', name: 'f', input: {} }],
    });
    const first = await openai().complete(userRequest('x'), { session });
    const canonical = (first.content[0] as Extract<Part, { type: 'tool-call' }>).id;
    expect(canonical).toMatch(/^tu_/);
    const history: Item[] = [
      { kind: 'assistant', parts: first.content },
      {
        kind: 'tool',
        parts: [
          { type: 'tool-result', callId: canonical, output: { type: 'text', text: 'ok' }, isError: false },
        ],
      },
    ];
    // Back to OpenAI: the provider's own id.
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
    await openai().complete({ ...userRequest(''), transcript: history }, { session });
    expect((lastBody().messages as Array<{ tool_call_id?: string }>)[1]?.tool_call_id).toBe('call_first');
    // To Mistral: a 9-alphanumeric id derived once, and mapped back when Mistral echoes it.
    const mistral = createOpenAICompatible(presets.mistral, { apiKey: 'k', baseURL: `${emulator.url}/v1` });
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
    await mistral.complete({ ...userRequest(''), transcript: history }, { session });
    const mistralId = (lastBody().messages as Array<{ tool_call_id?: string }>)[1]?.tool_call_id as string;
    expect(mistralId).toMatch(/^[a-zA-Z0-9]{9}$/);
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'tool-call', id: mistralId, name: 'f', input: {} }],
    });
    const echoed = await mistral.complete({ ...userRequest(''), transcript: history }, { session });
    // A call Mistral issues with that id is a new call: a fresh canonical id, and the earlier call
    // gets a wire id of its own from then on (never two calls with one id in a session).
    const echoedId = (echoed.content[0] as Extract<Part, { type: 'tool-call' }>).id;
    expect(echoedId).not.toBe(canonical);
    expect(session.toolIds.toProvider('mistral', echoedId)).toBe(mistralId);
    expect(session.toolIds.toProvider('mistral', canonical)).not.toBe(mistralId);
  });

  it('4. system prompt placement', async () => {
    const system = (text: string): Item => ({ kind: 'system', parts: [{ type: 'text', text }] });
    const user: Item = { kind: 'user', parts: [{ type: 'text', text: 'Hi' }] };
    const placements: unknown[] = [];
    for (const transcript of [
      [user],
      [system(''), user],
      [system('One.'), user],
      [system('One.'), system('Two.'), user],
    ]) {
      emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'ok' }] });
      await openai().complete({ ...userRequest(''), transcript });
      placements.push((lastBody().messages as unknown[]).slice(0, -1));
    }
    expect(placements).toEqual([
      [],
      [],
      [{ role: 'system', content: 'One.' }],
      [{ role: 'system', content: 'One.\n\nTwo.' }],
    ]);
  });

  it('5. capability declaration honesty', async () => {
    const image: Part = {
      type: 'media',
      modality: 'image',
      mimeType: 'image/png',
      data: { type: 'base64', data: 'AA==' },
    };
    const audio: Part = {
      type: 'media',
      modality: 'audio',
      mimeType: 'audio/wav',
      data: { type: 'base64', data: 'AA==' },
    };
    const video: Part = {
      type: 'media',
      modality: 'video',
      mimeType: 'video/mp4',
      data: { type: 'uri', uri: 'https://x.test/v' },
    };
    const pdf: Part = { type: 'file', mimeType: 'application/pdf', data: { type: 'base64', data: 'AA==' } };
    const withParts = (model: string, parts: Part[]): CanonicalRequest => ({
      model,
      transcript: [{ kind: 'user', parts }],
      maxOutputTokens: 5,
    });
    const tools = [{ name: 'f', inputSchema: { type: 'object' } }];
    const cases: Array<[string, CanonicalRequest, ReturnType<typeof openai>]> = [
      ['images', withParts('openai:gpt-3.5-turbo', [image]), openai()],
      ['audio', withParts('openai:gpt-4.1', [audio]), openai()],
      ['video', withParts('openai:gpt-4o', [video]), openai()],
      ['pdf', withParts('openai:gpt-3.5-turbo', [pdf]), openai()],
      [
        'reasoning',
        { ...userRequest('x', { model: 'openai:gpt-4.1' }), reasoning: { effort: 'low' } },
        openai(),
      ],
      [
        'structuredOutput',
        { ...userRequest('x', { model: 'openai:gpt-3.5-turbo' }), outputSchema: { schema: {} } },
        openai(),
      ],
      [
        'tools',
        userRequest('x', { model: 'perplexity:sonar', tools }),
        createOpenAICompatible(presets.perplexity, { apiKey: 'k', baseURL: `${emulator.url}/v1` }),
      ],
      [
        'parallelToolCalls',
        userRequest('x', { tools, parallelToolCalls: true }),
        createOpenAI({
          apiKey: 'k',
          baseURL: `${emulator.url}/v1`,
          capabilities: { parallelToolCalls: false },
        }),
      ],
    ];
    const before = emulator.requests.length;
    for (const [capability, request, adapter] of cases) {
      const error = await adapter.complete(request).catch((caught: AdapterError) => caught);
      expect(error, capability).toMatchObject({
        errorClass: 'invalid_request',
        providerCode: 'unsupported_capability',
      });
      expect((error as AdapterError).message, capability).toContain(capability);
    }
    expect(emulator.requests.length).toBe(before);
    // A user can mark a model unable to call tools.
    const local = createOpenAICompatible(presets.ollama, {
      baseURL: `${emulator.url}/v1`,
      models: { 'llama3*': { tools: false } },
    });
    expect(local.capabilities('ollama:llama3.2:1b').tools).toBe(false);
    expect(local.capabilities('ollama:qwen3:8b').tools).toBe(true);
    // Supported: the call goes through.
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'a cat' }] });
    expect(textOf(await openai().complete(withParts('openai:gpt-4o', [image])))).toBe('a cat');
  });

  it('6. streaming event sequence', async () => {
    const file = listRecorded('openai/chat').find(
      (path) => basename(path) === 'openai-text.chunks.txt',
    ) as string;
    const { events } = await replayRecorded(emulator, openai(), file);
    assertStreamInvariants(events);
    const kinds = [...new Set(events.map((event) => event.type))];
    expect(kinds).toEqual(['message-start', 'text-start', 'text-delta', 'text-end', 'usage', 'finish']);
    expect(events.filter((event) => event.type === 'message-start' || event.type === 'finish')).toHaveLength(
      2,
    );
  });

  it('7. streaming partial JSON fidelity', async () => {
    const file = `${listRecorded('deepseek/chat').find((path) => path.endsWith('deepseek-tool-call.chunks.txt'))}`;
    const wireFragments = readRecorded(file)
      .split('\n')
      .filter((line) => line.trim() !== '')
      .flatMap((line) => JSON.parse(line).choices?.[0]?.delta?.tool_calls ?? [])
      .map((call: { function?: { arguments?: string } }) => call.function?.arguments ?? '')
      .filter((fragment: string) => fragment !== '');
    const deepseek = createOpenAICompatible(presets.deepseek, { apiKey: 'k', baseURL: `${emulator.url}/v1` });
    const { events } = await replayRecorded(emulator, deepseek, file);
    const deltas = events.flatMap((event) => (event.type === 'tool-call-delta' ? [event.delta] : []));
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas).toEqual(wireFragments);
    for (const delta of deltas) expect(typeof delta).toBe('string');
  });

  // Error classes, status edge cases, retries, retry-after and cancellation are the public
  // conformance suite's (src/testing/conformance, run in test/conformance/openai*.test.ts).
  it('9. host error bodies: numeric codes (OpenRouter), string errors (Ollama), overloaded_error', async () => {
    const cases: Array<[number, unknown, ErrorClass]> = [
      [
        413,
        { error: { message: 'Request too large', type: 'invalid_request_error', code: null } },
        'context_overflow',
      ],
      [429, { error: { code: 429, message: 'Rate limit exceeded: free-models-per-day' } }, 'rate_limit'],
      [529, { error: { message: 'Overloaded', type: 'overloaded_error' } }, 'server_error'],
      [401, { error: 'unauthorized' }, 'auth'],
      [401, { error: { message: 'No auth credentials found', code: 401 } }, 'auth'],
    ];
    for (const [status, body, errorClass] of cases) {
      const error = await failWith({ type: 'json', status, body }).catch((caught: AdapterError) => caught);
      expect([status, (error as AdapterError).errorClass]).toEqual([status, errorClass]);
    }
  });

  it('13. cost-token mapping', async () => {
    const body = (usage: object) => ({
      type: 'json' as const,
      body: {
        id: 'c',
        model: 'm',
        choices: [{ index: 0, message: { content: 'x' }, finish_reason: 'stop' }],
        usage,
      },
    });
    emulator.enqueue(
      body({
        prompt_tokens: 1000,
        completion_tokens: 300,
        prompt_tokens_details: { cached_tokens: 600, cache_write_tokens: 100 },
        completion_tokens_details: { reasoning_tokens: 120 },
      }),
    );
    const all = await openai().complete(userRequest('x'));
    expect(all.usage).toEqual({ input: 300, cacheRead: 600, cacheWrite: 100, output: 300, reasoning: 120 });
    emulator.enqueue(
      body({ prompt_tokens: 50, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 20 } }),
    );
    const openaiStyle = await openai().complete(userRequest('x'));
    expect(openaiStyle.usage).toEqual({ input: 30, cacheRead: 20, cacheWrite: 0, output: 7, reasoning: 0 });
  });

  it('14. streaming usage propagation', async () => {
    const script = {
      type: 'scripted' as const,
      content: [
        { type: 'reasoning' as const, text: 'Thinking it over.' },
        { type: 'text' as const, text: 'Here you go.' },
      ],
      usage: { input: 40, cacheRead: 24, output: 12, reasoning: 6 },
    };
    emulator.enqueue(script);
    const whole = await openai().complete(userRequest('x'));
    emulator.enqueue(script);
    const { events, response } = await collectStream(openai().stream(userRequest('x')));
    expect(lastBody().stream_options).toEqual({ include_usage: true });
    const usageEvents = events.filter((event) => event.type === 'usage');
    expect(usageEvents).toHaveLength(1);
    expect(response?.usage).toEqual(whole.usage);
    // The emulator answers as the API does: `service_tier` (its default, `default`, here).
    expect(response?.usage).toEqual({
      input: 40,
      cacheRead: 24,
      cacheWrite: 0,
      output: 18,
      reasoning: 6,
      serviceTier: 'default',
    });
  });
});

function failWith(script: Parameters<Emulator['enqueue']>[0]): Promise<unknown> {
  emulator.enqueue(script);
  return openai().complete(userRequest('x'));
}
