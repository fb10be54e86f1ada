/**
 * One rule, one implementation: a front-door call is checked against its candidate's capabilities
 * and context window once, by the router; the adapter's pre-flight decides them only for a call
 * made to the adapter directly. Counted through the provider's token estimator, which the context
 * check calls when a request's cheap bound could overflow the window.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenEstimateInput } from '../core/adapter.ts';
import { silentLogger } from '../core/logger.ts';
import { userText } from '../core/transcript.ts';
import { createHttpAdapter } from '../providers/common/http-adapter.ts';
import { createTestDefinition } from '../providers/common/test-provider.ts';
import { createProviderTypeTable, registerProviderType } from '../registry/provider-type-table.ts';
import { createSwitchyard } from '../switchyard.ts';
import { type Emulator, startEmulator } from '../testing/emulator/index.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

/**
 * A window of 100 tokens; the text's cheap bound is far over 150, its estimate (`tokens`, 10 by
 * default) is not.
 */
function counted(tokens = 10) {
  const estimates: TokenEstimateInput[] = [];
  const definition = createTestDefinition({ contextWindow: 100 });
  definition.estimateInputTokens = (input) => {
    estimates.push(input);
    return tokens;
  };
  // Usage reported, so the usage fallback (which estimates too) stays out of the count.
  const { createStreamParser, parseResponse } = definition;
  definition.createStreamParser = (context, builder) => {
    const parser = createStreamParser(context, builder);
    return {
      ...parser,
      onEnd() {
        builder.usage({ input: 10, output: 1 });
        parser.onEnd();
      },
    };
  };
  definition.parseResponse = (body, context, builder) => {
    parseResponse(body, context, builder);
    builder.usage({ input: 10, output: 1 });
  };
  const create = () =>
    createHttpAdapter(definition, { baseURL: emulator.url, apiKey: 'test-key', logger: silentLogger });
  return { estimates, create };
}

const transcript = [userText('word '.repeat(400))];
const answer = (stream = true) =>
  emulator.enqueue(
    stream
      ? {
          type: 'sse',
          events: [{ data: { t: 'text', v: 'ok' } }, { data: { t: 'end' } }],
          enforce: false,
        }
      : { type: 'json', body: { text: 'ok' }, enforce: false },
  );

describe('the pre-flight check runs once per call', () => {
  it('through the front door: the router decides, the adapter does not check again', async () => {
    const { estimates, create } = counted();
    const providerTypes = createProviderTypeTable();
    registerProviderType(
      { type: 'test', keyVariables: () => [], keyRequired: () => false, create },
      providerTypes,
    );
    const sy = createSwitchyard({
      providerTypes,
      logger: silentLogger,
      config: { builtins: false, adapters: { test: { type: 'test', max_retries: 0 } } },
    });
    answer();
    const reply = await sy.stream({ model: 'test:model', transcript, maxOutputTokens: 10 });
    expect(reply.text).toBe('ok');
    expect(estimates).toHaveLength(1);
    answer(false);
    expect((await sy.complete({ model: 'test:model', transcript, maxOutputTokens: 10 })).text).toBe('ok');
    expect(estimates).toHaveLength(2);
    await sy.close();
  });

  it('called directly: the adapter runs its own pre-flight', async () => {
    const { estimates, create } = counted();
    const adapter = create();
    answer();
    const stream = adapter.stream({ model: 'test:model', transcript, maxOutputTokens: 10 });
    for await (const _event of stream);
    expect((await stream.result()).finishReason).toBe('completed');
    expect(estimates).toHaveLength(1);
    await adapter.close();
  });

  it("each candidate's adapter counts with its own estimator: one adapter's count over the window does not skip another's", async () => {
    // The first adapter's tokenizer counts 1,000 (over 1.5× its window of 100); the fallback's counts 10.
    const many = counted(1000);
    const few = counted(10);
    const providerTypes = createProviderTypeTable();
    for (const [type, { create }] of [
      ['many', many],
      ['few', few],
    ] as const)
      registerProviderType({ type, keyVariables: () => [], keyRequired: () => false, create }, providerTypes);
    const sy = createSwitchyard({
      providerTypes,
      logger: silentLogger,
      config: {
        builtins: false,
        adapters: { first: { type: 'many', max_retries: 0 }, second: { type: 'few', max_retries: 0 } },
        models: { 'first:model': { fallbacks: ['second:model'] } },
      },
    });
    answer(false);
    const reply = await sy.complete({ model: 'first:model', transcript, maxOutputTokens: 10 });
    expect(reply.text).toBe('ok');
    expect([many.estimates.length, few.estimates.length]).toEqual([1, 1]);
    await sy.close();
  });
});
