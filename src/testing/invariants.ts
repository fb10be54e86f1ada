/** `assertStreamInvariants`: checks an event list against the stream contract (docs/contract.md §5.2). */

import { finishReasons } from '../core/finish-reason.ts';
import { isDeepStrictEqual } from 'node:util';
import { ResponseAccumulator } from '../core/accumulator.ts';
import type { StreamEvent } from '../core/events.ts';
import { isJsonObject } from '../core/json.ts';
import type { Usage } from '../core/usage.ts';

/** Thrown when an event list breaks the stream contract; `violations` lists every broken rule. */
export class StreamInvariantError extends Error {
  override name = 'StreamInvariantError';
  readonly violations: string[];

  constructor(violations: string[]) {
    super(`stream contract violated:\n- ${violations.join('\n- ')}`);
    this.violations = violations;
  }
}

type PartState = { type: 'text' | 'reasoning' | 'tool-call'; ended: boolean; id?: string };

/**
 * Checks every rule of the stream contract and throws a `StreamInvariantError` listing all
 * violations: message-start first and once; finish exactly once and last; part events with
 * non-decreasing indices and new parts at fresh, increasing indices; each text/reasoning/tool-call
 * started once and ended once, deltas only while open; tool-call ids unique and non-empty, deltas
 * and end carrying the start's id; final inputs JSON objects; usage counts non-negative integers;
 * the `incomplete` marker `true` or absent, set on every repaired tool input; the finish response's
 * content equal to what the deltas built (markers included); and no incomplete part in a
 * `completed` response.
 */
export function assertStreamInvariants(events: readonly StreamEvent[]): void {
  const violations = findStreamViolations(events);
  if (violations.length > 0) throw new StreamInvariantError(violations);
}

/** The list of violations (empty when the stream is valid). */
export function findStreamViolations(events: readonly StreamEvent[]): string[] {
  const violations: string[] = [];
  const parts = new Map<number, PartState>();
  const toolIds = new Set<string>();
  let lastIndex = -1;
  let highestStarted = -1;
  let finishes = 0;
  events.forEach((event, position) => {
    const at = `event ${position} (${event.type})`;
    if (position === 0 && event.type !== 'message-start')
      violations.push(`${at}: the first event must be message-start`);
    if (position > 0 && event.type === 'message-start') violations.push(`${at}: message-start repeated`);
    if (finishes > 0) violations.push(`${at}: event after finish`);
    if ('index' in event) {
      if (event.index < lastIndex)
        violations.push(`${at}: index ${event.index} decreases (after ${lastIndex})`);
      lastIndex = Math.max(lastIndex, event.index);
    }
    switch (event.type) {
      case 'text-start':
      case 'reasoning-start':
      case 'tool-call-start': {
        const type =
          event.type === 'text-start' ? 'text' : event.type === 'reasoning-start' ? 'reasoning' : 'tool-call';
        if (parts.has(event.index) || event.index <= highestStarted) {
          violations.push(`${at}: part index ${event.index} already used`);
        }
        highestStarted = Math.max(highestStarted, event.index);
        const state: PartState = { type, ended: false };
        if (event.type === 'tool-call-start') {
          state.id = event.id;
          if (typeof event.id !== 'string' || event.id.length === 0)
            violations.push(`${at}: empty tool-call id`);
          else if (toolIds.has(event.id)) violations.push(`${at}: tool-call id ${event.id} repeated`);
          toolIds.add(event.id);
          if (typeof event.name !== 'string' || event.name.length === 0)
            violations.push(`${at}: empty tool name`);
        }
        parts.set(event.index, state);
        return;
      }
      case 'text-delta':
      case 'reasoning-delta':
      case 'tool-call-delta':
      case 'text-end':
      case 'reasoning-end':
      case 'tool-call-end':
        checkPartEvent(event, parts, at, violations);
        return;
      case 'custom':
        if (parts.has(event.index) || event.index <= highestStarted)
          violations.push(`${at}: part index ${event.index} already used`);
        highestStarted = Math.max(highestStarted, event.index);
        parts.set(event.index, { type: 'text', ended: true });
        return;
      case 'usage':
        checkUsage(event.usage, at, violations);
        return;
      case 'finish':
        finishes++;
        if (!(finishReasons as readonly string[]).includes(event.response.finishReason))
          violations.push(
            `${at}: finish reason "${String(event.response.finishReason)}" is not one of ${finishReasons.join(', ')}`,
          );
        checkUsage(event.response.usage, `${at}: response`, violations);
        return;
      case 'message-start':
        return;
    }
  });
  if (finishes === 0) violations.push('no finish event');
  if (finishes > 1) violations.push(`finish emitted ${finishes} times`);
  if (events.length > 0 && events[events.length - 1]?.type !== 'finish')
    violations.push('the last event is not finish');
  for (const [index, state] of parts)
    if (!state.ended) violations.push(`part ${index} (${state.type}) never ended`);
  if (violations.length === 0) checkFinishContent(events, violations);
  if (violations.length === 0) checkCompletedIsWhole(events, violations);
  return violations;
}

