/**
 * Opaque-field wrapping: a provider payload (signature, encrypted content) rides in a client
 * protocol's opaque field together with the name of the provider that produced it, so the next turn
 * gives it back to that provider. `sy1.` + base64url(JSON); anything else is taken verbatim.
 */
import type { MetadataMap } from '../core/metadata.ts';
import type { OpaqueCodec, OpaquePayload } from './types.ts';
import { parseJson } from '../core/json-text.ts';

const prefix = 'sy1.';

/**
 * Metadata of a part decoded from an untagged opaque value that came with its provider-side item
 * id (a Responses reasoning item's `id`): the gateway makes it the adapter's `{provider}.item_id`
 * once it knows the value goes back to an adapter of that provider's type.
 */
export const untaggedItemIdKey = 'switchyard.untagged_item_id';

/** Verbatim: the payload is the signature itself (the emulator speaks for the provider). */
export const verbatimOpaque: OpaqueCodec = {
  wrap: (payload) => payload.signature ?? payload.data ?? '',
  unwrap: (text) => ({ signature: text }),
};

/**
 * The opaque field's value for `payload`, or undefined when it carries nothing: no signature, no
 * data and no provider, or a wrapping that writes nothing for it (verbatim, the emulator, for
 * unsigned reasoning). A provider alone is worth carrying: a host that sends its reasoning unsigned
 * (DeepSeek, Moonshot `reasoning_content`) must recognise it on the next turn.
 */
export function opaqueValue(
  payload: OpaquePayload,
  opaque: OpaqueCodec = verbatimOpaque,
): string | undefined {
  if (payload.signature === undefined && payload.data === undefined && payload.provider === undefined)
    return undefined;
  const value = opaque.wrap(payload);
  return value === '' ? undefined : value;
}

/** The gateway's wrapping: provider, signature and data, reversible. */
export const taggedOpaque: OpaqueCodec = {
  wrap(payload) {
    const compact: Record<string, unknown> = {};
    if (payload.provider !== undefined) compact.p = payload.provider;
    if (payload.metadata !== undefined && Object.keys(payload.metadata).length > 0)
      compact.m = payload.metadata;
    if (payload.signature !== undefined) compact.s = payload.signature;
    if (payload.data !== undefined) compact.d = payload.data;
    return prefix + Buffer.from(JSON.stringify(compact), 'utf8').toString('base64url');
  },
  unwrap(text) {
    if (!text.startsWith(prefix)) return { signature: text };
    try {
      const value = parseJson(
        Buffer.from(text.slice(prefix.length), 'base64url').toString('utf8'),
      ) as unknown;
      if (typeof value !== 'object' || value === null) return { signature: text };
      const { p, s, d, m } = value as Record<string, unknown>;
      const payload: OpaquePayload = {};
      // Only the provider's own metadata (item ids): `switchyard.*` keys are the library's to set.
      if (typeof m === 'object' && m !== null && !Array.isArray(m)) {
        const metadata = Object.fromEntries(
          Object.entries(m).filter(([key]) => !key.startsWith('switchyard.')),
        ) as MetadataMap;
        if (Object.keys(metadata).length > 0) payload.metadata = metadata;
      }
      if (typeof p === 'string') payload.provider = p;
      if (typeof s === 'string') payload.signature = s;
      if (typeof d === 'string') payload.data = d;
      return payload;
    } catch {
      return { signature: text };
    }
  },
};
