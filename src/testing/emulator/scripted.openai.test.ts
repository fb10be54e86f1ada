/** Scripted OpenAI Chat Completions and Responses answers, streamed and whole. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from './index.ts';
import { openaiHeaders, parseSse, payloads, postJson } from './test-support.ts';

let emulator: Emulator;

beforeEach(async () => {
  emulator = await startEmulator();
});

afterEach(async () => {
  await emulator.close();
});

const chatMessages = [{ role: 'user', content: 'Hi' }];

type Chunk = {
  choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null }>;
  usage?: unknown;
};

async function chatStream(extra: Record<string, unknown> = {}) {
  const body = { model: 'gpt-4.1-nano', stream: true, messages: chatMessages, ...extra };
  const response = await postJson(`${emulator.url}/v1/chat/completions`, body, openaiHeaders);
  return parseSse(await response.text());
}

describe('scripted OpenAI chat stream', () => {
  it('streams a role chunk, content deltas, a finish chunk, the usage chunk and [DONE]', async () => {
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Hello from the emulator' }] });
    const frames = await chatStream({ stream_options: { include_usage: true } });
    expect(frames.at(-1)?.data).toBe('[DONE]');
    expect(frames.every((frame) => frame.event === undefined)).toBe(true);
    const chunks = payloads(frames) as Chunk[];
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '', refusal: null });
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('Hello from the emulator');
    expect(chunks.at(-2)?.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 10, total_tokens: expect.any(Number) });
    expect((chunks[0] as unknown as { id: string }).id).toMatch(/^chatcmpl-/);
  });

  it('streams tool calls by index with id and name on the first delta only', async () => {
    emulator.enqueue({
      type: 'scripted',
      chunkSize: 4,
      content: [
        { type: 'tool-call', name: 'first', input: { a: 1 } },
        { type: 'tool-call', id: 'call_given', name: 'second', input: { b: 'two' } },
      ],
    });
    const chunks = payloads(await chatStream()) as Chunk[];
    const calls = chunks.flatMap(
      (chunk) => (chunk.choices[0]?.delta.tool_calls as Array<Record<string, unknown>> | undefined) ?? [],
    );
    const byIndex = (index: number) => calls.filter((call) => call.index === index);
    for (const index of [0, 1]) {
      const [first, ...rest] = byIndex(index);
      expect(first).toMatchObject({ type: 'function', function: { arguments: '' } });
      expect(
        rest.every(
          (call) => call.id === undefined && (call.function as { name?: string }).name === undefined,
        ),
      ).toBe(true);
    }
    expect(byIndex(0)[0]?.id).toMatch(/^call_[A-Za-z0-9]{24}$/);
    expect(byIndex(1)[0]?.id).toBe('call_given');
    const args = (index: number) =>
      byIndex(index)
        .map((call) => (call.function as { arguments: string }).arguments)
        .join('');
    expect(JSON.parse(args(0))).toEqual({ a: 1 });
    expect(JSON.parse(args(1))).toEqual({ b: 'two' });
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });
});

describe('scripted OpenAI chat completion', () => {
  it('answers a non-streaming request with tool_calls and usage', async () => {
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'tool-call', name: 'lookup', input: { q: 'x' } }],
      usage: { input: 5, output: 3, cacheRead: 2, reasoning: 4 },
    });
    const body = { model: 'gpt-4.1-nano', messages: chatMessages };
    const completion = (await (
      await postJson(`${emulator.url}/v1/chat/completions`, body, openaiHeaders)
    ).json()) as {
      choices: Array<{ message: Record<string, unknown>; finish_reason: string }>;
      usage: Record<string, unknown>;
    };
    expect(completion).toMatchObject({ object: 'chat.completion', model: 'gpt-4.1-nano' });
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(completion.choices[0]?.message).toMatchObject({
      role: 'assistant',
      content: null,
      tool_calls: [{ type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }],
    });
    expect(completion.usage).toMatchObject({
      prompt_tokens: 7,
      completion_tokens: 7,
      total_tokens: 14,
      prompt_tokens_details: { cached_tokens: 2 },
      completion_tokens_details: { reasoning_tokens: 4 },
    });
  });
});

async function responsesStream(): Promise<Array<Record<string, unknown>>> {
  const body = { model: 'gpt-5-mini', stream: true, input: 'Hi' };
  const frames = parseSse(await (await postJson(`${emulator.url}/v1/responses`, body, openaiHeaders)).text());
  for (const frame of frames) expect(frame.event).toBe(JSON.parse(frame.data).type);
  return payloads(frames);
}

describe('scripted OpenAI chat reasoning, in the field the compatible host writes it in', () => {
  const reasoning = [
    { type: 'reasoning' as const, text: 'Let me think it through.', signature: 'sig-abc' },
    { type: 'text' as const, text: 'Answer.' },
  ];

  /** The reasoning each message or delta carries, by field. */
  function reasoningOf(message: Record<string, unknown> | undefined): Record<string, unknown> {
    const fields: Record<string, unknown> = {};
    for (const field of ['reasoning_content', 'reasoning', 'reasoning_details'])
      if (message?.[field] !== undefined) fields[field] = message[field];
    return fields;
  }

  it('writes reasoning_content by default, streamed and whole', async () => {
    emulator.enqueue({ type: 'scripted', content: reasoning, chunkSize: 8 });
    const deltas = (payloads(await chatStream()) as Chunk[]).map((chunk) => chunk.choices[0]?.delta);
    expect(deltas.map((delta) => delta?.reasoning_content ?? '').join('')).toBe('Let me think it through.');
    expect(deltas.every((delta) => delta?.reasoning === undefined)).toBe(true);
  });

  it('writes `reasoning` (Groq, Cerebras) when chatReasoningField says so, and nothing else', async () => {
    const groq = await startEmulator({ chatReasoningField: 'reasoning' });
    try {
      groq.enqueue({ type: 'scripted', content: reasoning, chunkSize: 8 });
      groq.enqueue({ type: 'scripted', content: reasoning });
      const body = { model: 'openai/gpt-oss-120b', messages: chatMessages };
      const streamed = await postJson(
        `${groq.url}/v1/chat/completions`,
        { ...body, stream: true },
        openaiHeaders,
      );
      const deltas = (payloads(parseSse(await streamed.text())) as Chunk[]).map(
        (chunk) => chunk.choices[0]?.delta,
      );
      expect(deltas.map((delta) => delta?.reasoning ?? '').join('')).toBe('Let me think it through.');
      expect(deltas.every((delta) => delta?.reasoning_content === undefined)).toBe(true);
      const whole = (await (
        await postJson(`${groq.url}/v1/chat/completions`, body, openaiHeaders)
      ).json()) as {
        choices: Array<{ message: Record<string, unknown> }>;
      };
      expect(reasoningOf(whole.choices[0]?.message)).toEqual({ reasoning: 'Let me think it through.' });
    } finally {
      await groq.close();
    }
  });

  it("writes OpenRouter's reasoning_details entries, the signature on the last piece", async () => {
    const openrouter = await startEmulator({ chatReasoningField: 'reasoning_details' });
    try {
      openrouter.enqueue({ type: 'scripted', content: reasoning, chunkSize: 8 });
      openrouter.enqueue({ type: 'scripted', content: reasoning });
      const body = { model: 'anthropic/claude-sonnet-4.5', messages: chatMessages };
      const url = `${openrouter.url}/v1/chat/completions`;
      const streamed = await postJson(url, { ...body, stream: true }, openaiHeaders);
      const pieces = (payloads(parseSse(await streamed.text())) as Chunk[]).flatMap(
        (chunk) =>
          (chunk.choices[0]?.delta.reasoning_details as Array<Record<string, unknown>> | undefined) ?? [],
      );
      expect(pieces.map((piece) => piece.text).join('')).toBe('Let me think it through.');
      expect(pieces.every((piece) => piece.type === 'reasoning.text' && piece.index === 0)).toBe(true);
      expect(pieces.at(-1)).toMatchObject({ text: '', signature: 'sig-abc' });
      const whole = (await (await postJson(url, body, openaiHeaders)).json()) as {
        choices: Array<{ message: Record<string, unknown> }>;
      };
      expect(reasoningOf(whole.choices[0]?.message)).toEqual({
        reasoning_details: [
          {
            type: 'reasoning.text',
            text: 'Let me think it through.',
            format: 'unknown',
            index: 0,
            signature: 'sig-abc',
          },
        ],
      });
    } finally {
      await openrouter.close();
    }
  });
});

