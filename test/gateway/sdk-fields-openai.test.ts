/**
 * Request fields of the pinned `openai` SDK (7.57) that the gateway did not know, each as the real
 * SDK client sends it (docs/gateway.md, OpenAI Chat Completions and Responses). Before, all of
 * them were dropped without a word: `moderation` left the client believing its output was
 * moderated; `prompt_cache_retention`, `prompt_cache_options` and `prompt_cache_breakpoint` never
 * reached the upstream's cache. Now moderation is a 400 naming it, and the cache fields are the
 * request's cache hint (Claude: the cache on, one hour for a lifetime the client named; a system
 * breakpoint kept where the client put it) and reach OpenAI as written.
 */
import { expect, it } from 'vitest';
import OpenAI from 'openai';
import { ResponsesWS } from 'openai/resources/responses/ws';
import { createClients, scriptedText, useGatewayHarness } from './harness.ts';

const harness = useGatewayHarness();
const clients = () => createClients(harness.server.url);
/** The number of requests the upstreams have been sent (the emulator keeps every file's). */
const upstreamCalls = () => harness.emulator.requests.length;
const sent = () => harness.emulator.requests.at(-1)!.body as Record<string, unknown>;
const user = [{ role: 'user' as const, content: 'Hi' }];

/** The SDK's 400 as the client sees it: status and `param`. */
async function refusal(call: Promise<unknown>): Promise<{ status: number; param: unknown; message: string }> {
  const error = (await call.then(
    () => undefined,
    (caught: unknown) => caught,
  )) as { status?: number; param?: unknown; message?: string } | undefined;
  return { status: error?.status ?? 200, param: error?.param, message: error?.message ?? '' };
}

it('chat moderation is a 400 naming moderation, nothing sent upstream', async () => {
  const before = upstreamCalls();
  const result = await refusal(
    clients().openai.chat.completions.create({
      model: 'up-chat',
      messages: user,
      moderation: { model: 'omni-moderation-latest', policy: { output: { mode: 'block' } } },
    }),
  );
  expect(result).toMatchObject({ status: 400, param: 'moderation' });
  expect(upstreamCalls()).toBe(before);
});

it('responses moderation is a 400 naming moderation, nothing sent upstream', async () => {
  const before = upstreamCalls();
  const result = await refusal(
    clients().openai.responses.create({
      model: 'up-responses',
      input: 'Hi',
      moderation: { model: 'omni-moderation-latest' },
    }),
  );
  expect(result).toMatchObject({ status: 400, param: 'moderation' });
  expect(upstreamCalls()).toBe(before);
});

it('chat prompt_cache_retention reaches OpenAI as written', async () => {
  harness.emulator.enqueue(scriptedText());
  await clients().openai.chat.completions.create({
    model: 'up-chat',
    messages: user,
    prompt_cache_retention: '24h',
  });
  expect(sent().prompt_cache_retention).toBe('24h');
});

it('responses prompt_cache_retention reaches a Responses upstream as written', async () => {
  harness.emulator.enqueue(scriptedText());
  await clients().openai.responses.create({
    model: 'up-responses',
    input: 'Hi',
    prompt_cache_retention: '24h',
  });
  expect(sent().prompt_cache_retention).toBe('24h');
});

it('prompt_cache_retention 24h turns the one-hour cache on toward Claude', async () => {
  harness.emulator.enqueue(scriptedText());
  await clients().openai.chat.completions.create({
    model: 'up-anthropic',
    messages: user,
    prompt_cache_retention: '24h',
  });
  expect(JSON.stringify(sent())).toContain('"cache_control":{"type":"ephemeral","ttl":"1h"}');
  expect(sent()).not.toHaveProperty('prompt_cache_retention');
});

it('prompt_cache_options with a ttl turns the one-hour cache on toward Claude', async () => {
  harness.emulator.enqueue(scriptedText());
  await clients().openai.responses.create({
    model: 'up-anthropic',
    input: 'Hi',
    prompt_cache_options: { mode: 'implicit', ttl: '30m' },
  });
  expect(JSON.stringify(sent())).toContain('"cache_control":{"type":"ephemeral","ttl":"1h"}');
});

it('a prompt_cache_options value outside the API’s is a 400 naming it', async () => {
  const result = await refusal(
    clients().openai.chat.completions.create({
      model: 'up-chat',
      messages: user,
      prompt_cache_options: { mode: 'sometimes' as never },
    }),
  );
  expect(result).toMatchObject({ status: 400, param: 'prompt_cache_options.mode' });
});

