/**
 * A response's annotations (`responseAnnotations`: a Chat upstream's citations that came after the
 * text they cite had ended, a Gemini upstream's grounding; offsets in the whole message text, see
 * `core/annotations.ts`) given to the `output_text` parts holding their spans. Responses has no
 * response-level annotations: one that spans several parts is given to the part it starts in, cut
 * to that part's text — once, not to every part it crosses: a copy per part would let a hostile
 * upstream's small reply (many parts, citations spanning them all) grow without bound.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
/** An `output_text` part and the span of the whole message text it holds. */
export interface TextSpan {
  part: { annotations: JsonValue[] };
  /** Its item's `id` and output index, for the stream's `annotation.added` events. */
  itemId: string;
  outputIndex: number;
  start: number;
  end: number;
}

/** One annotation placed: its part, and its index in the part's `annotations`. */
export interface PlacedAnnotation {
  span: TextSpan;
  index: number;
  annotation: JsonObject;
}

/**
 * Appends each of the response's `annotations` to the part of `spans` holding it, or to the part its
 * span starts in (cut to it); returns where each went, in the annotations' order. One with no span
 * in the text is left out. Each is placed by a binary search of the spans (in message order, each
 * starting where the one before ended): parts × annotations was a second for a hostile reply of
 * 10,000 of each.
 */
export function placeResponseAnnotations(
  annotations: readonly JsonValue[],
  spans: readonly TextSpan[],
): PlacedAnnotation[] {
  const placed: PlacedAnnotation[] = [];
  for (const annotation of annotations) {
    if (!isJsonObject(annotation)) continue;
    const { start_index: from, end_index: to } = annotation;
    if (typeof from !== 'number' || typeof to !== 'number') continue;
    // The first span ending after `from`: the one holding it, or the first the annotation may cross.
    let low = 0;
    let high = spans.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (spans[middle]!.end > from) high = middle;
      else low = middle + 1;
    }
    const span = spans[low];
    if (span === undefined) continue;
    const inside = from >= span.start && to <= span.end;
    if (!inside && to <= span.start) continue;
    const start = inside ? from : Math.max(from, span.start);
    const end = inside ? to : Math.min(to, span.end);
    const copy = { ...annotation, start_index: start - span.start, end_index: end - span.start };
    placed.push({ span, index: span.part.annotations.length, annotation: copy });
    span.part.annotations.push(copy);
  }
  return placed;
}
