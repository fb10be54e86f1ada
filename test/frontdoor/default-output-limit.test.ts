/**
 * A request that sets no `maxOutputTokens`. Where the field is optional on the wire (OpenAI Chat
 * and Responses, Gemini) it is left out: the provider's default, the model's own limit, so a
 * reasoning model is not cut short (one cut at 4,096 answered empty). Anthropic requires it: 4,096,
 * or 32,768 when the request asks for reasoning, within the model's limit and lowered to the room
 * the input leaves in the context window.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { userText } from '../../src/core/transcript.ts';
import type { Switchyard } from '../../src/switchyard.ts';
import type { Emulator } from '../../src/testing/emulator/index.ts';
import { startEmulatedSwitchyard } from '../support/emulated.ts';

let emulator: Emulator;
let sy: Switchyard;
let close: () => Promise<void>;

beforeAll(async () => {
  ({
    emulator,
    switchyard: sy,
    close,
  } = await startEmulatedSwitchyard({
    logger: { warn() {} },
    adapters: { anthropic: 'anthropic', openai: 'openai', responses: 'openai-responses', gemini: 'gemini' },
    apiKey: 'k',
    config: {
      models: {
        'anthropic:claude-sonnet-4-5': {},
        // A small window, so that a few thousand tokens of input leave less room than the model's limit.
        'anthropic:claude-haiku-4-5': { capabilities: { contextWindow: 40_000, maxOutputTokens: 32_000 } },
        'openai:gpt-5-mini': {},
        'responses:gpt-5-mini': {},
        'gemini:gemini-2.5-flash': {},
      },
    },
  }));
  emulator.setDefault({
    type: 'scripted',
    content: [{ type: 'text', text: 'Hi.' }],
    usage: { input: 3, output: 1 },
  });
});
afterAll(() => close?.());

const lastBody = () => emulator.requests.at(-1)!.body as Record<string, unknown>;

it('Anthropic gets 4,096, as before, and 32,768 when the request asks for reasoning', async () => {
  await sy.complete({ model: 'anthropic:claude-sonnet-4-5', transcript: [userText('Hi')] });
  expect(lastBody().max_tokens).toBe(4096);
  await sy.complete({
    model: 'anthropic:claude-sonnet-4-5',
    transcript: [userText('Hi')],
    reasoning: { effort: 'high' },
  });
  expect(lastBody().max_tokens).toBe(32_768);
});

it('a reasoning request gets the room a long input leaves in the window when that is less, never below 4,096', async () => {
  const long = 'The quick brown fox jumps over the lazy dog. '.repeat(500); // 22,500 bytes
  const transcript = [userText(long)];
  await sy.complete({ model: 'anthropic:claude-haiku-4-5', transcript, reasoning: { effort: 'high' } });
  const sent = lastBody().max_tokens as number;
  expect(sent).toBeLessThan(32_000);
  expect(sent).toBeGreaterThan(4096);
  // Each byte of text is at most a token: the limit leaves the whole input room in the window.
  expect(sent + Buffer.byteLength(long)).toBeLessThanOrEqual(40_000);
  await sy.complete({
    model: 'anthropic:claude-haiku-4-5',
    transcript: [userText(long.repeat(2))],
    reasoning: { effort: 'high' },
  });
  expect(lastBody().max_tokens).toBe(4096);
});

it('OpenAI Chat, OpenAI Responses and Gemini leave the limit to the provider: no field on the wire', async () => {
  await sy.complete({
    model: 'openai:gpt-5-mini',
    transcript: [userText('Hi')],
    reasoning: { effort: 'high' },
  });
  expect(lastBody()).not.toHaveProperty('max_completion_tokens');
  expect(lastBody()).not.toHaveProperty('max_tokens');
  await sy.complete({ model: 'responses:gpt-5-mini', transcript: [userText('Hi')] });
  expect(lastBody()).not.toHaveProperty('max_output_tokens');
  await sy.complete({ model: 'gemini:gemini-2.5-flash', transcript: [userText('Hi')] });
  expect(lastBody().generationConfig ?? {}).not.toHaveProperty('maxOutputTokens');
});

it('a limit the caller sets is sent as given, on every protocol', async () => {
  const transcript = [userText('Hi')];
  await sy.complete({ model: 'anthropic:claude-sonnet-4-5', transcript, maxOutputTokens: 300 });
  expect(lastBody().max_tokens).toBe(300);
  await sy.complete({ model: 'openai:gpt-5-mini', transcript, maxOutputTokens: 300 });
  expect(lastBody().max_completion_tokens).toBe(300);
  await sy.complete({ model: 'responses:gpt-5-mini', transcript, maxOutputTokens: 300 });
  expect(lastBody().max_output_tokens).toBe(300);
  await sy.complete({ model: 'gemini:gemini-2.5-flash', transcript, maxOutputTokens: 300 });
  expect(lastBody().generationConfig).toMatchObject({ maxOutputTokens: 300 });
});
