/**
 * The public conformance suite, imported by package name as a user would, against an adapter defined
 * outside `src/` (test/conformance/external/alias-adapter.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userText } from 'switchyard-ai';
import { createOpenAICompatible, presets } from 'switchyard-ai/openai-compatible';
import { runAdapterSuite, startEmulator } from 'switchyard-ai/testing';
import { withModelAliases } from './external/alias-adapter.ts';

const aliases = {
  'deepseek:fast': 'deepseek:deepseek-chat',
  'deepseek:thinking': 'deepseek:deepseek-reasoner',
};

runAdapterSuite({
  name: 'model aliases (external adapter)',
  protocol: 'openai-chat',
  model: 'deepseek:fast',
  harness: { describe, it, beforeAll, afterAll },
  createAdapter: (url, settings) =>
    withModelAliases(
      createOpenAICompatible(presets.deepseek, { ...settings, apiKey: 'test-key', baseURL: `${url}/v1` }),
      aliases,
    ),
  skip: {
    'retry-after-cap':
      'delegated unchanged to the inner adapter, whose cap the openai-compatible suite already checks; skipped to show a reasoned skip',
  },
});

describe('model aliases (external adapter)', () => {
  it('sends the model the alias stands for and declares its capabilities', async () => {
    const emulator = await startEmulator();
    const adapter = withModelAliases(
      createOpenAICompatible(presets.deepseek, {
        apiKey: 'test-key',
        baseURL: `${emulator.url}/v1`,
        maxRetries: 0,
      }),
      aliases,
    );
    try {
      emulator.enqueue({
        type: 'scripted',
        protocol: 'openai-chat',
        content: [{ type: 'text', text: 'ok' }],
      });
      await adapter.complete({
        model: 'deepseek:thinking',
        transcript: [userText('Hi')],
        maxOutputTokens: 64,
      });
      expect((emulator.requests.at(-1)?.body as { model: string }).model).toBe('deepseek-reasoner');
      expect(adapter.capabilities('deepseek:thinking').reasoning).toBe(true);
      expect(adapter.capabilities('deepseek:fast').reasoning).toBe(false);
    } finally {
      await adapter.close();
      await emulator.close();
    }
  });
});
