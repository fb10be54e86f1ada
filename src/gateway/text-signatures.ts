/**
 * Gemini's signatures of text parts (Gemini 3 signs the text of a reply; 2.5 the first part of an
 * answer) for clients whose protocol has no field for them — Anthropic, Chat Completions, a
 * Responses client without a stored response: kept in the state store by the text they sign and
 * put back on that text when the client sends it again and the request goes to a Gemini model.
 * A Gemini client carries them itself (`thoughtSignature`), and a stored Responses transcript keeps
 * them in its parts.
 */
import { createHash } from 'node:crypto';
import type { Item, Part } from '../core/transcript.ts';
import { textSignatureKey } from '../codecs/gemini/response.ts';
import { type GatewayStore, maxArtifactReads, type ReadBudget } from './store.ts';

/**
 * Where in the text the signed wire part ended, when more text followed it (the Gemini adapter's
 * `signatureOffsetMetadataKey`, which this layer may not import): kept with the signature.
 */
const offsetKey = 'gemini.thoughtSignatureOffset';

/** The store key of a text's signature: the key's scope and a hash of the text (no text in keys). */
const textKey = (scope: string, text: string) =>
  `text:${scope}:${createHash('sha256').update(text).digest('base64url')}`;

/**
 * The most text signatures a request looks up, its latest texts' (out of its {@link maxArtifactReads}):
 * Gemini reads back the current turn's signatures; the rest of the reads go to the calls' entries.
 */
export const maxTextSignatureReads = 64;

interface TextArtifacts {
  signature: string;
  offset?: number;
}

/** Keeps the signatures of a reply's signed text parts; undefined when none is signed. */
export function saveTextSignatures(
  content: readonly Part[],
  store: GatewayStore,
  ttlMs: number,
  scope: string,
): Promise<void> | undefined {
  const puts: Array<Promise<void>> = [];
  for (const part of content) {
    if (part.type !== 'text' || part.text === '') continue;
    const signature = part.metadata?.[textSignatureKey];
    if (typeof signature !== 'string' || signature === '') continue;
    const entry: TextArtifacts = { signature };
    const offset = part.metadata?.[offsetKey];
    if (typeof offset === 'number') entry.offset = offset;
    puts.push(store.put(textKey(scope, part.text), entry, ttlMs));
  }
  return puts.length === 0 ? undefined : Promise.all(puts).then(() => undefined);
}

/**
 * Puts kept signatures back on the assistant text parts the client sent without one (in place):
 * a part whose text is exactly a signed part's. Undefined when there is no such part (no lookup).
 * Text the client changed, or joined from several parts (a Chat client's one `content` string of a
 * reply of several text parts), finds none and goes unsigned, as before.
 */
export function restoreTextSignatures(
  transcript: readonly Item[],
  store: GatewayStore,
  scope: string,
  reads: ReadBudget = { left: maxArtifactReads },
): Promise<void> | undefined {
  const texts = transcript.flatMap((item) =>
    item.kind !== 'assistant'
      ? []
      : item.parts.filter(
          (part): part is Part & { type: 'text' } =>
            part.type === 'text' && part.text !== '' && part.metadata?.[textSignatureKey] === undefined,
        ),
  );
  // The latest texts only, out of the request's reads: a long history makes no more reads (and
  // hashes) than that.
  const count = Math.min(texts.length, maxTextSignatureReads, Math.max(reads.left, 0));
  reads.left -= count;
  if (count === 0) return undefined;
  const unsigned = texts.slice(texts.length - count);
  return Promise.all(
    unsigned.map(async (part) => {
      const entry = readable(await store.get(textKey(scope, part.text)));
      if (entry === undefined) return;
      part.metadata = { ...part.metadata, [textSignatureKey]: entry.signature };
      if (entry.offset !== undefined) part.metadata[offsetKey] = entry.offset;
    }),
  ).then(() => undefined);
}

/** A stored entry of the shape this module writes, or undefined (a shared store holds what others wrote). */
function readable(value: unknown): TextArtifacts | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { signature, offset } = value as Record<string, unknown>;
  if (typeof signature !== 'string' || signature === '') return undefined;
  if (offset !== undefined && !(Number.isSafeInteger(offset) && (offset as number) >= 0)) return undefined;
  return value as TextArtifacts;
}
