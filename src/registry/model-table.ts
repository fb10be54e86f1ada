/**
 * The model table: the `models:` entries (the user's first, then the bundled ones they did not
 * redefine) as exact ids, globs in order and aliases, each checked against the adapters.
 */
import type { ModelCapabilities } from '../core/capabilities.ts';
import { isGlob } from '../core/glob.ts';
import { splitModelId } from '../core/ids.ts';
import { quoteInput } from '../core/input-check.ts';
import { modelNameProblem } from '../core/model-name.ts';
import type { AdapterConfig, ConfigIssue, ModelConfig, SwitchyardConfig } from './config.ts';
import { builtinModels } from './defaults.ts';
import type { AdapterSlot } from './slots.ts';

/** The model entries of a configuration, ready to resolve names against. */
export interface ModelTable {
  /** The user's `models:` entries. */
  userModels: Record<string, ModelConfig | null>;
  userKeys: Set<string>;
  /** Every entry: the user's first (their globs take precedence), then the bundled ones. */
  entries: Array<[string, ModelConfig | null]>;
  exact: Map<string, ModelConfig>;
  /** Glob entries, in order. */
  globs: Array<[string, ModelConfig]>;
  /** Alias → the key of its entry. */
  aliases: Map<string, string>;
}

/** The model table of `config`, and every problem of its entries (unknown adapters, aliases, wire names). */
export function createModelTable(
  config: SwitchyardConfig,
  adapterConfigs: Record<string, AdapterConfig>,
  slots: ReadonlyMap<string, AdapterSlot>,
): { table: ModelTable; problems: ConfigIssue[] } {
  const userModels = config.models ?? {};
  const userKeys = new Set(Object.keys(userModels));
  const bundled = Object.entries(config.builtins === false ? {} : builtinModels()).filter(
    ([key]) => !userKeys.has(key),
  );
  const entries = [...Object.entries(userModels), ...bundled];
  const exact = new Map<string, ModelConfig>();
  const globs: Array<[string, ModelConfig]> = [];
  for (const [key, entry] of entries) {
    const value = entry ?? {};
    if (isGlob(key)) globs.push([key, value]);
    else exact.set(key, value);
  }
  const table: ModelTable = { userModels, userKeys, entries, exact, globs, aliases: new Map() };
  const problems = [
    ...adapterReferenceProblems(userModels, adapterConfigs, slots),
    ...collectAliases(table),
    ...wireNameProblems(table, slots),
  ];
  return { table, problems };
}

/** Every `adapter:` a user's entry names must exist. */
function adapterReferenceProblems(
  userModels: Record<string, ModelConfig | null>,
  adapterConfigs: Record<string, AdapterConfig>,
  slots: ReadonlyMap<string, AdapterSlot>,
): ConfigIssue[] {
  const problems: ConfigIssue[] = [];
  for (const [key, entry] of Object.entries(userModels)) {
    const adapter = entry?.adapter;
    if (adapter !== undefined && !slots.has(adapter) && !adapterConfigs[adapter])
      problems.push({ path: `models.${key}.adapter`, message: `no adapter named ${quoteInput(adapter)}` });
  }
  return problems;
}

/**
 * Fills `table.aliases`. The user's aliases win over the bundled ones; two of the user's entries
 * cannot share one, and an alias that is also a model id could never be reached.
 */
function collectAliases(table: ModelTable): ConfigIssue[] {
  const { aliases, exact, userKeys } = table;
  const problems: ConfigIssue[] = [];
  for (const [key, entry] of table.entries) {
    (entry?.aliases ?? []).forEach((alias, index) => {
      const taken = aliases.get(alias);
      const where = `models.${key}.aliases.${index}`;
      if (userKeys.has(key) && exact.has(alias) && alias !== key) {
        problems.push({ path: where, message: `alias ${quoteInput(alias)} is also a model id` });
      } else if (taken !== undefined && taken !== key && userKeys.has(key)) {
        problems.push({ path: where, message: `alias ${quoteInput(alias)} already names ${taken}` });
      } else if (taken === undefined) aliases.set(alias, key);
    });
  }
  return problems;
}

/** Every exact entry of the user's names a wire name its adapter's grammar takes. */
function wireNameProblems(table: ModelTable, slots: ReadonlyMap<string, AdapterSlot>): ConfigIssue[] {
  const problems: ConfigIssue[] = [];
  for (const key of table.userKeys) {
    if (isGlob(key)) continue;
    const entry = table.userModels[key];
    const { provider, name } = splitModelId(key);
    const slot = slots.get(entry?.adapter ?? provider ?? '');
    const wireName = entry?.wire_name ?? name;
    const problem =
      slot === undefined
        ? undefined
        : modelNameProblem(wireName, slot.definition.nameGrammar ?? slot.definition.protocol);
    if (problem !== undefined) {
      const where = entry?.wire_name === undefined ? `models.${key}` : `models.${key}.wire_name`;
      problems.push({ path: where, message: `invalid model name ${quoteInput(wireName)}: ${problem}` });
    }
  }
  return problems;
}

/** The entry of `key` (an exact id or a glob), if any. */
export function entryOf(table: ModelTable, key: string): ModelConfig | undefined {
  return table.exact.get(key) ?? table.globs.find(([pattern]) => pattern === key)?.[1];
}

/**
 * The config's capability overrides of `provider`'s models, as the adapter's `models` option
 * (glob rows, later keys win: bundled entries first, then the user's, the first user entry last),
 * so the adapter's pre-flight check enforces the same facts the router sees.
 */
export function overrideRows(table: ModelTable, provider: string): ModelCapabilities | undefined {
  let rows: ModelCapabilities | undefined;
  for (const [key, entry] of [...table.entries].reverse()) {
    if (entry?.capabilities === undefined) continue;
    const { provider: keyProvider, name } = splitModelId(key);
    if ((entry.adapter ?? keyProvider) !== provider) continue;
    const wireName = isGlob(key) ? name : (entry.wire_name ?? name);
    (rows ??= {})[wireName] = { ...rows?.[wireName], ...entry.capabilities };
  }
  return rows;
}
