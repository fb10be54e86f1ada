import { setFlagsFromString } from 'node:v8';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../core/request.ts';
import { userText } from '../../core/transcript.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { anthropicDefinition } from '../anthropic/definition.ts';
import { createBedrockDefinition } from '../bedrock/definition.ts';
import { createGeminiDefinition } from '../gemini/definition.ts';
import { createChatDefinition } from '../openai-chat/definition.ts';
import { openaiQuirks } from '../openai-chat/quirks.ts';
import { createResponsesDefinition } from '../openai-responses/definition.ts';
import { responsesPresets } from '../openai-responses/presets.ts';
import type { ProviderContext, ProviderDefinition } from './definition.ts';
import { createDormantCall } from './dormant-call.ts';
import { createHttpAdapter } from './http-adapter.ts';
import { createHttpRuntime } from './http-runtime.ts';
import { streamCall } from './stream-call.ts';
import { createTestDefinition } from './test-provider.ts';

const request: CanonicalRequest = { model: 'test:model', transcript: [userText('hi')], maxOutputTokens: 10 };

/** V8's own answer to "do these two objects have the same hidden class" (`%HaveSameMap`). */
function sameHiddenClass(left: object, right: object): boolean {
  setFlagsFromString('--allow-natives-syntax');
  try {
    return (
      new Function('left', 'right', 'return %HaveSameMap(left, right)') as (...args: object[]) => boolean
    )(left, right);
  } finally {
    setFlagsFromString('--no-allow-natives-syntax');
  }
}

describe('the dormant call (keeps the hidden classes of a call alive between calls)', () => {
  let emulator: Emulator;
  beforeEach(async () => {
    emulator = await startEmulator();
  });
  afterEach(async () => {
    await emulator.close();
  });

  it("a streamed call's stream, context, builder and request copy have the hidden classes of the dormant call's", async () => {
    let seen: { context: ProviderContext; builder: StreamBuilder } | undefined;
    let seenRequest: CanonicalRequest | undefined;
    const base = createTestDefinition();
    const definition: ProviderDefinition = {
      ...base,
      buildRequest(request, context) {
        seenRequest = request;
        return base.buildRequest(request, context);
      },
      createStreamParser(context, builder) {
        seen = { context, builder };
        return base.createStreamParser(context, builder);
      },
    };
    const runtime = createHttpRuntime(definition, {
      baseURL: emulator.url,
      apiKey: 'sk-test',
      maxRetries: 0,
    });
    const dormant = createDormantCall(runtime);
    emulator.enqueue({
      type: 'sse',
      events: [{ data: { t: 'text', v: 'hello' } }, { data: { t: 'end' } }],
      enforce: false,
    });
    const stream = streamCall(runtime, request);
    for await (const _event of stream);
    expect((await stream.result()).finishReason).toBe('completed');
    const [, , dormantStream, dormantContext, dormantBuilder, , , , , dormantRequest] = dormant;
    expect(sameHiddenClass(stream, dormantBuilder!)).toBe(false); // the check tells classes apart
    expect(sameHiddenClass(stream, dormantStream!)).toBe(true);
    expect(sameHiddenClass(seen!.context, dormantContext!)).toBe(true);
    expect(sameHiddenClass(seen!.builder, dormantBuilder!)).toBe(true);
    // The boundary's copy of a request of the everyday shape.
    expect(sameHiddenClass(seenRequest!, dormantRequest!)).toBe(true);
    await runtime.http.close();
  });

  it('creating an adapter starts no timer and holds no handle', async () => {
    const before = process.getActiveResourcesInfo().sort();
    const adapter = createHttpAdapter(createTestDefinition(), { baseURL: emulator.url, apiKey: 'sk-test' });
    expect(process.getActiveResourcesInfo().sort()).toEqual(before);
    await adapter.close();
  });

  it('is made for every protocol (its parser and decoder included)', () => {
    const preset = responsesPresets.openai;
    const definitions: ProviderDefinition[] = [
      anthropicDefinition,
      createChatDefinition({ name: 'openai', quirks: openaiQuirks }),
      createResponsesDefinition({ name: 'openai', baseURL: preset.baseURL, host: preset.host }),
      createGeminiDefinition({ useJsonSchema: 'auto' }),
      createBedrockDefinition({ region: 'us-east-1', env: {} }),
    ];
    for (const definition of definitions) {
      const dormant = createDormantCall(createHttpRuntime(definition, { apiKey: 'sk-test', env: {} }));
      expect(dormant, definition.protocol).toHaveLength(10);
    }
  });
});
