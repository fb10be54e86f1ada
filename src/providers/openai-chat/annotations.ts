/**
 * Chat Completions annotations (`message.annotations`, streamed `delta.annotations`): OpenAI's
 * search models cite web pages as `{type: 'url_citation', url_citation: {url, title, start_index,
 * end_index}}`, offsets in the whole message text. Read into the canonical form the Responses
 * adapter gives its `output_text` annotations — text part metadata `<provider>.annotations`, flat
 * `{type: 'url_citation', start_index, end_index, url, title}`, offsets within the part — so every
 * client codec (Chat, Responses) sends them on.
 */
import { isJsonObject, type JsonObject } from '../../core/json.ts';

/**
 * The canonical annotation of one wire annotation, its offsets moved back by `offset` (the length
 * of the message text before the part it cites); undefined for anything but a `url_citation` with
 * a URL and numeric offsets (Chat defines no other type).
 */
function readAnnotation(annotation: unknown, offset: number): JsonObject | undefined {
  if (!isJsonObject(annotation) || annotation.type !== 'url_citation') return undefined;
  const cited = annotation.url_citation;
  if (!isJsonObject(cited)) return undefined;
  const { url, title, start_index: start, end_index: end } = cited;
  if (typeof url !== 'string' || typeof start !== 'number' || typeof end !== 'number') return undefined;
  return {
    type: 'url_citation',
    start_index: Math.max(0, start - offset),
    end_index: Math.max(0, end - offset),
    url,
    title: typeof title === 'string' ? title : '',
  };
}

/** The canonical annotations of the wire annotations collected for one text part (see {@link readAnnotation}). */
export function readAnnotations(annotations: readonly unknown[], offset: number): JsonObject[] {
  const read: JsonObject[] = [];
  for (const annotation of annotations) {
    const converted = readAnnotation(annotation, offset);
    if (converted !== undefined) read.push(converted);
  }
  return read;
}
