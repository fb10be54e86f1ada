/**
 * Pass-through body fields (`providerOptions`) never say what the call is: in every adapter that
 * merges a body, the model and the conversation's messages there are refused before anything is
 * sent (`reserved_provider_option`, naming the field where the caller wrote it), so the model a reply
 * names and prices is the one sent; a pass-through `stream` or `stream_options` is left out (the
 * call's own streaming stands), and system blocks pass (`src/providers/common/pass-through.ts`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Adapter } from '../../src/core/adapter.ts';
import { AdapterError } from '../../src/core/errors/adapter-error.ts';
import type { JsonObject } from '../../src/core/json.ts';
import { createMemoryLogger } from '../../src/core/logger.ts';
import { userText } from '../../src/core/transcript.ts';
import { callFields as anthropicFields } from '../../src/providers/anthropic/request.ts';
import { callFields as bedrockFields } from '../../src/providers/bedrock/request.ts';
import { callFields as geminiFields } from '../../src/providers/gemini/request.ts';
import { callFields as chatFields } from '../../src/providers/openai-chat/request.ts';
import { callFields as responsesFields } from '../../src/providers/openai-responses/request.ts';
import { type Emulator, startEmulator } from '../../src/testing/emulator/index.ts';
import { createOnEmulator, type EmulatorAdapterOptions } from '../support/provider-types.ts';

interface Row {
  type: string;
  adapter: EmulatorAdapterOptions;
  model: string;
  /** Where the caller writes body fields, as the refusal names it. */
  option: string;
  /** `providerOptions` carrying `fields`. */
  options(fields: Record<string, string>): Record<string, JsonObject>;
  fields: readonly string[];
}

const rows: Row[] = [
  {
    type: 'openai',
    adapter: {},
    model: 'openai:gpt-4.1-mini',
    option: 'providerOptions.openai',
    options: (fields) => ({ openai: fields }),
    fields: chatFields,
  },
  {
    type: 'openai-compatible',
    adapter: { name: 'mistral', preset: 'mistral' },
    model: 'mistral:mistral-small-latest',
    option: 'providerOptions.mistral',
    options: (fields) => ({ mistral: fields }),
    fields: chatFields,
  },
  {
    type: 'openai-responses',
    adapter: { name: 'openai' },
    model: 'openai:gpt-5-mini',
    option: 'providerOptions.openai-responses',
    options: (fields) => ({ 'openai-responses': fields }),
    fields: responsesFields,
  },
  {
    type: 'openai-responses',
    adapter: { name: 'openai' },
    model: 'openai:gpt-5-mini',
    option: 'providerOptions.openai',
    options: (fields) => ({ openai: fields }),
    fields: responsesFields,
  },
  {
    type: 'anthropic',
    adapter: {},
    model: 'anthropic:claude-sonnet-4-5',
    option: 'providerOptions.anthropic.body',
    options: (fields) => ({ anthropic: { body: fields } }),
    fields: anthropicFields,
  },
  {
    type: 'bedrock',
    adapter: {},
    model: 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    option: 'providerOptions.bedrock.body',
    options: (fields) => ({ bedrock: { body: fields } }),
    fields: bedrockFields,
  },
  {
    type: 'vertex',
    adapter: {},
    model: 'vertex:gemini-2.5-flash',
    option: 'providerOptions.vertex.body',
    options: (fields) => ({ vertex: { body: fields } }),
    fields: geminiFields,
  },
];

let emulator: Emulator;
const adapters: Adapter[] = [];
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  for (const adapter of adapters) await adapter.close();
  await emulator.close();
});

describe.each(rows)('$type: $option', (row) => {
  let adapter: Adapter;
  beforeAll(() => {
    adapter = createOnEmulator(row.type, emulator.url, {
      apiKey: 'test-key',
      maxRetries: 0,
      logger: createMemoryLogger(),
      ...row.adapter,
    });
    adapters.push(adapter);
  });

  it.each(row.fields.map((field) => [field]))(
    'a pass-through %s is refused, naming it, before anything is sent (complete and stream)',
    async (field) => {
      const before = emulator.requests.length;
      const request = {
        model: row.model,
        transcript: [userText('Hi')],
        maxOutputTokens: 100,
        providerOptions: row.options({ [field]: 'o1-pro' }),
      };
      const error = await adapter.complete(request).catch((thrown: unknown) => thrown);
      expect(AdapterError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        errorClass: 'invalid_request',
        providerCode: 'reserved_provider_option',
      });
      expect((error as Error).message).toContain(`${row.option}.${field} cannot be sent`);
      const streamed = adapter.stream(request);
      const events: string[] = [];
      await expect(
        (async () => {
          for await (const event of streamed) events.push(event.type);
        })(),
      ).rejects.toMatchObject({ providerCode: 'reserved_provider_option' });
      expect(emulator.requests.length).toBe(before);
    },
  );

  it('a pass-through stream and stream_options are left out, the call’s own streaming kept; the call is served', async () => {
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Whole.' }] });
    const reply = await adapter.complete({
      model: row.model,
      transcript: [userText('Hi')],
      maxOutputTokens: 100,
      providerOptions: row.options({ stream: 'true', stream_options: 'x' }),
    });
    expect(reply.content).toMatchObject([{ type: 'text', text: 'Whole.' }]);
    const body = emulator.requests.at(-1)?.body as Record<string, unknown>;
    expect(body.stream === undefined || body.stream === false).toBe(true);
    expect(body.stream_options).toBeUndefined();
  });
});

it('an Anthropic body’s own system blocks (a cache_control of the caller’s) pass through', async () => {
  const adapter = createOnEmulator('anthropic', emulator.url, {
    apiKey: 'test-key',
    maxRetries: 0,
    logger: createMemoryLogger(),
  });
  adapters.push(adapter);
  emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Ok.' }] });
  const system = [{ type: 'text', text: 'Be terse.', cache_control: { type: 'ephemeral' } }];
  await adapter.complete({
    model: 'anthropic:claude-sonnet-4-5',
    transcript: [userText('Hi')],
    maxOutputTokens: 100,
    providerOptions: { anthropic: { body: { system } } },
  });
  expect((emulator.requests.at(-1)?.body as { system: unknown }).system).toEqual(system);
});
