/**
 * Name resolution: an exact canonical id, then an alias, then the glob entries in order, then any
 * `provider:name` of a known adapter — to the adapter that serves it and the wire name it is sent as.
 */
import type { ProtocolId } from '../core/adapter.ts';
import type { Capabilities } from '../core/capabilities.ts';
import { closest } from '../core/closest.ts';
import { InvalidRequestError } from '../core/errors/invalid-request-error.ts';
import { isGlob, matchesGlob } from '../core/glob.ts';
import { joinModelId, splitModelId } from '../core/ids.ts';
import { quoteInput } from '../core/input-check.ts';
import { assertModelName } from '../core/model-name.ts';
import type { ModelPrices } from '../pricing/types.ts';
import { bundledCatalog } from '../providers/catalog/index.ts';
import type { ConfigIssue } from './config.ts';
import { entryOf, type ModelTable } from './model-table.ts';
import type { AdapterSlot } from './slots.ts';

/** How a name was resolved. */
export type MatchKind = 'exact' | 'alias' | 'glob' | 'provider';

/** A model name resolved to the adapter that serves it. */
export interface ResolvedModel {
  /** Canonical `provider:wireName`, as sent to the adapter. */
  id: string;
  /** The name that was asked for. */
  requested: string;
  /** Adapter name. */
  provider: string;
  /**
   * The provider's own name when the adapter is named otherwise (`anthropic` for `work-claude` of
   * type `anthropic`, `openai` for an OpenAI Responses adapter named `responses`): the bundled
   * catalog and the price table know its models by it. Absent when the adapter is named as its
   * provider (or is a provider of its own: an OpenAI-compatible host).
   */
  ownName?: string;
  wireName: string;
  /** The provider type of the adapter (`anthropic`, `openai-compatible`, …). */
  type: string;
  /** The wire protocol its adapter speaks (`anthropic-messages`, `openai-chat`, …), when its row names one. */
  protocol?: ProtocolId;
  matchedBy: MatchKind;
  /** The `models:` key that matched (an id or a glob). */
  entry?: string;
  tier?: string;
  aliases: string[];
  /** Ordered fallbacks (ids or aliases), as configured. */
  fallbacks: string[];
  capabilityOverrides?: Partial<Capabilities>;
  pricing?: ModelPrices;
  /** False when the adapter's key is missing (`not_configured`). */
  configured: boolean;
}

/** Resolves one name, or `undefined` when nothing matches it (throws for an unknown adapter or a bad wire name). */
export type FindModel = (name: string) => ResolvedModel | undefined;

/** The resolver of `table` over `slots`. */
export function createFinder(table: ModelTable, slots: ReadonlyMap<string, AdapterSlot>): FindModel {
  const build = (requested: string, id: string, matchedBy: MatchKind, key?: string) =>
    buildModel(table, slots, { requested, id, matchedBy, key });
  return (name) => {
    if (table.exact.has(name)) return build(name, name, 'exact', name);
    const aliased = table.aliases.get(name);
    if (aliased !== undefined && !isGlob(aliased)) return build(name, aliased, 'alias', aliased);
    const prefix = splitModelId(name).provider;
    for (const [pattern] of table.globs) {
      const glob = splitModelId(pattern);
      if (prefix !== undefined ? matchesGlob(pattern, name) : matchesGlob(glob.name, name)) {
        const id = prefix !== undefined ? name : joinModelId(glob.provider ?? '', name);
        return build(name, id, 'glob', pattern);
      }
    }
    if (prefix !== undefined && slots.has(prefix)) return build(name, name, 'provider');
    return undefined;
  };
}

