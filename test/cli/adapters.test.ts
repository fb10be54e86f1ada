/** Every API the CLI lists (`replay --api`, help) creates a real adapter that streams a response. */
import { describe, expect, it } from 'vitest';
import { apiNames, createAdapterFor, defaultModels, isApiName } from '../../src/cli/adapters.ts';
import { userText } from '../../src/core/transcript.ts';
import { startEmulator } from '../../src/testing/emulator/index.ts';
import { assertStreamInvariants } from '../../src/testing/invariants.ts';

describe('the APIs the CLI lists', () => {
  it.each(apiNames)('%s streams a scripted answer from the emulator through its adapter', async (api) => {
    const emulator = await startEmulator();
    try {
      emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: `hello over ${api}` }] });
      const adapter = await createAdapterFor(api, {
        baseURL: emulator.url,
        apiKey: 'test-key',
        maxRetries: 0,
      });
      const events = [];
      let text = '';
      for await (const event of adapter.stream({
        model: defaultModels[api],
        transcript: [userText('hi')],
        maxOutputTokens: 64,
      })) {
        events.push(event);
        if (event.type === 'text-delta') text += event.delta;
      }
      await adapter.close();
      assertStreamInvariants(events);
      expect(text).toBe(`hello over ${api}`);
      expect(emulator.requests).toHaveLength(1);
      expect(emulator.requests[0]?.api).toBe(api);
    } finally {
      await emulator.close();
    }
  });

  it('accepts exactly the listed names', () => {
    for (const api of apiNames) expect(isApiName(api)).toBe(true);
    for (const name of ['smoke-signals', 'toString', '__proto__', undefined])
      expect(isApiName(name)).toBe(false);
  });
});
