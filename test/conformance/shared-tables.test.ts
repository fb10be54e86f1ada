/**
 * Creating adapters with overrides never writes into the tables every adapter shares (presets,
 * quirk defaults, the models.dev catalog, capability tables): one host's settings must never become
 * another's. The tables are deep-frozen here, so any write throws (ES modules are strict).
 */
import { describe, expect, it } from 'vitest';
import { bundledCatalog } from '../../src/providers/catalog/index.ts';
import { geminiModelCapabilities } from '../../src/providers/gemini/capabilities.ts';
import { defaultQuirks, openaiQuirks } from '../../src/providers/openai-chat/quirks.ts';
import { createOpenAICompatible, presetNames, presets } from '../../src/providers/openai-compatible/index.ts';
import { createProviderTypeTable, loadProviderTypeTable } from '../../src/registry/provider-type-table.ts';

function deepFreeze(value: unknown, seen = new Set<unknown>()): void {
  if (typeof value !== 'object' || value === null || seen.has(value)) return;
  seen.add(value);
  for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key], seen);
  Object.freeze(value);
}

for (const table of [presets, defaultQuirks, openaiQuirks, bundledCatalog, geminiModelCapabilities])
  deepFreeze(table);

const capabilityOverrides = {
  capabilities: { images: false },
  models: { 'special-*': { tools: false, maxOutputTokens: 7 } },
};
const overrides = { apiKey: 'k', baseURL: 'https://override.example/v1', ...capabilityOverrides };

describe('shared tables stay untouched', () => {
  it('every built-in API creates adapters with overrides and answers capabilities without writing to them', async () => {
    const table = await loadProviderTypeTable(createProviderTypeTable());
    expect(table.size).toBeGreaterThan(3);
    for (const [type, definition] of table) {
      const adapter = definition.create({
        name: type,
        apiKey: 'k',
        baseURL: 'https://override.example/v1',
        preset: 'groq',
        quirks: { streamOptions: false },
        options: capabilityOverrides,
      });
      const model = (definition.defaultModel ?? 'x:special-model').replace(/^[^:]*:/, '');
      expect(adapter.capabilities(model).images, type).toBe(false);
      expect(adapter.capabilities('special-model'), type).toMatchObject({ tools: false, maxOutputTokens: 7 });
    }
  });

  it('a compatible host of the provider-type table named otherwise keeps its preset catalog', async () => {
    const row = (await loadProviderTypeTable(createProviderTypeTable())).get('openai-compatible');
    const create = (name: string) => row?.create({ name, apiKey: 'k', preset: 'groq' });
    const model = 'llama-3.3-70b-versatile';
    expect(create('groq-eu')?.capabilities(model).contextWindow).toBeGreaterThan(0);
    expect(create('groq-eu')?.capabilities(model)).toEqual(create('groq')?.capabilities(model));
  });

  it('every preset creates variants with their own base URL, key variable and quirks', () => {
    for (const name of presetNames) {
      const variant = createOpenAICompatible(
        {
          name: `${name}-variant`,
          extends: name,
          baseURL: 'https://variant.example/v1',
          apiKeyEnv: 'VARIANT_KEY',
        },
        { ...overrides, quirks: { streamOptions: false } } as never,
      );
      expect(variant.name).toBe(`${name}-variant`);
      const plain = createOpenAICompatible(presets[name], { apiKey: 'k' });
      expect(plain.capabilities('special-model').maxOutputTokens, name).not.toBe(7);
    }
  });
});
