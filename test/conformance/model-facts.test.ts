/**
 * One table of model facts: for every model the models.dev snapshot lists, the token limits come
 * from the catalog alone — no adapter row keeps a second copy of them — and every adapter serves the
 * catalog's numbers for it. Rows carry limits only for models the snapshot lacks.
 */
import { describe, expect, it } from 'vitest';
import { applyModelRows, type Capabilities } from '../../src/core/capabilities.ts';
import { catalogEntry } from '../../src/core/catalog.ts';
import { anthropicCapabilities, modelProfile } from '../../src/providers/anthropic/capabilities.ts';
import {
  capabilitiesFor as bedrockCapabilities,
  tableCapabilities as bedrockRows,
} from '../../src/providers/bedrock/capabilities.ts';
import { bundledCatalog } from '../../src/providers/catalog/index.ts';
import { capabilitiesFor as vertexCapabilities } from '../../src/providers/vertex/capabilities.ts';
import { capabilitiesFor, geminiModelCapabilities } from '../../src/providers/gemini/capabilities.ts';
import { createCapabilityResolver } from '../../src/providers/openai-chat/capabilities.ts';
import { defaultQuirks, mergeQuirks, openaiQuirks } from '../../src/providers/openai-chat/quirks.ts';
import { presetCatalogs } from '../../src/providers/openai-compatible/catalog.ts';
import { type PresetName, presets } from '../../src/providers/openai-compatible/presets.ts';

type Resolver = (model: string) => Capabilities;

function geminiRowsOnly(model: string): Capabilities {
  const resolved = { ...capabilitiesFor('an-unlisted-model') };
  applyModelRows(resolved, geminiModelCapabilities, model);
  return resolved;
}

/** Per adapter: its rows alone, and what it serves (rows + catalog). */
const tables: Record<string, { rows: Resolver; served: Resolver }> = {
  anthropic: { rows: (model) => modelProfile(model).capabilities, served: anthropicCapabilities },
  gemini: { rows: geminiRowsOnly, served: capabilitiesFor },
  bedrock: { rows: bedrockRows, served: bedrockCapabilities },
  vertex: {
    rows: (model) =>
      model.startsWith('claude-')
        ? modelProfile(model.replace('@', '-')).capabilities
        : geminiRowsOnly(model),
    served: vertexCapabilities,
  },
  openai: {
    rows: createCapabilityResolver(openaiQuirks),
    served: createCapabilityResolver(openaiQuirks, { catalog: bundledCatalog.openai }),
  },
};
for (const [name, preset] of Object.entries(presets)) {
  const quirks = mergeQuirks(defaultQuirks, preset.quirks);
  tables[name] = {
    rows: createCapabilityResolver(quirks),
    served: createCapabilityResolver(quirks, { catalog: presetCatalogs[name as PresetName] }),
  };
}

describe('one table of model facts', () => {
  it.each(Object.keys(bundledCatalog))('%s: no row repeats a limit the catalog holds', (provider) => {
    const table = tables[provider]!;
    const copies: string[] = [];
    for (const model of Object.keys(bundledCatalog[provider]!)) {
      const { contextWindow, maxOutputTokens } = table.rows(model);
      if (contextWindow !== 0 || maxOutputTokens !== 0)
        copies.push(`${model}: ${contextWindow}/${maxOutputTokens}`);
    }
    expect(copies).toEqual([]);
  });

  it.each(Object.keys(bundledCatalog))(
    '%s: serves the catalog’s limits for every model it lists',
    (provider) => {
      const table = tables[provider]!;
      for (const [model, entry] of Object.entries(bundledCatalog[provider]!)) {
        expect(table.served(model), model).toMatchObject({
          contextWindow: entry.contextWindow ?? 0,
          maxOutputTokens: entry.maxOutputTokens ?? 0,
        });
      }
    },
  );

  it('catalog names resolve through date suffixes, `-latest` and undated aliases', () => {
    const anthropic = bundledCatalog.anthropic;
    expect(catalogEntry(anthropic, 'claude-opus-4-1')).toBe(anthropic!['claude-opus-4-1-20250805']);
    expect(catalogEntry(anthropic, 'claude-3-7-sonnet-latest')).toBe(
      anthropic!['claude-3-7-sonnet-20250219'],
    );
    expect(catalogEntry(bundledCatalog.openai, 'gpt-4o-2024-08-06')).toBe(bundledCatalog.openai!['gpt-4o']);
    expect(catalogEntry(anthropic, 'claude-opus')).toBeUndefined();
    expect(anthropicCapabilities('claude-3-7-sonnet-latest').maxOutputTokens).toBe(64_000);
  });

  it('models the snapshot predates keep their row limits; unknown models have none (0: not checked)', () => {
    expect(anthropicCapabilities('claude-opus-4-7')).toMatchObject({
      contextWindow: 1_000_000,
      maxOutputTokens: 128_000,
    });
    expect(capabilitiesFor('gemini-3-pro-preview')).toMatchObject({ maxOutputTokens: 65_536 });
    expect(tables.openai!.served('gpt-4.5-preview')).toMatchObject({ maxOutputTokens: 16_384 });
    expect(tables.groq!.served('a-model-nobody-knows')).toMatchObject({
      contextWindow: 0,
      maxOutputTokens: 0,
    });
  });
});
