/**
 * Canonical text annotations (`{type: 'url_citation', start_index, end_index, url, title}`, the
 * Responses adapter's flat form) placed in text parts by their offsets. A text part's metadata
 * `<provider>.annotations` counts offsets within the part; a response's (a Chat upstream's
 * annotations that arrived after the part they cite had ended, or that no single part holds)
 * count them in the whole message text, every non-refusal text part joined.
 */
import { isJsonObject, type JsonObject, type JsonValue } from './json.ts';

/**
 * Splits `annotations` (offsets in the whole message text) into those a text part spanning
 * `[start, end)` of it holds — the span starting in the part and ending within it — their offsets
 * made the part's, and the rest, unchanged. An empty part holds none.
 */
export function splitAnnotations(
  annotations: readonly JsonValue[],
  start: number,
  end: number,
): { inside: JsonObject[]; outside: JsonObject[] } {
  const inside: JsonObject[] = [];
  const outside: JsonObject[] = [];
  for (const annotation of annotations) {
    if (!isJsonObject(annotation)) continue;
    const { start_index: from, end_index: to } = annotation;
    if (typeof from === 'number' && typeof to === 'number' && from >= start && from < end && to <= end)
      inside.push({ ...annotation, start_index: from - start, end_index: to - start });
    else outside.push(annotation);
  }
  return { inside, outside };
}
