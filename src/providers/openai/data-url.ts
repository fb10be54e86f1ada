/** Inline data as OpenAI takes it: base64 text, or a `data:` URL (images, files), for both OpenAI protocols. */
import type { DataRef } from '../../core/transcript.ts';

/** The base64 text of inline data; undefined for URIs and handles. */
export function base64Of(data: DataRef): string | undefined {
  if (data.type === 'base64') return data.data;
  if (data.type === 'bytes') return Buffer.from(data.bytes).toString('base64');
  return undefined;
}

/** A URL the host can fetch or decode: the URI itself, or a `data:` URL of inline data. */
export function dataUrlOf(data: DataRef, mimeType: string): string | undefined {
  if (data.type === 'uri') return data.uri;
  const base64 = base64Of(data);
  return base64 === undefined ? undefined : `data:${mimeType};base64,${base64}`;
}
