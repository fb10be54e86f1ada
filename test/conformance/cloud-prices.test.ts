/**
 * Bedrock and Vertex prices: every model of their models.dev catalog rows is priced (genai-prices
 * `aws` / `google` rows, then models.dev), and a cross-region inference profile or a Vertex
 * `@version` name finds its model's price.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/core/logger.ts';
import { userText } from '../../src/core/transcript.ts';
import type { Usage } from '../../src/core/usage.ts';
import { capabilitiesFor } from '../../src/providers/bedrock/capabilities.ts';
import { createBedrockDefinition } from '../../src/providers/bedrock/definition.ts';
import { createTestContext } from '../../src/providers/bedrock/test-support.ts';
import { createSwitchyard } from '../../src/switchyard.ts';
import { startEmulator } from '../../src/testing/emulator/index.ts';
import { reprice } from '../../src/pricing/price-table.ts';
import { bundledCatalog } from '../../src/providers/catalog/index.ts';

const usage: Usage = { input: 1_000, output: 100, cacheRead: 0, cacheWrite: 0, reasoning: 0 };

describe('cloud prices', () => {
  it.each(['bedrock', 'vertex'])('prices every %s catalog model', (provider) => {
    const models = Object.keys(bundledCatalog[provider] ?? {});
    expect(models.length).toBeGreaterThan(10);
    const unpriced = models.filter((name) => reprice(usage, `${provider}:${name}`).cost === undefined);
    expect(unpriced).toEqual([]);
  });

  it('prices a cross-region inference profile and a Vertex Claude version', () => {
    const bedrock = reprice(usage, 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0').cost;
    expect(bedrock?.amount).toBeGreaterThan(0);
    expect(bedrock?.currency).toBe('USD');
    // Sonnet 4.5 on Vertex: $3 in, $15 out per million tokens.
    expect(reprice(usage, 'vertex:claude-sonnet-4-5@20250929').cost?.amount).toBeCloseTo(0.0045, 10);
    expect(reprice(usage, 'vertex:gemini-2.5-flash').cost?.amount).toBeGreaterThan(0);
  });
});

describe('the front door with config `type: bedrock` and `type: vertex`', () => {
  it('every reply carries a cost; a Bedrock ARN in another region goes to that region', async () => {
    const emulator = await startEmulator();
    const sy = createSwitchyard({
      logger: createMemoryLogger(),
      env: {},
      config: {
        builtins: false,
        adapters: {
          bedrock: { type: 'bedrock', base_url: emulator.url, api_key: 'bedrock-bearer-0123' },
          vertex: {
            type: 'vertex',
            base_url: `${emulator.url}/v1/projects/p/locations/global`,
            api_key: 'vertex-express-0123',
          },
        },
      },
    });
    try {
      for (const model of [
        'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0',
        'vertex:gemini-2.5-flash',
      ]) {
        emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: `hi from ${model}` }] });
        const reply = await sy.complete({ model, transcript: [userText('hi')], maxOutputTokens: 64 });
        expect(reply.text).toBe(`hi from ${model}`);
        expect(reply.usage.cost?.amount).toBeGreaterThan(0);
      }
    } finally {
      await sy.close();
      await emulator.close();
    }
  });

  it('an ARN names its region when the adapter has none: endpoint and SigV4 scope follow it', async () => {
    const credentials = { accessKeyId: 'AKIDEXAMPLE0000000000', secretAccessKey: 'secret' };
    const definition = createBedrockDefinition({ env: {}, credentials });
    const model =
      'arn:aws:bedrock:eu-west-3:123456789012:inference-profile/eu.anthropic.claude-sonnet-4-5-20250929-v1:0';
    const context = createTestContext('bedrock', model, capabilitiesFor(model));
    const wire = definition.buildRequest(
      { model: `bedrock:${model}`, transcript: [userText('hi')], maxOutputTokens: 64 },
      context,
    );
    expect(wire.baseURL).toBe('https://bedrock-runtime.eu-west-3.amazonaws.com');
    const url = `${wire.baseURL}${wire.path}`;
    const signed = await definition.authorize!({ method: 'POST', url, headers: {}, body: '{}' }, false);
    expect(signed.headers.authorization).toMatch(
      /Credential=AKIDEXAMPLE0000000000\/\d{8}\/eu-west-3\/bedrock\/aws4_request/,
    );
  });
});
