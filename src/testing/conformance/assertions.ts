/** Small assertions on top of `node:assert` (the kit must not depend on one test framework). */
import assert from 'node:assert/strict';
import type { StreamEvent } from '../../core/events.ts';
import type { CanonicalResponse } from '../../core/request.ts';
import type { Part } from '../../core/transcript.ts';

/** Asserts that `actual` has each field of `expected` (deep-equal per field), naming the field. */
export function assertFields(actual: unknown, expected: Record<string, unknown>, what: string): void {
  assert.ok(
    typeof actual === 'object' && actual !== null,
    `${what}: expected an object, got ${String(actual)}`,
  );
  for (const [key, value] of Object.entries(expected)) {
    assert.deepEqual((actual as Record<string, unknown>)[key], value, `${what}: field ${key}`);
  }
}

/** The response of the last event, which must be `finish`. */
export function finishOf(events: readonly StreamEvent[]): CanonicalResponse {
  const last = events.at(-1);
  assert.ok(
    last?.type === 'finish',
    `the stream must end with finish, ended with ${last?.type ?? 'nothing'}`,
  );
  return last.response;
}

/** The error a promise rejects with (fails when it resolves). */
export async function rejection(promise: Promise<unknown>, what: string): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail(`${what}: expected the call to fail`);
}

/** The `errorClass` of a caught error (undefined when it has none). */
export function errorClassOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null
    ? ((error as { errorClass?: string }).errorClass ?? undefined)
    : undefined;
}

/** The text of the first text part, or '' when there is none. */
export function firstText(response: CanonicalResponse): string {
  const part = response.content.find((candidate) => candidate.type === 'text');
  return part?.type === 'text' ? part.text : '';
}

/** Content without part metadata (provider item ids, annotations), to compare what was said. */
export function withoutMetadata(content: readonly Part[]): Part[] {
  return content.map((part) => {
    if (part.metadata === undefined) return part;
    const { metadata: _metadata, ...rest } = part;
    return rest as Part;
  });
}
