/** Collects OpenRouter `reasoning_details` entries as received, so they can go back verbatim. */
import type { JsonObject, JsonValue } from '../../core/json.ts';
import type { ReasoningDetail } from './api.ts';

/** Fields a stream sends in pieces; every other field is taken from the latest piece that has it. */
const concatenatedFields = ['text', 'summary', 'data'];

/** Whether a streamed piece continues `last`: same `type` and `index`, and no other `id`. */
function continues(last: JsonObject | undefined, piece: ReasoningDetail): last is JsonObject {
  if (last === undefined || last.type !== piece.type || last.index !== piece.index) return false;
  const id = piece.id;
  return typeof id !== 'string' || id === '' || typeof last.id !== 'string' || last.id === id;
}

/**
 * Adds one entry to `entries`. A response body carries whole entries, each appended as a copy. A
 * stream (`streamed`) sends an entry in pieces: a piece continuing the last entry (same `type` and
 * `index`, no other `id`) is merged into it (`text`, `summary` and `data` appended, other non-null
 * fields set), so the list ends as the whole entries a response body carries. No field is renamed
 * or dropped.
 */
export function appendReasoningDetail(
  entries: JsonObject[],
  detail: ReasoningDetail,
  streamed: boolean,
): void {
  const last = entries.at(-1);
  if (!streamed || !continues(last, detail)) {
    entries.push({ ...(detail as JsonObject) });
    return;
  }
  for (const [field, value] of Object.entries(detail)) {
    if (value === undefined || value === null) continue;
    const previous = last[field];
    if (concatenatedFields.includes(field) && typeof value === 'string' && typeof previous === 'string')
      last[field] = previous + value;
    else if (value !== '' || previous === undefined || previous === null) last[field] = value as JsonValue;
  }
}
