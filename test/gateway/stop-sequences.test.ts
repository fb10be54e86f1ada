/**
 * Stop sequences an upstream cannot take are honoured by the gateway, not dropped: gpt-5 on Chat
 * (which refuses `stop`) and every Responses model (which has no `stop`) are sent none, Gemini at
 * most 5, and the reply is cut before the first of the client's sequences — wherever the upstream's
 * deltas split it — finished as a stop (Anthropic `stop_reason: stop_sequence` naming it, Chat
 * `stop`). The rest of the upstream's stream is still read, not sent: the upstream generates and
 * bills it, so the reply's usage is the upstream's own count, never an estimate of the cut text.
 * A tool call before the cut text keeps the reply a tool call (the client must answer it). Claude,
 * which refuses an empty or whitespace-only sequence, is sent neither: the empty one stops at
 * nothing, the whitespace-only one cuts the reply here.
 */
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

const answer = 'Thought: I should look it up.\nObservation: made up\nFinal Answer: 42';
const before = 'Thought: I should look it up.';
/** The answer in 3-character deltas: `\nObservation:` arrives split over several. */
const scripted = {
  type: 'scripted' as const,
  content: [{ type: 'text' as const, text: answer }],
  chunkSize: 3,
};
const lastBody = () => harness.emulator.requests.at(-1)!.body as Record<string, unknown>;

async function chatStream(model: string, stop: string[]): Promise<ChatCompletionChunk[]> {
  const stream = await createClients(harness.server.url).openai.chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'What is the answer?' }],
    stop,
    stream: true,
    stream_options: { include_usage: true },
  });
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

const streamedText = (chunks: ChatCompletionChunk[]) =>
  chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
const finishOf = (chunks: ChatCompletionChunk[]) =>
  chunks
    .map((chunk) => chunk.choices[0]?.finish_reason)
    .find((reason) => reason !== null && reason !== undefined);

describe('an Anthropic client’s stop_sequences to gpt-5 on Chat, which refuses stop', () => {
  it('whole: the text is cut before the sequence, stop_reason stop_sequence names it, no stop upstream', async () => {
    harness.emulator.enqueue({ ...scripted, usage: { input: 7, output: 20 } });
    const message = await createClients(harness.server.url).anthropic.messages.create({
      model: 'up-chat',
      max_tokens: 200,
      stop_sequences: ['\nObservation:'],
      messages: [{ role: 'user', content: 'What is the answer?' }],
    });
    expect(lastBody()).not.toHaveProperty('stop');
    expect(message.content.map((block) => (block.type === 'text' ? block.text : block.type))).toEqual([
      before,
    ]);
    expect(message.stop_reason).toBe('stop_sequence');
    expect(message.stop_sequence).toBe('\nObservation:');
    // The upstream generated (and billed) the whole reply: its usage is what it reported.
    expect(message.usage.output_tokens).toBe(20);
  });

  it('streamed: the same text and stop, wherever the deltas split the sequence', async () => {
    harness.emulator.enqueue(scripted);
    const stream = createClients(harness.server.url).anthropic.messages.stream({
      model: 'up-chat',
      max_tokens: 200,
      stop_sequences: ['\nObservation:', 'Final Answer:'],
      messages: [{ role: 'user', content: 'What is the answer?' }],
    });
    const message = await stream.finalMessage();
    expect(message.content.map((block) => (block.type === 'text' ? block.text : block.type))).toEqual([
      before,
    ]);
    expect(message.stop_reason).toBe('stop_sequence');
    expect(message.stop_sequence).toBe('\nObservation:');
  });
});

describe('a Chat client’s stop to a Responses upstream, which has no stop', () => {
  it('streamed: cut, finish_reason stop, and the usage the upstream reported after the sequence (its reasoning too)', async () => {
    // One event per read (5 ms apart): the usage comes reads after the sequence.
    harness.emulator.enqueue({
      ...scripted,
      usage: { input: 7, output: 20, reasoning: 300 },
      fault: { dripMs: 5 },
    });
    const chunks = await chatStream('up-responses', ['\nObservation:']);
    expect(lastBody()).not.toHaveProperty('stop');
    expect(streamedText(chunks)).toBe(before);
    expect(finishOf(chunks)).toBe('stop');
    const usage = chunks.at(-1)!.usage!;
    expect(usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 320 });
    expect(usage.completion_tokens_details?.reasoning_tokens).toBe(300);
  });

  it('streamed: an upstream failing after the sequence (its rest read only for usage) leaves the cut reply, finished stop', async () => {
    // One delta holds the whole answer (event 5 of the Responses stream); then the upstream is cut.
    harness.emulator.enqueue({ ...scripted, chunkSize: 200, fault: { disconnectAfterEvents: 5 } });
    const chunks = await chatStream('up-responses', ['\nObservation:']);
    expect(streamedText(chunks)).toBe(before);
    expect(finishOf(chunks)).toBe('stop');
  });

  it('whole: cut and finished stop; a reply without the sequence is whole', async () => {
    harness.emulator.enqueue(scripted);
    const completion = await createClients(harness.server.url).openai.chat.completions.create({
      model: 'up-responses',
      messages: [{ role: 'user', content: 'What is the answer?' }],
      stop: ['Observation'],
    });
    expect(completion.choices[0]!.message.content).toBe('Thought: I should look it up.\n');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    harness.emulator.enqueue(scripted);
    const whole = await createClients(harness.server.url).openai.chat.completions.create({
      model: 'up-responses',
      messages: [{ role: 'user', content: 'What is the answer?' }],
      stop: ['never said'],
    });
    expect(whole.choices[0]!.message.content).toBe(answer);
  });
});

