import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../core/logger.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { azureResponsesPreset } from '../openai-responses/index.ts';
import { azureChatQuirks, azurePreset, createAzureOpenAI } from './azure.ts';

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator.close();
});

const request = {
  model: 'azure:my-gpt-4o',
  transcript: [{ kind: 'user' as const, parts: [{ type: 'text' as const, text: 'Hi' }] }],
  maxOutputTokens: 64,
};

async function sent(adapter: ReturnType<typeof createAzureOpenAI>) {
  const before = emulator.requests.length;
  emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Hello' }] });
  const response = await adapter.complete(request);
  const { path, query, headers, body } = emulator.requests[before]!;
  return { response, path, query, apiKey: headers['api-key'], authorization: headers.authorization, body };
}

describe('Azure OpenAI over Chat Completions (quirks: URL, api-key header, api-version)', () => {
  it('v1 surface: /openai/v1/chat/completions, api-key header, the deployment as model', async () => {
    const azure = createAzureOpenAI({
      apiKey: 'azure-key',
      baseURL: `${emulator.url}/openai/v1`,
      logger: silentLogger,
    });
    const { response, path, query, apiKey, authorization, body } = await sent(azure);
    expect({
      path,
      query,
      apiKey,
      authorization,
      model: body && (body as { model: string }).model,
    }).toMatchInlineSnapshot(`
      {
        "apiKey": "azure-key",
        "authorization": undefined,
        "model": "my-gpt-4o",
        "path": "/openai/v1/chat/completions",
        "query": {},
      }
    `);
    expect(response).toMatchObject({ provider: 'azure', finishReason: 'completed' });
  });

  it('deployment URLs: /openai/deployments/{deployment}/chat/completions?api-version=2024-10-21', async () => {
    const azure = createAzureOpenAI({
      apiKey: 'azure-key',
      baseURL: `${emulator.url}/openai`,
      deploymentUrls: true,
      logger: silentLogger,
    });
    const { path, query, apiKey } = await sent(azure);
    expect({ path, query, apiKey }).toMatchInlineSnapshot(`
      {
        "apiKey": "azure-key",
        "path": "/openai/deployments/my-gpt-4o/chat/completions",
        "query": {
          "api-version": "2024-10-21",
        },
      }
    `);
  });

  it('builds the resource URL from resourceName and reads AZURE_OPENAI_API_KEY', () => {
    vi.stubEnv('AZURE_OPENAI_API_KEY', 'from-env');
    const azure = createAzureOpenAI({ resourceName: 'my-resource' });
    expect(azure.name).toBe('azure');
    expect(azureChatQuirks({ resourceName: 'my-resource' })).toMatchObject({
      baseURL: 'https://my-resource.openai.azure.com/openai/v1',
      authHeader: 'api-key',
      apiKeyEnv: 'AZURE_OPENAI_API_KEY',
    });
    expect(azureChatQuirks({ resourceName: 'my-resource', deploymentUrls: true }).baseURL).toBe(
      'https://my-resource.openai.azure.com/openai',
    );
    vi.unstubAllEnvs();
  });

  it('reads the resource name from the env option, not process.env, when one is given', () => {
    vi.stubEnv('AZURE_OPENAI_RESOURCE_NAME', 'process-resource');
    expect(azurePreset({ env: { AZURE_OPENAI_RESOURCE_NAME: 'env-resource' } }).quirks?.baseURL).toBe(
      'https://env-resource.openai.azure.com/openai/v1',
    );
    expect(azureResponsesPreset({ env: { AZURE_OPENAI_RESOURCE_NAME: 'env-resource' } }).baseURL).toBe(
      'https://env-resource.openai.azure.com/openai/v1',
    );
    expect(() => azurePreset({ env: {} })).toThrowError(/pass resourceName/);
    vi.unstubAllEnvs();
  });

  it('without a resource name or base URL it fails at creation, naming what to pass', () => {
    vi.stubEnv('AZURE_OPENAI_RESOURCE_NAME', '');
    expect(() => createAzureOpenAI({ apiKey: 'k' })).toThrowError(/pass resourceName .* or baseURL/);
    vi.unstubAllEnvs();
  });

  it('without a key a call fails before HTTP with an AuthError naming AZURE_OPENAI_API_KEY', async () => {
    vi.stubEnv('AZURE_OPENAI_API_KEY', '');
    const before = emulator.requests.length;
    const azure = createAzureOpenAI({ baseURL: `${emulator.url}/openai/v1`, logger: silentLogger });
    const error = await azure.complete(request).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      errorClass: 'auth',
      message: expect.stringContaining('AZURE_OPENAI_API_KEY'),
    });
    expect(emulator.requests.length).toBe(before);
    vi.unstubAllEnvs();
  });
});
