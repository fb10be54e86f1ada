/**
 * A Gemini upstream's Google Search grounding (response metadata `gemini.groundingMetadata`) as
 * `url_citation` annotations in the canonical flat form (`core/annotations.ts`; the Chat codec
 * nests each in its `url_citation` field): each `groundingSupports` entry cites its `segment` of the reply
 * with the web sources its `groundingChunkIndices` name (`groundingChunks[i].web: {uri, title}`).
 * Gemini measures a segment in bytes of UTF-8 (Google's `GroundingSupportSegment`: "measured in
 * bytes"); `start_index`/`end_index` count the message text's characters (UTF-16 units, as
 * the other annotations here), so the offsets are converted. Google measures them "from the start
 * of the Part" (`segment.partIndex`): where a whole reply's parts start is known (metadata
 * `gemini.partStarts`), the segment is placed in its part; else its offsets are taken as the whole
 * text's. A segment whose converted span is not its `text` is looked up by that text instead, from
 * where its offsets put it (a repeated sentence is cited where it is), else from the start.
 */
import { isJsonObject, type JsonValue } from '../core/json.ts';
import { geminiGroundingKey, geminiPartStartsKey, type MetadataMap } from '../core/metadata.ts';

/** The `url_citation`s of the grounding in `metadata` over the message `text`; empty without any. */
export function groundingCitations(metadata: MetadataMap | undefined, text: string): JsonValue[] {
  const grounding = metadata?.[geminiGroundingKey];
  if (!isJsonObject(grounding) || text === '') return [];
  const { groundingChunks: chunks, groundingSupports: supports } = grounding;
  if (!Array.isArray(chunks) || !Array.isArray(supports)) return [];
  const offsets = characterOffsets(text);
  const partBytes = partStartBytes(metadata?.[geminiPartStartsKey], text);
  const converted: JsonValue[] = [];
  const seen = new Set<string>();
  for (const support of supports) {
    if (!isJsonObject(support) || !Array.isArray(support.groundingChunkIndices)) continue;
    const span = segmentSpan(support.segment, text, offsets, partBytes);
    if (span === undefined) continue;
    for (const index of support.groundingChunkIndices) {
      const source = typeof index === 'number' ? webSource(chunks[index]) : undefined;
      if (source === undefined) continue;
      const key = `${span[0]} ${span[1]} ${source.url}`;
      if (seen.has(key)) continue;
      seen.add(key);
      converted.push({
        type: 'url_citation',
        start_index: span[0],
        end_index: span[1],
        url: source.url,
        title: source.title,
      });
    }
  }
  return converted;
}

function webSource(chunk: JsonValue | undefined): { url: string; title: string } | undefined {
  const web = isJsonObject(chunk) ? chunk.web : undefined;
  if (!isJsonObject(web) || typeof web.uri !== 'string') return undefined;
  return { url: web.uri, title: typeof web.title === 'string' ? web.title : '' };
}

/**
 * For each wire part, the UTF-8 byte offset of its start in `text` (from the reply's part starts in
 * characters); undefined when they are not known.
 */
function partStartBytes(starts: JsonValue | undefined, text: string): (part: number) => number | undefined {
  if (!Array.isArray(starts)) return () => undefined;
  const encoder = new TextEncoder();
  return (part) => {
    const start = starts[part];
    return typeof start === 'number' && start <= text.length
      ? encoder.encode(text.slice(0, start)).length
      : undefined;
  };
}

/** A segment's `[start, end)` in characters of `text`, or undefined when it cannot be placed. */
function segmentSpan(
  segment: JsonValue | undefined,
  text: string,
  offsets: (byte: number) => number | undefined,
  partBytes: (part: number) => number | undefined,
): [number, number] | undefined {
  if (!isJsonObject(segment)) return undefined;
  // proto3 leaves a zero out: a segment from the start (of part 0) has no startIndex, no partIndex.
  const base = partBytes(typeof segment.partIndex === 'number' ? segment.partIndex : 0) ?? 0;
  const startByte = base + (typeof segment.startIndex === 'number' ? segment.startIndex : 0);
  const endByte = typeof segment.endIndex === 'number' ? base + segment.endIndex : undefined;
  const quoted = typeof segment.text === 'string' && segment.text !== '' ? segment.text : undefined;
  const start = offsets(startByte);
  if (endByte !== undefined && endByte > startByte) {
    const end = offsets(endByte);
    if (
      start !== undefined &&
      end !== undefined &&
      (quoted === undefined || text.slice(start, end) === quoted)
    )
      return [start, end];
  }
  if (quoted === undefined) return undefined;
  let found = start === undefined ? -1 : text.indexOf(quoted, start);
  if (found < 0) found = text.indexOf(quoted);
  return found < 0 ? undefined : [found, found + quoted.length];
}

/**
 * Maps a UTF-8 byte offset of `text` to its UTF-16 offset (undefined past the end or inside a
 * character). Walks the text once, on first use, recording every character boundary.
 */
function characterOffsets(text: string): (byte: number) => number | undefined {
  let table: Map<number, number> | undefined;
  return (byte) => {
    if (table === undefined) {
      const built = new Map<number, number>([[0, 0]]);
      let bytes = 0;
      for (let index = 0; index < text.length;) {
        const code = text.codePointAt(index) ?? 0;
        const units = code > 0xffff ? 2 : 1;
        bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
        index += units;
        built.set(bytes, index);
      }
      table = built;
    }
    return table.get(byte);
  };
}
