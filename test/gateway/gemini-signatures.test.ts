/**
 * A 3-turn tool conversation from an OpenAI Chat client (which has no field for signatures) to a
 * Gemini 3 thinking model, with the emulator enforcing Gemini's thought-signature rule: the
 * gateway keeps each call's signature by call id and gives it back, so every turn succeeds with the
 * real signatures (never the documented bypass value).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDrivers } from './drivers.ts';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

it('Chat client → Gemini 3: three turns of tool calls keep their thought signatures', async () => {
  const chat = createDrivers(createClients(harness.server.url)).find(
    (driver) => driver.name === 'openai-chat',
  )!;
  const history = chat.start('Compare the weather in Paris and Lyon, one city at a time.');
  const spec = { model: 'up-gemini3', stream: true, tools: true, reasoning: true };
  const weather = (call: { input: unknown }) => `sunny in ${(call.input as { city: string }).city}`;
  const usage = { input: 20, output: 5 };

  harness.emulator.enqueue({
    type: 'scripted',
    content: [
      { type: 'reasoning', text: 'Paris first.', signature: 'thought-sig-1' },
      { type: 'tool-call', name: 'get_weather', input: { city: 'Paris' }, signature: 'call-sig-1' },
    ],
    usage,
  });
  const first = await chat.call(history, spec);
  expect(first.toolCalls.map((call) => call.input)).toEqual([{ city: 'Paris' }]);
  chat.answer(history, first.toolCalls, weather);

  harness.emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'tool-call', name: 'get_weather', input: { city: 'Lyon' }, signature: 'call-sig-2' }],
    usage,
  });
  const second = await chat.call(history, spec);
  expect(second.toolCalls.map((call) => call.input)).toEqual([{ city: 'Lyon' }]);
  chat.answer(history, second.toolCalls, weather);

  harness.emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Both are sunny.' }], usage });
  const third = await chat.call(history, spec);
  expect(third.text).toBe('Both are sunny.');

  const [, secondRequest, thirdRequest] = harness.emulator.requests
    .slice(-3)
    .map((request) => JSON.stringify(request.body));
  expect(secondRequest).toContain('call-sig-1');
  expect(thirdRequest).toContain('call-sig-1');
  expect(thirdRequest).toContain('call-sig-2');
  expect(thirdRequest).toContain('thought-sig-1');
  expect(thirdRequest).not.toContain('skip_thought_signature_validator');
});
