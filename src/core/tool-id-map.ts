/** The per-session bidirectional map between canonical and provider tool-call ids (docs/contract.md §4.1.1). */
import { createToolCallId, type ToolCallId } from './ids.ts';

/**
 * Rule a provider imposes on tool-call ids; `rewrite` derives a valid id from any canonical id.
 * Provider rules live with their provider (`providers/<name>/tool-ids.ts`).
 */
export interface ToolIdRule {
  test(id: string): boolean;
  rewrite(id: string): string;
}

/** Any non-empty id is accepted. */
export const anyToolId: ToolIdRule = { test: (id) => id.length > 0, rewrite: (id) => id || 'call' };

const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A deterministic alphanumeric digest of `id` (FNV-1a based), `length` characters long. */
export function hashId(id: string, length: number): string {
  let output = '';
  let seed = 0x811c9dc5;
  for (let round = 0; output.length < length; round++) {
    // Unsigned from the start: `^` yields a signed int, and an empty id is never multiplied.
    let hash = (seed ^ round) >>> 0;
    for (let index = 0; index < id.length; index++) {
      hash ^= id.charCodeAt(index);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    seed = hash;
    for (let take = 0; take < 5 && output.length < length; take++) {
      output += alphabet[hash % alphabet.length];
      hash = Math.floor(hash / alphabet.length);
    }
  }
  return output;
}

/** Both directions of the map for one provider. */
interface ProviderIds {
  toCanonical: Map<string, ToolCallId>;
  toProvider: Map<string, string>;
}

/**
 * Canonical ⇄ provider tool-call ids, per provider, for one session. Every tool call a provider
 * issues gets a fresh canonical `tu_<ulid>` (hosts that reuse ids such as `call_0` across responses
 * still yield distinct canonical ids; the provider id is rebound to the newest call). Outgoing
 * canonical ids reuse the provider id they came from while that binding holds, else a valid id is
 * derived under the provider's rule, unique within the session, and kept stable.
 */
export class ToolIdMap {
  private readonly providers = new Map<string, ProviderIds>();

  private idsOf(provider: string): ProviderIds {
    let ids = this.providers.get(provider);
    if (ids === undefined) {
      ids = { toCanonical: new Map(), toProvider: new Map() };
      this.providers.set(provider, ids);
    }
    return ids;
  }

  /** A fresh canonical id for a tool call the provider just issued with `providerId`. */
  toCanonical(provider: string, providerId: string): ToolCallId {
    const ids = this.idsOf(provider);
    const canonical = createToolCallId();
    ids.toCanonical.set(providerId, canonical);
    ids.toProvider.set(canonical, providerId);
    return canonical;
  }

  /**
   * The provider id for a canonical id (derived under `rule` on first use with this provider). A
   * known id `rule` refuses is derived anew: one adapter can serve families with different id rules
   * (Vertex: a Gemini-issued id going to Claude), and the wire must only see ids its family takes.
   */
  toProvider(provider: string, canonicalId: string, rule: ToolIdRule = anyToolId): string {
    const ids = this.idsOf(provider);
    const known = ids.toProvider.get(canonicalId);
    if (known !== undefined && ids.toCanonical.get(known) === canonicalId && rule.test(known)) return known;
    let providerId = rule.test(canonicalId) ? canonicalId : rule.rewrite(canonicalId);
    // Two canonical ids must never share one provider id.
    for (let attempt = 1; isTakenByAnother(ids, providerId, canonicalId); attempt++) {
      providerId = rule.rewrite(`${canonicalId}#${attempt}`);
    }
    ids.toProvider.set(canonicalId, providerId);
    ids.toCanonical.set(providerId, canonicalId as ToolCallId);
    return providerId;
  }

  /** Snapshot for persistence: `[provider, canonical, providerId]` triples. */
  toJSON(): Array<[string, string, string]> {
    const entries: Array<[string, string, string]> = [];
    for (const [provider, ids] of this.providers) {
      for (const [providerId, canonical] of ids.toCanonical) entries.push([provider, canonical, providerId]);
    }
    return entries;
  }

  /** Restores a snapshot made by `toJSON()`. */
  static fromJSON(entries: ReadonlyArray<readonly [string, string, string]>): ToolIdMap {
    const map = new ToolIdMap();
    for (const [provider, canonical, providerId] of entries) {
      const ids = map.idsOf(provider);
      ids.toCanonical.set(providerId, canonical as ToolCallId);
      ids.toProvider.set(canonical, providerId);
    }
    return map;
  }
}

function isTakenByAnother(ids: ProviderIds, providerId: string, canonicalId: string): boolean {
  const owner = ids.toCanonical.get(providerId);
  return owner !== undefined && owner !== canonicalId;
}