function checkPartEvent(
  event: Extract<StreamEvent, { index: number }>,
  parts: Map<number, PartState>,
  at: string,
  violations: string[],
): void {
  const expected = event.type.startsWith('text')
    ? 'text'
    : event.type.startsWith('reasoning')
      ? 'reasoning'
      : 'tool-call';
  const state = parts.get(event.index);
  if (state === undefined || state.type !== expected) {
    violations.push(`${at}: no ${expected} part started at index ${event.index}`);
    return;
  }
  if (state.ended) {
    violations.push(`${at}: part ${event.index} already ended`);
    return;
  }
  if ((event.type === 'text-delta' || event.type === 'reasoning-delta') && typeof event.delta !== 'string') {
    violations.push(`${at}: delta is not a string`);
  }
  if (
    event.type === 'reasoning-delta' &&
    event.part !== undefined &&
    !(Number.isInteger(event.part) && event.part > 0)
  )
    violations.push(`${at}: summary part ${String(event.part)} is not a positive integer`);
  if (event.type === 'tool-call-delta' || event.type === 'tool-call-end') {
    if (event.id !== state.id) violations.push(`${at}: id ${event.id} differs from the start's ${state.id}`);
    if (event.type === 'tool-call-delta' && typeof event.delta !== 'string')
      violations.push(`${at}: delta is not a raw string`);
  }
  if (event.type === 'tool-call-end' && !isJsonObject(event.input))
    violations.push(`${at}: final input is not a JSON object`);
  if (event.type.endsWith('-end')) checkIncompleteMarker(event as PartEndEvent, at, violations);
  if (event.type.endsWith('-end')) state.ended = true;
}

type PartEndEvent = Extract<StreamEvent, { type: 'text-end' | 'reasoning-end' | 'tool-call-end' }>;

/** `incomplete` is `true` or absent; a tool input repaired from unparseable text must carry it. */
function checkIncompleteMarker(event: PartEndEvent, at: string, violations: string[]): void {
  const marker: unknown = event.incomplete;
  if (marker !== undefined && marker !== true)
    violations.push(`${at}: incomplete is ${String(marker)}; the marker is true or absent`);
  if (
    event.type === 'tool-call-end' &&
    event.metadata?.['switchyard.raw_input'] !== undefined &&
    marker !== true
  )
    violations.push(`${at}: a repaired tool input (switchyard.raw_input) is not marked incomplete`);
}

/** A `completed` response holds no part the runtime had to close. */
function checkCompletedIsWhole(events: readonly StreamEvent[], violations: string[]): void {
  const finish = events[events.length - 1];
  if (finish?.type !== 'finish' || finish.response.finishReason !== 'completed') return;
  finish.response.content.forEach((part, index) => {
    if ('incomplete' in part && part.incomplete === true)
      violations.push(`finish: finish reason completed, but part ${index} (${part.type}) is incomplete`);
  });
}

/** Every bucket a non-negative integer, and reasoning part of output (never more than it). */
/**
 * What is wrong with a usage record (`complete()`'s or a stream's): every token bucket a
 * non-negative integer, reasoning within output. Empty when nothing is.
 */
export function findUsageViolations(usage: Usage | undefined, at: string): string[] {
  const violations: string[] = [];
  checkUsage(usage, at, violations);
  return violations;
}

function checkUsage(usage: Usage | undefined, at: string, violations: string[]): void {
  if (usage === undefined || usage === null) {
    violations.push(`${at}: usage is missing`);
    return;
  }
  for (const [bucket, value] of Object.entries(usage)) {
    if (bucket === 'cost') continue;
    if (bucket === 'serviceTier') {
      if (typeof value !== 'string' || value === '')
        violations.push(`${at}: usage.serviceTier is ${String(value)}, not a name`);
      continue;
    }
    if (bucket === 'byModel') {
      // Each other model's share holds the same disjoint buckets.
      for (const [model, share] of Object.entries((value ?? {}) as Record<string, Usage>))
        checkUsage(share, `${at}: usage.byModel[${model}]`, violations);
      continue;
    }
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      violations.push(`${at}: usage.${bucket} is ${String(value)}, not a non-negative integer`);
    }
  }
  if (usage.reasoning > usage.output) {
    violations.push(`${at}: usage.reasoning (${usage.reasoning}) exceeds usage.output (${usage.output})`);
  }
}

function checkFinishContent(events: readonly StreamEvent[], violations: string[]): void {
  const accumulator = new ResponseAccumulator();
  for (const event of events) accumulator.add(event);
  const finish = events[events.length - 1];
  if (finish?.type !== 'finish') return;
  if (!isDeepStrictEqual(finish.response.content, accumulator.content())) {
    violations.push('finish.response.content differs from the content the deltas built');
  }
  const usage = events.filter((event) => event.type === 'usage').at(-1);
  if (usage !== undefined && !isDeepStrictEqual(usage.usage, finish.response.usage)) {
    violations.push('finish.response.usage differs from the last usage event');
  }
}