it('a breakpoint on a system part before the last is kept there toward Claude', async () => {
  harness.emulator.enqueue(scriptedText());
  await clients().openai.chat.completions.create({
    model: 'up-anthropic',
    messages: [
      {
        role: 'system',
        content: [
          { type: 'text', text: 'Stable instructions.', prompt_cache_breakpoint: { mode: 'explicit' } },
          { type: 'text', text: 'Today is Tuesday.' },
        ],
      },
      ...user,
    ],
  });
  expect(sent().system).toEqual([
    { type: 'text', text: 'Stable instructions.', cache_control: { type: 'ephemeral' } },
    { type: 'text', text: 'Today is Tuesday.' },
  ]);
});

it('a breakpoint on a user part turns the cache on toward Claude', async () => {
  harness.emulator.enqueue(scriptedText());
  await clients().openai.chat.completions.create({
    model: 'up-anthropic',
    messages: [
      {
        role: 'user',
        content: [{ type: 'text', text: 'Hi', prompt_cache_breakpoint: { mode: 'explicit', ttl: '12h' } }],
      },
    ],
  });
  expect(JSON.stringify(sent())).toContain('"cache_control":{"type":"ephemeral","ttl":"1h"}');
});

it('a responses breakpoint on an input_text part turns the cache on toward Claude', async () => {
  harness.emulator.enqueue(scriptedText());
  await clients().openai.responses.create({
    model: 'up-anthropic',
    input: [
      {
        role: 'user',
        content: [{ type: 'input_text', text: 'Hi', prompt_cache_breakpoint: { mode: 'explicit' } }],
      },
    ],
  });
  expect(JSON.stringify(sent())).toContain('"cache_control":{"type":"ephemeral"}');
});

it('chat safety_identifier and stream_options.include_obfuscation are ignored, not a 400', async () => {
  harness.emulator.enqueue(scriptedText());
  const stream = await clients().openai.chat.completions.create({
    model: 'up-chat',
    messages: user,
    safety_identifier: 'user-hash',
    stream: true,
    stream_options: { include_usage: true, include_obfuscation: false },
  });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  expect(text).not.toBe('');
});

it('responses reasoning.mode other than standard is a 400 naming it', async () => {
  const result = await refusal(
    clients().openai.responses.create({ model: 'up-responses', input: 'Hi', reasoning: { mode: 'pro' } }),
  );
  expect(result).toMatchObject({ status: 400, param: 'reasoning.mode' });
});

it('responses access_programs other than standard is a 400 naming it', async () => {
  const result = await refusal(
    clients().openai.responses.create({
      model: 'up-responses',
      input: 'Hi',
      access_programs: { cyber: 'daybreak_red' },
    }),
  );
  expect(result).toMatchObject({ status: 400, param: 'access_programs.cyber' });
});

it('responses fields that do not change the answer are ignored, not a 400', async () => {
  harness.emulator.enqueue(scriptedText());
  const response = await clients().openai.responses.create({
    model: 'up-responses',
    input: [
      { type: 'message', role: 'assistant', content: 'Earlier.', phase: 'final_answer' },
      { role: 'user', content: 'Hi' },
    ],
    access_programs: { cyber: 'standard' },
    context_management: [{ type: 'compaction', compact_threshold: 100_000 }],
    image: { context_compression: 'auto' },
    reasoning: { context: 'all_turns', generate_summary: 'auto', mode: 'standard' },
    tools: [
      {
        type: 'function',
        name: 'lookup',
        parameters: { type: 'object', properties: {} },
        strict: false,
        defer_loading: false,
        allowed_callers: ['direct'],
        output_schema: { type: 'object' },
      },
    ],
  });
  expect(response.output_text).not.toBe('');
});

it('responses prompt_cache_options.prewarm is a 400 naming it, nothing sent upstream', async () => {
  const before = upstreamCalls();
  const result = await refusal(
    clients().openai.responses.create({
      model: 'up-responses',
      input: 'Hi',
      prompt_cache_options: { prewarm: true },
    }),
  );
  expect(result).toMatchObject({ status: 400, param: 'prompt_cache_options.prewarm' });
  expect(upstreamCalls()).toBe(before);
});

it('a WebSocket response.create with generate false is an error event naming generate, nothing sent upstream', async () => {
  const before = upstreamCalls();
  const client = new OpenAI({ baseURL: `${harness.server.url}/v1`, apiKey: 'client-key', maxRetries: 0 });
  const ws = new ResponsesWS(client);
  ws.on('error', () => undefined);
  const refused = new Promise<Record<string, unknown>>((resolve) =>
    ws.on('event', (event) => {
      if (event.type === 'error') resolve(event as unknown as Record<string, unknown>);
    }),
  );
  ws.send({ type: 'response.create', model: 'up-responses', input: 'Hi', generate: false });
  expect(await refused).toMatchObject({ status: 400, error: { param: 'generate' } });
  ws.close();
  expect(upstreamCalls()).toBe(before);
});
