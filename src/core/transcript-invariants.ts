/** Transcript invariants, checked on demand (not on every construction). */
import type { Transcript } from './transcript.ts';

/** One broken invariant, with the item (and part) where it was found. */
export interface TranscriptViolation {
  rule:
    | 'tool-call-id-empty'
    | 'tool-call-id-duplicate'
    | 'tool-call-unanswered'
    | 'tool-result-orphaned'
    | 'tool-item-content';
  itemIndex: number;
  partIndex: number;
  message: string;
}

/**
 * Checks that tool-call ids are unique and non-empty, that every tool result answers an earlier
 * call, that every tool call has a later result, and that tool items hold only tool results.
 * Returns every violation; empty means valid.
 */
export function checkTranscript(transcript: Transcript): TranscriptViolation[] {
  const violations: TranscriptViolation[] = [];
  const seenCalls = new Set<string>();
  const answered = new Set<string>();
  const calls: Array<{ id: string; name: string; itemIndex: number; partIndex: number }> = [];
  transcript.forEach((item, itemIndex) => {
    item.parts.forEach((part, partIndex) => {
      const at = { itemIndex, partIndex };
      if (item.kind === 'tool' && part.type !== 'tool-result') {
        violations.push({ rule: 'tool-item-content', ...at, message: `tool item holds a ${part.type} part` });
      }
      if (part.type === 'tool-call') {
        if (part.id.length === 0) {
          violations.push({
            rule: 'tool-call-id-empty',
            ...at,
            message: `tool call "${part.name}" has an empty id`,
          });
        } else if (seenCalls.has(part.id)) {
          violations.push({
            rule: 'tool-call-id-duplicate',
            ...at,
            message: `tool-call id ${part.id} is repeated`,
          });
        }
        seenCalls.add(part.id);
        calls.push({ id: part.id, name: part.name, itemIndex, partIndex });
      } else if (part.type === 'tool-result' && seenCalls.has(part.callId)) {
        answered.add(part.callId);
      } else if (part.type === 'tool-result') {
        violations.push({
          rule: 'tool-result-orphaned',
          ...at,
          message: `tool result answers ${part.callId}, which no earlier tool call has`,
        });
      }
    });
  });
  for (const call of calls) {
    if (call.id.length === 0 || answered.has(call.id)) continue;
    violations.push({
      rule: 'tool-call-unanswered',
      itemIndex: call.itemIndex,
      partIndex: call.partIndex,
      message: `tool call ${call.id} ("${call.name}") has no tool result`,
    });
  }
  return violations;
}
