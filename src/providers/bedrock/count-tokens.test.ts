/**
 * Bedrock's CountTokens: the Converse fields as `input.converse`, the InvokeModel body base64 as
 * `input.invokeModel.body`, at `/model/{foundation-model id}/count-tokens` on the generation's host,
 * SigV4-signed; Claude only; a model the endpoint does not count is remembered, not a 400.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Adapter } from '../../core/adapter.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { userText } from '../../core/transcript.ts';
import type { ProviderContext } from '../common/definition.ts';
import { emulatedTokenCount } from '../../testing/emulator/builtin.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { bedrockError } from '../../testing/emulator/rules/bedrock.ts';
import { buildCountRequest, parseTokenCount } from './count-tokens.ts';
import { createBedrock } from './index.ts';

const context = (model: string) => ({ model, provider: 'bedrock' }) as ProviderContext;
const claude = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const countPath = `/model/${encodeURIComponent(claude)}/count-tokens`;

describe('bedrock count-tokens', () => {
  it('a Converse request: the fields CountTokens takes, as input.converse, at the foundation-model id', () => {
    const wire = {
      path: `/model/${encodeURIComponent(`us.${claude}`)}/converse`,
      body: {
        messages: [{ role: 'user', content: [{ text: 'Hi' }] }],
        system: [{ text: 'Be brief.' }],
        inferenceConfig: { maxTokens: 64 },
        toolConfig: { tools: [] },
        additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1024 } },
      },
    };
    expect(buildCountRequest(wire, context(`us.${claude}`))).toEqual({
      path: countPath,
      body: {
        input: {
          converse: {
            messages: [{ role: 'user', content: [{ text: 'Hi' }] }],
            system: [{ text: 'Be brief.' }],
            toolConfig: { tools: [] },
            additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1024 } },
          },
        },
      },
    });
  });

  it('an InvokeModel request: its whole body, base64, as input.invokeModel.body; an ARN’s host kept', () => {
    const arn = `arn:aws:bedrock:eu-west-1::foundation-model/${claude}`;
    const body = { anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, messages: [] };
    const wire = {
      path: `/model/${encodeURIComponent(arn)}/invoke`,
      body,
      baseURL: 'https://bedrock-runtime.eu-west-1.amazonaws.com',
    };
    const counted = buildCountRequest(wire, context(arn));
    expect(counted).toMatchObject({
      path: countPath,
      baseURL: 'https://bedrock-runtime.eu-west-1.amazonaws.com',
    });
    const encoded = (counted!.body.input as { invokeModel: { body: string } }).invokeModel.body;
    expect(JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'))).toEqual(body);
  });

  it('a model not Claude (Nova, an application inference profile) is not counted here', () => {
    const wire = { path: '/model/amazon.nova-pro-v1%3A0/converse', body: { messages: [] } };
    expect(buildCountRequest(wire, context('amazon.nova-pro-v1:0'))).toBeUndefined();
    const profile = 'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123';
    expect(buildCountRequest(wire, context(profile))).toBeUndefined();
  });

  it('reads inputTokens, and nothing from a body without it', () => {
    expect(parseTokenCount({ inputTokens: 17 })).toBe(17);
    expect(parseTokenCount({ input_tokens: 17 })).toBeUndefined();
  });
});

describe('bedrock count-tokens on the emulator', () => {
  let emulator: Emulator;
  const adapters: Adapter[] = [];
  const credentials = { accessKeyId: 'AKIDEXAMPLE0000000000', secretAccessKey: 'secret-bedrock-count-key' };
  const create = (protocol?: 'invoke') => {
    const adapter = createBedrock({
      region: 'us-east-1',
      credentials,
      env: {},
      baseURL: emulator.url,
      ...(protocol === undefined ? {} : { protocol }),
    });
    adapters.push(adapter);
    return adapter;
  };
  const request = (model: string): CanonicalRequest => ({
    model: `bedrock:${model}`,
    transcript: [userText('Hello, how are you?')],
    maxOutputTokens: 64,
  });
  beforeAll(async () => {
    emulator = await startEmulator();
  });
  afterAll(async () => {
    await Promise.all(adapters.map((adapter) => adapter.close()));
    await emulator?.close();
  });

  it.each([['converse' as const], ['invoke' as const]])(
    '%s: one signed request to /count-tokens, its inputTokens returned',
    async (protocol) => {
      const adapter = create(protocol === 'invoke' ? 'invoke' : undefined);
      const before = emulator.requests.length;
      const counted = await adapter.countInputTokens!(request(`us.${claude}`));
      const [asked, ...more] = emulator.requests.slice(before);
      expect(more).toEqual([]);
      expect(asked!.path).toBe(countPath);
      expect(asked!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE0000000000\//);
      expect(Object.keys((asked!.body as { input: object }).input)).toEqual([
        protocol === 'invoke' ? 'invokeModel' : 'converse',
      ]);
      expect(counted).toBe(emulatedTokenCount(asked!.body));
    },
  );

  it('a model the endpoint does not count (ValidationException): class other, remembered, not asked again', async () => {
    const adapter = create();
    emulator.setCountScript(
      bedrockError(400, 'ValidationException', "The provided model doesn't support counting tokens."),
    );
    try {
      const before = emulator.requests.length;
      for (let count = 0; count < 2; count += 1)
        await expect(
          adapter.countInputTokens!(request('anthropic.claude-3-haiku-20240307-v1:0')),
        ).rejects.toMatchObject({
          errorClass: 'other',
          status: 400,
          providerCode: 'count_endpoint_absent',
        });
      expect(emulator.requests.length).toBe(before + 1);
    } finally {
      emulator.setCountScript(undefined);
    }
  });
});
