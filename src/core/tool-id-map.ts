/** The per-session bidirectional map between canonical and provider tool-call ids (contract §4.1.1). */
import { createToolCallId, type ToolCallId } from './ids.ts';

/** Rule a provider imposes on tool-call ids; `rewrite` derives a valid id from any canonical id. */
export interface ToolIdRule {
  test(id: string): boolean;
  rewrite(id: string): string;
}

/** Any non-empty id is accepted. */
export const anyToolId: ToolIdRule = { test: (id) => id.length > 0, rewrite: (id) => id || 'call' };

/** Anthropic: `^[a-zA-Z0-9_-]{1,64}$`. */
export const anthropicToolId: ToolIdRule = {
  test: (id) => /^[a-zA-Z0-9_-]{1,64}$/.test(id),
  rewrite: (id) => {
    const cleaned = id.replace(/[^a-zA-Z0-9_-]/g, '_');
    return cleaned.length <= 64 && cleaned.length > 0 ? cleaned : `t${hashId(id, 40)}`;
  },
};

/** Mistral: exactly 9 alphanumerics. */
export const nineAlphanumericToolId: ToolIdRule = {
  test: (id) => /^[a-zA-Z0-9]{9}$/.test(id),
  rewrite: (id) => hashId(id, 9),
};

const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A deterministic alphanumeric digest of `id` (FNV-1a based), `length` characters long. */
export function hashId(id: string, length: number): string {
  let output = '';
  let seed = 0x811c9dc5;
  for (let round = 0; output.length < length; round++) {
    let hash = seed ^ round;
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

/**
 * Canonical ⇄ provider tool-call ids, per provider, for one session. Incoming provider ids get a
 * fresh canonical `tu_<ulid>`; outgoing canonical ids reuse the provider id they came from, or a
 * valid id derived under the provider's rule (kept, so the mapping is stable for the session).
 */
export class ToolIdMap {
  private readonly toCanonicalIds = new Map<string, ToolCallId>();
  private readonly toProviderIds = new Map<string, string>();

  private static key(provider: string, id: string): string {
    return `${provider}\u0000${id}`;
  }

  /** The canonical id for a provider-issued id (minted on first sight). */
  toCanonical(provider: string, providerId: string): ToolCallId {
    const key = ToolIdMap.key(provider, providerId);
    const known = this.toCanonicalIds.get(key);
    if (known !== undefined) return known;
    const canonical = createToolCallId();
    this.toCanonicalIds.set(key, canonical);
    this.toProviderIds.set(ToolIdMap.key(provider, canonical), providerId);
    return canonical;
  }

  /** The provider id for a canonical id (derived under `rule` on first use with this provider). */
  toProvider(provider: string, canonicalId: string, rule: ToolIdRule = anyToolId): string {
    const key = ToolIdMap.key(provider, canonicalId);
    const known = this.toProviderIds.get(key);
    if (known !== undefined) return known;
    let providerId = rule.test(canonicalId) ? canonicalId : rule.rewrite(canonicalId);
    // Two canonical ids must never share one provider id.
    for (let attempt = 1; this.toCanonicalIds.has(ToolIdMap.key(provider, providerId)); attempt++) {
      providerId = rule.rewrite(`${canonicalId}#${attempt}`);
    }
    this.toProviderIds.set(key, providerId);
    this.toCanonicalIds.set(ToolIdMap.key(provider, providerId), canonicalId as ToolCallId);
    return providerId;
  }

  /** Snapshot for persistence: `[provider, canonical, providerId]` triples. */
  toJSON(): Array<[string, string, string]> {
    const entries: Array<[string, string, string]> = [];
    for (const [key, canonical] of this.toCanonicalIds) {
      const [provider, providerId] = key.split('\u0000') as [string, string];
      entries.push([provider, canonical, providerId]);
    }
    return entries;
  }

  /** Restores a snapshot made by `toJSON()`. */
  static fromJSON(entries: ReadonlyArray<readonly [string, string, string]>): ToolIdMap {
    const map = new ToolIdMap();
    for (const [provider, canonical, providerId] of entries) {
      map.toCanonicalIds.set(ToolIdMap.key(provider, providerId), canonical as ToolCallId);
      map.toProviderIds.set(ToolIdMap.key(provider, canonical), providerId);
    }
    return map;
  }
}
