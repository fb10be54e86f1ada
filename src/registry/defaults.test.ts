/**
 * Default aliases name the current models (#19): each is the newest model of its family in the
 * bundled catalog by release date, never older than its pinned floor.
 */
import { describe, expect, it } from 'vitest';
import type { CatalogModel, ModelCatalog } from '../core/catalog.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { bundledCatalog } from '../providers/catalog/index.ts';
import { createSwitchyard } from '../switchyard.ts';
import { aliasRules, aliasTarget, builtinModels } from './defaults.ts';

const row = (releaseDate: string): CatalogModel => ({
  inputModalities: ['text'],
  tools: true,
  reasoning: true,
  releaseDate,
});
const rule = (alias: string) => aliasRules.find((candidate) => candidate.alias === alias)!;

/** The aliased entries of `builtinModels`: alias → canonical id. */
function aliasMap(catalogs?: Readonly<Record<string, ModelCatalog>>): Record<string, string> {
  const map: Record<string, string> = {};
  for (const [id, entry] of Object.entries(builtinModels(catalogs)))
    for (const alias of entry?.aliases ?? []) map[alias] = id;
  return map;
}

describe('default aliases: the newest model of each family, never below a pinned floor', () => {
  it('the bundled snapshot knows nothing newer than the floors: every alias names its floor (no downgrade)', () => {
    expect(aliasMap()).toEqual({
      opus: 'anthropic:claude-opus-4-5',
      sonnet: 'anthropic:claude-sonnet-4-5',
      haiku: 'anthropic:claude-haiku-4-5',
      gpt: 'openai:gpt-5',
      'gpt-mini': 'openai:gpt-5-mini',
      'gemini-pro': 'gemini:gemini-2.5-pro',
      flash: 'gemini:gemini-2.5-flash',
    });
    // …though the snapshot holds older Sonnets, which a plain "newest in the catalog" would pick.
    expect(Object.keys(bundledCatalog.anthropic!)).toContain('claude-sonnet-4-20250514');
  });

  it('a catalog with a newer Sonnet moves `sonnet` to it (dated and undated rows: the undated name)', () => {
    const anthropic: ModelCatalog = {
      ...bundledCatalog.anthropic,
      'claude-sonnet-4-6': row('2026-02-17'),
      'claude-sonnet-4-6-20260217': row('2026-02-17'),
      'claude-sonnet-4-5-20250929': row('2025-09-29'),
    };
    expect(aliasTarget(rule('sonnet'), anthropic)).toBe('claude-sonnet-4-6');
    expect(aliasMap({ ...bundledCatalog, anthropic })).toMatchObject({
      sonnet: 'anthropic:claude-sonnet-4-6',
      opus: 'anthropic:claude-opus-4-5',
    });
  });

  it('a row known only by its dated name is named without the date', () => {
    expect(aliasTarget(rule('opus'), { 'claude-opus-5-20260601': row('2026-06-01') })).toBe('claude-opus-5');
  });

  it('other families, previews and rows without a date never win', () => {
    const openai: ModelCatalog = {
      'gpt-6-preview': row('2027-01-01'),
      'gpt-6-mini': row('2027-01-01'),
      'gpt-6-chat-latest': row('2027-01-01'),
      'gpt-7': { inputModalities: ['text'], tools: true, reasoning: true },
      'gpt-4.1': row('2025-04-14'),
    };
    expect(aliasTarget(rule('gpt'), openai)).toBe('gpt-5');
    expect(aliasTarget(rule('gpt-mini'), openai)).toBe('gpt-6-mini');
    expect(aliasTarget(rule('flash'), { 'gemini-3.0-flash': row('2026-01-10') })).toBe('gemini-3.0-flash');
    expect(aliasTarget(rule('flash'), { 'gemini-3.0-flash-lite': row('2026-01-10') })).toBe(
      'gemini-2.5-flash',
    );
  });

  it('a client resolves the aliases to the derived ids', () => {
    const sy = createSwitchyard({ env: {}, logger: createMemoryLogger() });
    for (const [alias, id] of Object.entries(aliasMap())) expect(sy.resolve(alias).id, alias).toBe(id);
  });
});