it('a Chat client’s 6 stop sequences to Gemini, which takes 5: the 5 go upstream, the 6th cuts the reply here', async () => {
  harness.emulator.enqueue(scripted);
  const stops = ['one', 'two', 'three', 'four', 'five', 'Final Answer'];
  const chunks = await chatStream('up-gemini', stops);
  expect((lastBody().generationConfig as { stopSequences: string[] }).stopSequences).toEqual(
    stops.slice(0, 5),
  );
  expect(streamedText(chunks)).toBe('Thought: I should look it up.\nObservation: made up\n');
  expect(finishOf(chunks)).toBe('stop');
});

describe('whitespace-only and empty stop sequences to Claude, which refuses them (the emulator too)', () => {
  // A one-line answer: Claude is sent no blank sequence (the API's 400), the reply is cut here.
  const lines = {
    type: 'scripted' as const,
    content: [{ type: 'text' as const, text: 'Yes.\nWater is wet.\n\nEND' }],
    chunkSize: 3,
  };

  it.each([false, true])(
    'a Chat client’s stop "\\n": cut at the line, finish_reason stop (stream %s)',
    async (stream) => {
      harness.emulator.enqueue(lines);
      const text = stream
        ? streamedText(await chatStream('up-anthropic', ['\n']))
        : (
            await createClients(harness.server.url).openai.chat.completions.create({
              model: 'up-anthropic',
              messages: [{ role: 'user', content: 'Is water wet?' }],
              stop: '\n',
            })
          ).choices[0]!.message.content;
      expect(lastBody()).not.toHaveProperty('stop_sequences');
      expect(text).toBe('Yes.');
    },
  );

  it('a Gemini client’s ["\\n\\n", "", "END"]: END goes upstream, "" is left out, the blank line cuts here', async () => {
    harness.emulator.enqueue(lines);
    const reply = await createClients(harness.server.url).google.models.generateContent({
      model: 'up-anthropic',
      contents: 'Is water wet?',
      config: { stopSequences: ['\n\n', '', 'END'] },
    });
    expect(lastBody().stop_sequences).toEqual(['END']);
    expect(reply.text).toBe('Yes.\nWater is wet.');
  });

  it('an Anthropic client’s ["\\n"]: stop_reason stop_sequence names it', async () => {
    harness.emulator.enqueue(lines);
    const message = await createClients(harness.server.url).anthropic.messages.create({
      model: 'up-anthropic',
      max_tokens: 50,
      stop_sequences: ['\n'],
      messages: [{ role: 'user', content: 'Is water wet?' }],
    });
    expect(lastBody()).not.toHaveProperty('stop_sequences');
    expect(message.content).toMatchObject([{ type: 'text', text: 'Yes.' }]);
    expect(message.stop_reason).toBe('stop_sequence');
    expect(message.stop_sequence).toBe('\n');
  });
});

describe('stop sequences past what is cut at here (64, of at most 256 characters)', () => {
  it('65 from a Chat client to a Responses upstream: a 400 naming stop, nothing sent upstream', async () => {
    const requests = harness.emulator.requests.length;
    const response = await harness.post('/v1/chat/completions', {
      model: 'up-responses',
      messages: [{ role: 'user', content: 'x' }],
      stop: Array.from({ length: 65 }, (_, index) => `stop ${index}`),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { param: string; message: string } };
    expect(body.error.param).toBe('stop');
    expect(body.error.message).toContain('got 65 sequences');
    expect(harness.emulator.requests.length).toBe(requests);
  });

  it('one of 300 characters from an Anthropic client to gpt-5 on Chat: a 400 naming stop_sequences', async () => {
    const response = await harness.post(
      '/v1/messages',
      {
        model: 'up-chat',
        max_tokens: 50,
        stop_sequences: ['END', 'x'.repeat(300)],
        messages: [{ role: 'user', content: 'x' }],
      },
      { 'anthropic-version': '2023-06-01' },
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('one of 300 characters');
  });
});

describe('a tool call before the text a stop sequence cuts', () => {
  // Text, a tool call, then text meeting the sequence: the call came whole before the stop, and the
  // client must still answer it — the reply finishes tool_use, not stop_sequence.
  const withCall = {
    type: 'scripted' as const,
    content: [
      { type: 'text' as const, text: 'Let me look.' },
      { type: 'tool-call' as const, name: 'search', input: { q: 'answer' } },
      { type: 'text' as const, text: 'Meanwhile\nObservation: made up' },
    ],
    chunkSize: 3,
  };
  const request = {
    model: 'up-responses',
    max_tokens: 200,
    stop_sequences: ['\nObservation:'],
    tools: [
      { name: 'search', input_schema: { type: 'object' as const, properties: { q: { type: 'string' } } } },
    ],
    messages: [{ role: 'user' as const, content: 'What is the answer?' }],
  };
  const blocks = (content: Array<{ type: string; text?: string; name?: string }>) =>
    content.map((block) => (block.type === 'text' ? block.text : `${block.type}:${block.name}`));

  it.each([false, true])(
    'an Anthropic client to a Responses upstream: stop_reason tool_use, the call kept (stream %s)',
    async (stream) => {
      harness.emulator.enqueue(withCall);
      const { anthropic } = createClients(harness.server.url);
      const message = stream
        ? await anthropic.messages.stream(request).finalMessage()
        : await anthropic.messages.create(request);
      expect(blocks(message.content)).toEqual(['Let me look.', 'tool_use:search', 'Meanwhile']);
      expect(message.stop_reason).toBe('tool_use');
      expect(message.stop_sequence).toBeNull();
    },
  );
});
