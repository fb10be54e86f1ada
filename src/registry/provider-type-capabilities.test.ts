/**
 * The provider-type rows describe models without loading adapter code (`row.capabilities`), and the
 * description must be the adapter's own: for every built-in row, preset and override shape, the
 * row's answer equals what the created adapter declares, model by model of its catalog.
 */
import { describe, expect, it } from 'vitest';
import { bundledCatalog } from '../providers/catalog/index.ts';
import { presetNames } from '../providers/openai-compatible/presets.ts';
import {
  type ProviderTypeCreateOptions,
  createProviderTypeTable,
  loadProviderTypeTable,
} from './provider-type-table.ts';

const overrides = {
  capabilities: { images: false },
  models: { 'special-*': { tools: false, maxOutputTokens: 7 } },
};

/** Wire names to compare: the provider's catalog models, the row's default model and an unknown one. */
function wireNames(catalogName: string, defaultModel: string | undefined): string[] {
  const names = Object.keys(bundledCatalog[catalogName] ?? {});
  if (defaultModel !== undefined) names.push(defaultModel.slice(defaultModel.indexOf(':') + 1));
  return [...names, 'special-model', 'no-such-model-1'];
}

describe("a provider-type row's declared capabilities", () => {
  it('equal what the adapter it creates declares, for every built-in row, preset and override', async () => {
    const table = await loadProviderTypeTable(createProviderTypeTable());
    const cases: Array<{ type: string; options: ProviderTypeCreateOptions; catalog: string }> = [];
    for (const type of table.keys()) {
      if (type === 'openai-compatible') continue;
      const name = type.startsWith('bedrock') ? 'bedrock' : type.startsWith('vertex') ? 'vertex' : type;
      const catalog = type === 'openai-responses' ? 'openai' : name;
      cases.push({ type, options: { name, apiKey: 'k' }, catalog });
      cases.push({ type, options: { name, apiKey: 'k', options: overrides }, catalog });
    }
    cases.push({
      type: 'bedrock',
      options: { name: 'bedrock', apiKey: 'k', options: { protocol: 'invoke' } },
      catalog: 'bedrock',
    });
    cases.push({
      type: 'openai',
      options: { name: 'openai', apiKey: 'k', options: { quirks: { structuredOutput: 'none' } } },
      catalog: 'openai',
    });
    for (const preset of presetNames) {
      const options = { apiKey: 'k', baseURL: 'https://host.example/v1', preset };
      cases.push({ type: 'openai-compatible', options: { ...options, name: preset }, catalog: preset });
      // A host named otherwise keeps its preset's catalog; config quirks and overrides apply.
      cases.push({
        type: 'openai-compatible',
        options: {
          ...options,
          name: `${preset}-eu`,
          quirks: { structuredOutput: 'none' },
          options: overrides,
        },
        catalog: preset,
      });
    }
    cases.push({
      type: 'openai-compatible',
      options: {
        name: 'my-host',
        baseURL: 'https://host.example/v1',
        quirks: { capabilities: { reasoning: true, images: true } },
      },
      catalog: 'my-host',
    });
    let compared = 0;
    for (const { type, options, catalog } of cases) {
      const row = table.get(type)!;
      const declared = row.capabilities!(options);
      const adapter = row.create(options);
      for (const wireName of wireNames(catalog, row.defaultModel)) {
        expect(declared(wireName), `${type} ${options.name} ${wireName}`).toEqual(
          adapter.capabilities(`${adapter.name}:${wireName}`),
        );
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(500);
  });

  it("name the adapter's own provider as the adapter does, named as its type's default or otherwise", async () => {
    const table = await loadProviderTypeTable(createProviderTypeTable());
    const compared: string[] = [];
    for (const [type, row] of table) {
      for (const name of ['work-account', type, ...(type === 'openai-compatible' ? ['groq'] : [])]) {
        const options = { name, apiKey: 'k', baseURL: 'https://host.example/v1', preset: 'groq' };
        const adapter = row.create(options);
        expect(row.ownName?.(options) ?? name, `${type} ${name}`).toBe(adapter.ownName ?? adapter.name);
        compared.push(`${type} ${name}`);
        await adapter.close();
      }
    }
    expect(compared.length).toBeGreaterThan(table.size * 2);
  });

  it('are answered before any adapter code is loaded', () => {
    const row = createProviderTypeTable().get('anthropic')!;
    expect(() => row.create({ name: 'anthropic' })).toThrow(/not loaded/);
    expect(row.capabilities!({ name: 'anthropic' })('claude-sonnet-4-5')).toMatchObject({
      tools: true,
      contextWindow: expect.any(Number),
    });
  });
});
