/**
 * `countCall`'s memory of an absent count endpoint: a host that answered 404, 405 or 501 at its
 * count URL is not asked again for that model until `absentCountEndpointMs` of the adapter's clock
 * have passed; its counts reject at once with the status it answered.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { Adapter } from '../../core/adapter.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { userText } from '../../core/transcript.ts';
import { type Emulator, openaiError, startEmulator } from '../../testing/emulator/index.ts';
import { createOpenAIResponses } from '../openai-responses/index.ts';
import { absentCountEndpointMs } from './count-call.ts';

let emulator: Emulator;
let clock = Date.UTC(2026, 0, 1);
let adapter: Adapter;

beforeAll(async () => {
  emulator = await startEmulator();
  adapter = createOpenAIResponses({ apiKey: 'sk-count', baseURL: `${emulator.url}/v1`, now: () => clock });
});
afterEach(() => emulator.setCountScript(undefined));
afterAll(async () => {
  await adapter?.close();
  await emulator?.close();
});

const request = (model: string): CanonicalRequest => ({
  model: `openai:${model}`,
  transcript: [userText('Hello, how are you?')],
  maxOutputTokens: 64,
});
const asked = (model: string, since: number) =>
  emulator.requests
    .slice(since)
    .filter(
      (entry) => entry.path.endsWith('/responses/input_tokens') && JSON.stringify(entry.body).includes(model),
    );

it('a host without the count endpoint (404) is asked once; its next count rejects at once, nothing sent', async () => {
  emulator.setCountScript(openaiError(404, 'Not Found'));
  const before = emulator.requests.length;
  await expect(adapter.countInputTokens!(request('gpt-5-mini'))).rejects.toMatchObject({ status: 404 });
  await expect(adapter.countInputTokens!(request('gpt-5-mini'))).rejects.toMatchObject({
    status: 404,
    providerCode: 'count_endpoint_absent',
    message: expect.stringMatching(/not asked again until/),
  });
  expect(asked('gpt-5-mini', before)).toHaveLength(1);
});

it('after the window the endpoint is asked again, and counts once it answers', async () => {
  emulator.setCountScript({ type: 'json', status: 405, body: '' });
  const before = emulator.requests.length;
  await expect(adapter.countInputTokens!(request('gpt-4.1-nano'))).rejects.toMatchObject({ status: 405 });
  clock += absentCountEndpointMs - 1;
  await expect(adapter.countInputTokens!(request('gpt-4.1-nano'))).rejects.toMatchObject({
    providerCode: 'count_endpoint_absent',
  });
  expect(asked('gpt-4.1-nano', before)).toHaveLength(1);
  emulator.setCountScript(undefined);
  clock += 1;
  expect(await adapter.countInputTokens!(request('gpt-4.1-nano'))).toBeGreaterThan(0);
  expect(asked('gpt-4.1-nano', before)).toHaveLength(2);
});

it('a 501 is remembered too, per model: another model at the same host is still asked', async () => {
  emulator.setCountScript(openaiError(501, 'Not Implemented'));
  const before = emulator.requests.length;
  await expect(adapter.countInputTokens!(request('gpt-5'))).rejects.toMatchObject({ status: 501 });
  emulator.setCountScript(undefined);
  await expect(adapter.countInputTokens!(request('gpt-5'))).rejects.toMatchObject({
    providerCode: 'count_endpoint_absent',
  });
  expect(await adapter.countInputTokens!(request('gpt-5.1'))).toBeGreaterThan(0);
  expect(asked('gpt-5"', before)).toHaveLength(1);
  expect(asked('gpt-5.1', before)).toHaveLength(1);
});

it('a 400 or a 503 is not remembered: the next count is asked again', async () => {
  for (const status of [400, 503]) {
    emulator.setCountScript(openaiError(status, 'no'));
    const model = `gpt-4o-${status}`;
    const before = emulator.requests.length;
    await expect(adapter.countInputTokens!(request(model))).rejects.toMatchObject({ status });
    await expect(adapter.countInputTokens!(request(model))).rejects.toMatchObject({ status });
    expect(asked(model, before)).toHaveLength(2);
  }
});

it('a 404 about the request’s own state (an unknown previous_response_id) is that request’s error, not an absent endpoint', async () => {
  emulator.setCountScript(
    openaiError(404, "Previous response with id 'resp_gone' not found.", {
      code: 'previous_response_not_found',
    }),
  );
  const before = emulator.requests.length;
  await expect(
    adapter.countInputTokens!({
      ...request('gpt-5-nano'),
      providerOptions: { 'openai-responses': { previous_response_id: 'resp_gone' } },
    }),
  ).rejects.toMatchObject({ status: 404, errorClass: 'invalid_request' });
  emulator.setCountScript(undefined);
  // Another caller's count of the same model is sent, and counted.
  expect(typeof (await adapter.countInputTokens!(request('gpt-5-nano')))).toBe('number');
  expect(asked('gpt-5-nano', before)).toHaveLength(2);
});