describe('scripted OpenAI Responses', () => {
  it('streams created, output items with their deltas, and completed', async () => {
    emulator.enqueue({
      type: 'scripted',
      content: [
        { type: 'reasoning', text: 'Consider the tools.', signature: 'gAAAA-encrypted' },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool-call', name: 'weather', input: { city: 'Oslo' } },
      ],
    });
    const events = await responsesStream();
    const types = events.map((event) => event.type);
    expect(types.slice(0, 3)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
    ]);
    expect(types.at(-1)).toBe('response.completed');
    expect(types.filter((type) => type === 'response.output_item.done')).toHaveLength(3);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const joined = (type: string) =>
      events
        .filter((event) => event.type === type)
        .map((event) => event.delta)
        .join('');
    expect(joined('response.reasoning_summary_text.delta')).toBe('Consider the tools.');
    expect(joined('response.output_text.delta')).toBe('Let me check.');
    expect(JSON.parse(joined('response.function_call_arguments.delta'))).toEqual({ city: 'Oslo' });
    const completed = events.at(-1)?.response as { status: string; output: Array<Record<string, unknown>> };
    expect(completed.status).toBe('completed');
    expect(completed.output.map((item) => item.type)).toEqual(['reasoning', 'message', 'function_call']);
    expect(completed.output[0]?.encrypted_content).toBe('gAAAA-encrypted');
    expect(completed.output[2]).toMatchObject({ name: 'weather', call_id: expect.stringMatching(/^call_/) });
    expect(completed.output[2]?.id).toMatch(/^fc_/);
  });

  it('ends with response.incomplete when the finish reason is not a normal stop', async () => {
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'Cut' }],
      finishReason: 'max_output_tokens',
    });
    const last = (await responsesStream()).at(-1) as { type: string; response: Record<string, unknown> };
    expect(last.type).toBe('response.incomplete');
    expect(last.response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    });
  });

  it('answers a non-streaming request with the response object', async () => {
    emulator.enqueue({
      type: 'scripted',
      content: [{ type: 'text', text: 'Done.' }],
      usage: { input: 3, output: 2 },
    });
    const body = { model: 'gpt-5-mini', input: 'Hi' };
    const response = (await (
      await postJson(`${emulator.url}/v1/responses`, body, openaiHeaders)
    ).json()) as Record<string, unknown>;
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'gpt-5-mini',
      output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] }],
      usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
    });
    expect(response.id).toMatch(/^resp_/);
  });
});
