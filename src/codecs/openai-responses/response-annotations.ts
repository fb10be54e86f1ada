/**
 * A response's annotations (`responseAnnotations`: a Chat upstream's citations that came after the
 * text they cite had ended, a Gemini upstream's grounding; offsets in the whole message text, see
 * `core/annotations.ts`) given to the `output_text` parts holding their spans. Responses has no
 * response-level annotations: one that spans several parts is given to the part it starts in, cut
 * to that part's text — once, not to every part it crosses: a copy per part would let a hostile
 * upstream's small reply (many parts, citations spanning them all) grow without bound.
 */
import { splitAnnotations } from '../../core/annotations.ts';
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
 * span starts in (cut to it); returns where each went. One with no span in the text is left out.
 */
export function placeResponseAnnotations(
  annotations: readonly JsonValue[],
  spans: readonly TextSpan[],
): PlacedAnnotation[] {
  let pending: readonly JsonValue[] = annotations;
  const placed: PlacedAnnotation[] = [];
  const place = (span: TextSpan, annotation: JsonObject) => {
    placed.push({ span, index: span.part.annotations.length, annotation });
    span.part.annotations.push(annotation);
  };
  for (const span of spans) {
    if (pending.length === 0) return placed;
    const { inside, outside } = splitAnnotations(pending, span.start, span.end);
    pending = outside;
    for (const annotation of inside) place(span, annotation);
  }
  for (const annotation of pending) {
    if (!isJsonObject(annotation)) continue;
    const { start_index: from, end_index: to } = annotation;
    if (typeof from !== 'number' || typeof to !== 'number') continue;
    const span = spans.find((candidate) => from < candidate.end && to > candidate.start);
    if (span !== undefined)
      place(span, {
        ...annotation,
        start_index: Math.max(from, span.start) - span.start,
        end_index: Math.min(to, span.end) - span.start,
      });
  }
  return placed;
}