/** The resolved model of `id` (`provider:name`), matched by `matchedBy` through the entry `key`. */
function buildModel(
  table: ModelTable,
  slots: ReadonlyMap<string, AdapterSlot>,
  match: { requested: string; id: string; matchedBy: MatchKind; key: string | undefined },
): ResolvedModel {
  const { requested, id, matchedBy, key } = match;
  const entry = key === undefined ? undefined : entryOf(table, key);
  const split = splitModelId(id);
  const provider = entry?.adapter ?? split.provider ?? '';
  const slot = slots.get(provider);
  if (slot === undefined) throw unknownModel(requested, `no adapter named "${provider}"`);
  const wireName =
    (matchedBy === 'exact' || matchedBy === 'alias' ? entry?.wire_name : undefined) ?? split.name;
  // Whatever matched (a glob, a provider prefix), the wire name must be one the provider's grammar takes.
  assertModelName(wireName, slot.definition.nameGrammar ?? slot.definition.protocol, provider);
  const model: ResolvedModel = {
    id: `${provider}:${wireName}`,
    requested,
    provider,
    wireName,
    type: slot.definition.type,
    matchedBy,
    aliases: entry?.aliases ?? [],
    fallbacks: entry?.fallbacks ?? [],
    configured: slot.missing === undefined,
  };
  if (slot.ownName !== provider) model.ownName = slot.ownName;
  if (slot.definition.protocol !== undefined) model.protocol = slot.definition.protocol;
  if (key !== undefined) model.entry = key;
  if (entry?.tier !== undefined) model.tier = entry.tier;
  if (entry?.capabilities !== undefined) model.capabilityOverrides = entry.capabilities;
  if (entry?.pricing !== undefined) model.pricing = entry.pricing;
  return model;
}

/** Every fallback of the user's entries must resolve (else every call of the model would fail late). */
export function fallbackProblems(table: ModelTable, find: FindModel): ConfigIssue[] {
  const problems: ConfigIssue[] = [];
  for (const key of table.userKeys) {
    (table.userModels[key]?.fallbacks ?? []).forEach((fallback, index) => {
      let found: ResolvedModel | undefined;
      try {
        found = find(fallback);
      } catch {
        found = undefined;
      }
      if (found === undefined) {
        problems.push({
          path: `models.${key}.fallbacks.${index}`,
          message: `unknown model ${quoteInput(fallback)}: no model, alias or glob matches it`,
        });
      }
    });
  }
  return problems;
}

/**
 * The names a caller may have meant (model ids and aliases, configured and catalog models bare and
 * `provider:`-prefixed), each with the name to suggest for it: itself, but for a bare name its id
 * (a bare name resolves only through an alias or a glob; {@link unknownModel} checks which).
 */
export function knownNames(
  table: ModelTable,
  slots: ReadonlyMap<string, Pick<AdapterSlot, 'ownName'>>,
): Map<string, string> {
  const names = new Map<string, string>();
  for (const name of [...table.exact.keys(), ...table.aliases.keys()]) names.set(name, name);
  // A configured id's bare wire name (`claude-sonnet-4-5` for `anthropic:claude-sonnet-4-5`).
  for (const id of table.exact.keys()) {
    const bare = splitModelId(id).name;
    if (!names.has(bare)) names.set(bare, id);
  }
  for (const [provider, slot] of slots) {
    // An adapter named otherwise knows its provider's catalog under its own name.
    for (const wireName of Object.keys(bundledCatalog[slot.ownName] ?? {})) {
      const id = `${provider}:${wireName}`;
      names.set(id, id);
      if (!names.has(wireName)) names.set(wireName, id);
    }
  }
  return names;
}

/**
 * The `InvalidRequestError` (`unknown_model`) of a name nothing resolves, with the closest known
 * name: one that resolves (`resolves`, asked of the closest name only), never the name itself.
 */
export function unknownModel(
  name: string,
  why: string,
  known: ReadonlyMap<string, string> = new Map(),
  resolves: (candidate: string) => boolean = () => false,
): InvalidRequestError {
  // Only a short name is compared: the edit distance is quadratic in its length.
  const match = name.length <= 100 ? closest(name, [...known.keys()]) : undefined;
  const suggestion = match === undefined || resolves(match) ? match : known.get(match);
  const hint =
    suggestion === undefined || suggestion === name ? '' : ` (did you mean ${quoteInput(suggestion)}?)`;
  return new InvalidRequestError({
    // Quoted and cut: the name is the caller's and may be long or hold control characters.
    message: `unknown model ${quoteInput(name)}: ${why}${hint}`,
    providerCode: 'unknown_model',
  });
}
