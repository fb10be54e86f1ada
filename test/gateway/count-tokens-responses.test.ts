/**
 * OpenAI's `POST /v1/responses/input_tokens` (the `openai` SDK's `responses.inputTokens.count`) for
 * a model whose adapter has no count endpoint (Chat Completions): its own local count of what the
 * generation would send, a stored conversation (`previous_response_id`) included, in Responses'
 * shape; no upstream call is made (a Responses upstream is asked: count-tokens-upstream.test.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openaiError } from '../../src/testing/emulator/index.ts';
import { createClients, type GatewayHarness, scriptedText, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

it('the openai SDK counts a Responses request: the same number the Chat framing of the same model gives, no upstream call', async () => {
  const { openai, anthropic } = createClients(harness.server.url);
  const before = harness.emulator.requests.length;
  const counted = await openai.responses.inputTokens.count({
    model: 'up-chat',
    input: 'Hello, how are you?',
  });
  expect(counted).toEqual({ object: 'response.input_tokens', input_tokens: expect.any(Number) });
  const same = await anthropic.messages.countTokens({
    model: 'up-chat',
    messages: [{ role: 'user', content: 'Hello, how are you?' }],
  });
  expect(counted.input_tokens).toBe(same.input_tokens);
  expect(harness.emulator.requests.length).toBe(before);
});

it('a previous_response_id counts its stored conversation too; an unknown one is a 404 naming it', async () => {
  const { openai } = createClients(harness.server.url);
  harness.emulator.enqueue(scriptedText('A long answer about the weather in Paris in the spring.'));
  const first = await openai.responses.create({ model: 'up-chat', input: 'Tell me about Paris.' });
  const alone = await openai.responses.inputTokens.count({ model: 'up-chat', input: 'And Lyon?' });
  const chained = await openai.responses.inputTokens.count({
    model: 'up-chat',
    input: 'And Lyon?',
    previous_response_id: first.id,
  });
  expect(chained.input_tokens).toBeGreaterThan(alone.input_tokens + 10);
  const response = await harness.post('/v1/responses/input_tokens', {
    model: 'up-chat',
    input: 'Hi',
    previous_response_id: 'resp_0123456789abcdef',
  });
  expect(response.status).toBe(404);
  expect(await response.json()).toMatchObject({
    error: {
      message: "Previous response with id 'resp_0123456789abcdef' not found.",
      param: 'previous_response_id',
      code: 'previous_response_not_found',
    },
  });
});

it('a malformed request is a 400 in Responses’ error shape', async () => {
  const response = await harness.post('/v1/responses/input_tokens', { model: 'up-chat', input: 42 });
  expect(response.status).toBe(400);
  expect(await response.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
});

it('built-in tools count toward a Responses upstream: sent to its own count; estimated, a fixed estimate per definition (web_search 200, apply_patch 600); not where they would be left out', async () => {
  const { openai } = createClients(harness.server.url);
  const exact = await openai.responses.inputTokens.count({
    model: 'up-responses',
    input: 'Search the web.',
    tools: [{ type: 'web_search' }, { type: 'mcp', server_label: 'docs' }],
  } as Parameters<typeof openai.responses.inputTokens.count>[0]);
  expect(exact.input_tokens).toBeGreaterThan(0);
  const sent = harness.emulator.requests.at(-1)!;
  expect(sent.path).toBe('/v1/responses/input_tokens');
  expect((sent.body as { tools?: unknown }).tools).toEqual([{ type: 'web_search' }]);
  // The estimate, when the upstream cannot count.
  harness.emulator.setCountScript(openaiError(503, 'busy'));
  const count = async (model: string, tools?: unknown[]) =>
    (
      await openai.responses.inputTokens.count({
        model,
        input: 'Search the web.',
        ...(tools === undefined ? {} : { tools }),
      } as Parameters<typeof openai.responses.inputTokens.count>[0])
    ).input_tokens;
  const builtins = [{ type: 'web_search' }, { type: 'apply_patch' }];
  expect((await count('up-responses', builtins)) - (await count('up-responses'))).toBe(800);
  // mcp is not in the default gateway.builtin_tools: the generation would leave it out.
  expect(await count('up-responses', [{ type: 'mcp', server_label: 'docs' }])).toBe(
    await count('up-responses'),
  );
  expect(await count('up-anthropic', builtins)).toBe(await count('up-anthropic'));
  harness.emulator.setCountScript(undefined);
});

it('what a count leaves out is named in the WARN, as for the generation (mcp is not in the default gateway.builtin_tools)', async () => {
  const before = harness.logger.entries.length;
  const response = await harness.post('/v1/responses/input_tokens', {
    model: 'up-responses',
    input: 'Hi',
    tools: [{ type: 'mcp', server_label: 'docs' }],
  });
  expect(response.status).toBe(200);
  const warning = harness.logger.entries
    .slice(before)
    .find((entry) => entry.message === 'gateway: part of the request was left out');
  expect(JSON.stringify(warning?.fields)).toContain("tools.0: tool type 'mcp' is not offered to the model");
});
