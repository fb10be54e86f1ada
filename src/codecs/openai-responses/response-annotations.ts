/**
 * A response's annotations (metadata `<provider>.annotations` on the response, not a text part: a
 * Chat upstream's citations that came after the text they cite had ended; offsets in the whole
 * message text, see `core/annotations.ts`) given to the `output_text` parts holding their spans.
 * Responses has no response-level annotations: one that spans several parts is left out.
 */
import { splitAnnotations } from '../../core/annotations.ts';
import type { JsonObject, JsonValue } from '../../core/json.ts';
import type { MetadataMap } from '../../core/metadata.ts';
import { textAnnotations } from '../common.ts';

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

/** Appends each of the response's annotations to the part of `spans` holding it; returns where each went. */
export function placeResponseAnnotations(
  metadata: MetadataMap | undefined,
  spans: readonly TextSpan[],
): PlacedAnnotation[] {
  let pending: JsonValue[] = textAnnotations(metadata);
  const placed: PlacedAnnotation[] = [];
  for (const span of spans) {
    if (pending.length === 0) break;
    const { inside, outside } = splitAnnotations(pending, span.start, span.end);
    pending = outside;
    for (const annotation of inside) {
      placed.push({ span, index: span.part.annotations.length, annotation });
      span.part.annotations.push(annotation);
    }
  }
  return placed;
}
