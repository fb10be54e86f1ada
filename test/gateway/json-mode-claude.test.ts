/**
 * JSON mode toward Claude, whose JSON outputs take only closed objects: a Chat client's
 * `json_object`, a Responses client's `text.format: json_object`, a Gemini client's
 * `responseMimeType: application/json` without a schema and a non-strict schema with an object of
 * free-form keys are asked for by an instruction in the system prompt, and the reply's text comes
 * back as the JSON alone (a code fence or a sentence around it taken off) — whole and streamed.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { chatStreamText, createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

const fencedReply = (chunkSize?: number) => ({
  type: 'scripted' as const,
  content: [{ type: 'text' as const, text: 'Sure! Here is the JSON:\n```json\n{"a":1}\n```' }],
  ...(chunkSize === undefined ? {} : { chunkSize }),
});
const sentSystem = () => {
  const body = harness.emulator.requests.at(-1)!.body as { system?: unknown; output_config?: unknown };
  expect(body.output_config).toBeUndefined();
  return JSON.stringify(body.system);
};

it('a Chat client’s json_object: Claude is told to answer with one JSON object, the client gets the JSON alone', async () => {
  harness.emulator.enqueue(fencedReply());
  const { openai } = createClients(harness.server.url);
  const completion = await openai.chat.completions.create({
    model: 'up-anthropic',
    response_format: { type: 'json_object' },
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'give json' },
    ],
  });
  const system = sentSystem();
  expect(system).toContain('You are terse.');
  expect(system).toContain('single JSON object only');
  expect(completion.choices[0]!.message.content).toBe('{"a":1}');
  expect(
    harness.logger.entries.some((entry) => entry.message === 'structured output asked for by instruction'),
  ).toBe(true);
});

it('streamed: the cleaned JSON arrives in one delta', async () => {
  harness.emulator.enqueue(fencedReply(5));
  const response = await harness.post('/v1/chat/completions', {
    model: 'up-anthropic',
    stream: true,
    response_format: { type: 'json_object' },
    messages: [{ role: 'user', content: 'give json' }],
  });
  expect(chatStreamText(await response.text())).toBe('{"a":1}');
  expect(sentSystem()).toContain('single JSON object only');
});

it('a Responses client’s text.format json_object: the same', async () => {
  harness.emulator.enqueue(fencedReply());
  const { openai } = createClients(harness.server.url);
  const response = await openai.responses.create({
    model: 'up-anthropic',
    text: { format: { type: 'json_object' } },
    input: 'give json',
  });
  expect(sentSystem()).toContain('single JSON object only');
  expect(response.output_text).toBe('{"a":1}');
});

it('a Gemini client’s responseMimeType application/json without a schema: the same', async () => {
  harness.emulator.enqueue(fencedReply());
  const { google } = createClients(harness.server.url);
  const response = await google.models.generateContent({
    model: 'up-anthropic',
    contents: 'give json',
    config: { responseMimeType: 'application/json' },
  });
  expect(sentSystem()).toContain('single JSON object only');
  expect(response.text).toBe('{"a":1}');
});

it('a non-strict schema with a free-form object: the schema goes in the instruction, the sentence before the JSON is taken off', async () => {
  harness.emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'text', text: 'Here you go: {"title":"t"}' }],
  });
  const { openai } = createClients(harness.server.url);
  const schema = {
    type: 'object',
    properties: { title: { type: 'string' }, meta: { type: 'object' } },
    required: ['title'],
  };
  const completion = await openai.chat.completions.create({
    model: 'up-anthropic',
    messages: [{ role: 'user', content: 'x' }],
    response_format: { type: 'json_schema', json_schema: { name: 's', schema } },
  });
  const system = sentSystem();
  expect(system).toContain('single JSON object only');
  expect(system).toContain(JSON.stringify(JSON.stringify(schema)).slice(1, -1));
  expect(completion.choices[0]!.message.content).toBe('{"title":"t"}');
});

it('a schema Claude takes still goes as output_config.format, with no instruction and the text as sent', async () => {
  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: ' {"a":"x"}' }] });
  const { openai } = createClients(harness.server.url);
  const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
  const completion = await openai.chat.completions.create({
    model: 'up-anthropic',
    messages: [{ role: 'user', content: 'x' }],
    response_format: { type: 'json_schema', json_schema: { name: 's', schema, strict: true } },
  });
  const body = harness.emulator.requests.at(-1)!.body as { system?: unknown; output_config?: unknown };
  expect(body.output_config).toMatchObject({ format: { type: 'json_schema' } });
  expect(body.system).toBeUndefined();
  expect(completion.choices[0]!.message.content).toBe(' {"a":"x"}');
});
