/** The namespaced metadata map (`provider.field` keys) with a deterministic serialized key order. */
import type { JsonValue } from './json.ts';

/** Extension data keyed `namespace.field` (e.g. `anthropic.stop_sequence`). Never needed for correctness. */
export type MetadataMap = Record<string, JsonValue>;

/** Returns a copy of `metadata` with keys in code-point order, so JSON output is deterministic. */
export function sortMetadata(metadata: MetadataMap): MetadataMap {
  const keys = Object.keys(metadata).sort();
  const sorted: MetadataMap = {};
  for (const key of keys) sorted[key] = metadata[key] as JsonValue;
  return sorted;
}

/** True when `key` has the `namespace.field` shape metadata keys must have. */
export function isMetadataKey(key: string): boolean {
  const dot = key.indexOf('.');
  return dot > 0 && dot < key.length - 1;
}
