/**
 * `sy.estimateInputTokens`: a request's input tokens counted locally by the adapter of the model it
 * names (its provider's calibration), without a network call; a name that does not resolve or an
 * adapter without its key fails as a call would.
 */
import { expect, it } from 'vitest';
import { userText } from '../../src/core/transcript.ts';
import { createSwitchyard } from '../../src/switchyard.ts';

const noNetwork: typeof fetch = () => Promise.reject(new Error('no network call is expected'));

const sy = () =>
  createSwitchyard({
    env: { ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'k' },
    fetch: noNetwork,
    logger: { warn() {} },
  });

it('counts with the named model’s adapter: Claude’s calibration meets the recorded 12 tokens, OpenAI’s tokenizer gives 13', async () => {
  const transcript = [userText('Hello, how are you?')];
  const client = sy();
  expect(await client.estimateInputTokens({ model: 'anthropic:claude-sonnet-4-5', transcript })).toBe(12);
  expect(await client.estimateInputTokens({ model: 'openai:gpt-5-mini', transcript })).toBe(13);
  await client.close();
});

it('counts tool definitions too', async () => {
  const client = sy();
  const transcript = [userText('Weather?')];
  const tools = [
    { name: 'get_weather', description: 'The weather in a city.', inputSchema: { type: 'object' } },
  ];
  const bare = await client.estimateInputTokens({ model: 'anthropic:claude-sonnet-4-5', transcript });
  const withTools = await client.estimateInputTokens({
    model: 'anthropic:claude-sonnet-4-5',
    transcript,
    tools,
  });
  expect(withTools).toBeGreaterThan(bare);
  await client.close();
});

it('an unknown name and an adapter without its key are rejected as a call would be', async () => {
  const client = sy();
  const transcript = [userText('Hi')];
  await expect(client.estimateInputTokens({ model: 'nope:model', transcript })).rejects.toMatchObject({
    providerCode: 'unknown_model',
  });
  await expect(
    client.estimateInputTokens({ model: 'gemini:gemini-2.5-flash', transcript }),
  ).rejects.toMatchObject({
    providerCode: 'not_configured',
  });
  await client.close();
});
