/**
 * Chat Completions annotations (`message.annotations`, streamed `delta.annotations`): OpenAI's
 * search models cite web pages as `{type: 'url_citation', url_citation: {url, title, start_index,
 * end_index}}`, offsets in the whole message text. Read into the canonical form the Responses
 * adapter gives its `output_text` annotations — text part metadata `<provider>.annotations`, flat
 * `{type: 'url_citation', start_index, end_index, url, title}`, offsets within the part, placed in
 * the part holding the span it cites — so every client codec (Chat, Responses) sends them on. One
 * no part can carry (its part had ended when it came, or it spans parts) is the response's, offsets
 * the whole message's (see `core/annotations.ts`); the client codecs send those on too.
 */
import { isJsonObject, type JsonObject } from '../../core/json.ts';

/**
 * The canonical annotation of one wire annotation, its offsets still the whole message's (the
 * reader places it in the text part it cites: `splitAnnotations`); undefined for anything but a
 * `url_citation` with a URL and a span of the text (Chat defines no other type).
 */
function readAnnotation(annotation: unknown): JsonObject | undefined {
  if (!isJsonObject(annotation) || annotation.type !== 'url_citation') return undefined;
  const cited = annotation.url_citation;
  if (!isJsonObject(cited)) return undefined;
  const { url, title, start_index: start, end_index: end } = cited;
  if (typeof url !== 'string' || typeof start !== 'number' || typeof end !== 'number') return undefined;
  if (start < 0 || end < start) return undefined;
  return {
    type: 'url_citation',
    start_index: start,
    end_index: end,
    url,
    title: typeof title === 'string' ? title : '',
  };
}

/** The canonical annotations of a message's or delta's wire annotations (see {@link readAnnotation}). */
export function readAnnotations(annotations: readonly unknown[]): JsonObject[] {
  const read: JsonObject[] = [];
  for (const annotation of annotations) {
    const converted = readAnnotation(annotation);
    if (converted !== undefined) read.push(converted);
  }
  return read;
}
