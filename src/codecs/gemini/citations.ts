/**
 * Another upstream's URL citations (an Anthropic upstream's web search citations, a Responses or
 * Chat upstream's `url_citation` annotations: `../citations.ts`) as a Gemini candidate's
 * `citationMetadata.citationSources`, the field the Gemini API and its SDKs read. A Gemini
 * upstream's own citations and grounding go back as it sent them (`response.ts`), so nothing is
 * made for its reply.
 */
import { isJsonObject, type JsonValue } from '../../core/json.ts';
import { geminiCandidateFields, type MetadataMap } from '../../core/metadata.ts';
import type { CanonicalResponse } from '../../core/request.ts';
import { partAnnotations } from '../citations.ts';
import { textAnnotations } from '../common.ts';

/** Whether a Gemini upstream answered (it left one of its candidate fields). */
function fromGemini(metadata: MetadataMap | undefined): boolean {
  return (
    metadata !== undefined && geminiCandidateFields.some((field) => metadata[`gemini.${field}`] !== undefined)
  );
}

/**
 * The candidate's `citationMetadata` for the reply's URL citations, or undefined without any. Each
 * source cites its span of the candidate's text: Gemini counts `startIndex`/`endIndex` in bytes of
 * UTF-8 (the canonical offsets count characters, so they are converted). Made from the whole reply
 * (streamed: at its finish, which has every part), so a stream pays nothing per piece of text.
 */
export function citationMetadata(
  response: Pick<CanonicalResponse, 'content' | 'metadata'>,
): JsonValue | undefined {
  if (fromGemini(response.metadata)) return undefined;
  const cited: { start: number; end: number; uri: string; title: string }[] = [];
  let text = '';
  const add = (annotations: JsonValue[], offset: number) => {
    for (const annotation of annotations) {
      if (!isJsonObject(annotation) || annotation.type !== 'url_citation') continue;
      const { start_index: start, end_index: end, url, title } = annotation;
      if (typeof url !== 'string' || typeof start !== 'number' || typeof end !== 'number') continue;
      cited.push({
        start: offset + start,
        end: offset + end,
        uri: url,
        title: typeof title === 'string' ? title : '',
      });
    }
  };
  for (const part of response.content) {
    if (part.type !== 'text') continue;
    add(partAnnotations(part.metadata, part.text.length), text.length);
    text += part.text;
  }
  // A Chat upstream's annotations that came after their text count in the whole message text.
  add(textAnnotations(response.metadata), 0);
  if (cited.length === 0) return undefined;
  const bytes = utf8Offsets(
    text,
    cited.flatMap(({ start, end }) => [start, end]),
  );
  return {
    citationSources: cited.map(({ start, end, uri, title }) => ({
      startIndex: bytes.get(start)!,
      endIndex: bytes.get(end)!,
      uri,
      title,
    })),
  };
}

/**
 * The UTF-8 byte offset of each character offset in `text` — what `Buffer.byteLength` of the text
 * up to it gives, a surrogate pair cut in two counting its high half alone (3 bytes) — counted in
 * one walk of the text: a reply of many citations (a hostile upstream's thousands) does not
 * measure its text once each.
 */
function utf8Offsets(text: string, offsets: number[]): Map<number, number> {
  const bytes = new Map<number, number>();
  const sorted = [...new Set(offsets)].sort((a, b) => a - b);
  let next = 0;
  let count = 0;
  for (let index = 0; next < sorted.length; index++) {
    while (next < sorted.length && (sorted[next]! <= index || index >= text.length))
      bytes.set(sorted[next++]!, count);
    if (index >= text.length) break;
    const code = text.charCodeAt(index);
    if (code < 0x80) count += 1;
    else if (code < 0x800) count += 2;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      if (sorted[next] === index + 1) bytes.set(sorted[next++]!, count + 3);
      count += 4;
      index++;
    } else count += 3;
  }
  return bytes;
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
