/**
 * Streamed function-call arguments (`partialArgs`: a JSON path and a value, strings possibly in
 * pieces) → JSON text fragments for `tool-call-delta`, plus the argument object itself.
 */
import type { JsonObject, JsonValue } from '../../core/json.ts';
import type { GeminiPartialArgument } from './api.ts';

type Segment = string | number;

interface Frame {
  segment: Segment | undefined;
  kind: 'object' | 'array';
  count: number;
  keys: Set<string> | undefined;
}

type LeafValue = { kind: 'string'; text: string } | { kind: 'value'; value: JsonValue };

/**
 * Parses `$.a.b[0]['c d']` into `['a', 'b', 0, 'c d']`; undefined when it is not a path below `$`.
 */
export function parseJsonPath(path: string): Segment[] | undefined {
  if (!path.startsWith('$')) return undefined;
  const segments: Segment[] = [];
  const pattern = /\.([^.[\]]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/y;
  pattern.lastIndex = 1;
  while (pattern.lastIndex < path.length) {
    const match = pattern.exec(path);
    if (match === null) return undefined;
    if (match[2] !== undefined) segments.push(Number(match[2]));
    else segments.push((match[1] ?? match[3] ?? match[4] ?? '').replace(/\\(.)/g, '$1'));
  }
  return segments.length > 0 ? segments : undefined;
}

/**
 * Writes the arguments of one streamed call as JSON text, in the order the paths arrive (Gemini
 * sends them in document order). The argument object is built alongside and is the authoritative
 * input at the end. If a path ever arrives out of order (a member of an already closed container),
 * the text cannot continue validly: no more fragments are produced (`diverged`), the object stays
 * right.
 */
export class PartialArguments {
  private readonly stack: Frame[] = [];
  private openStringPath: string | undefined;
  private treeStringPath: string | undefined;
  private readonly value: JsonObject = {};
  private broken = false;

  /** True once the text could not follow the paths (the input is still exact). */
  get diverged(): boolean {
    return this.broken;
  }

  /** The arguments received so far. */
  get input(): JsonObject {
    return this.value;
  }

  /** Applies one partial argument; returns the JSON text it adds (empty when none). */
  apply(argument: GeminiPartialArgument): string {
    const segments = parseJsonPath(argument.jsonPath);
    const leaf = leafValue(argument);
    if (segments === undefined || leaf === undefined) return '';
    this.setInTree(segments, leaf, argument);
    if (this.broken) return '';
    const text = this.write(segments, leaf, argument);
    if (text === undefined) {
      this.broken = true;
      return '';
    }
    return text;
  }

  /** Closes an open string and every open container; the text that ends the JSON. */
  close(): string {
    if (this.broken) return '';
    let text = this.openStringPath === undefined ? '' : '"';
    this.openStringPath = undefined;
    if (this.stack.length === 0) return '{}';
    while (this.stack.length > 0) text += closing(this.stack.pop() as Frame);
    return text;
  }

  private write(segments: Segment[], leaf: LeafValue, argument: GeminiPartialArgument): string | undefined {
    let text = '';
    if (this.openStringPath !== undefined) {
      if (this.openStringPath === argument.jsonPath && leaf.kind === 'string') {
        return escapeString(leaf.text) + this.endString(argument);
      }
      text += '"';
      this.openStringPath = undefined;
    }
    if (this.stack.length === 0) {
      text += '{';
      this.stack.push({ segment: undefined, kind: 'object', count: 0, keys: new Set() });
    }
    const parents = segments.slice(0, -1);
    let common = 0;
    while (
      common < parents.length &&
      common + 1 < this.stack.length &&
      this.stack[common + 1]?.segment === parents[common]
    ) {
      common++;
    }
    while (this.stack.length > common + 1) text += closing(this.stack.pop() as Frame);
    for (let index = common; index < parents.length; index++) {
      const segment = parents[index] as Segment;
      const next = index + 1 < parents.length ? parents[index + 1] : segments.at(-1);
      const prefix = memberPrefix(this.stack.at(-1) as Frame, segment);
      if (prefix === undefined) return undefined;
      const kind = typeof next === 'number' ? 'array' : 'object';
      text += prefix + (kind === 'array' ? '[' : '{');
      this.stack.push({ segment, kind, count: 0, keys: kind === 'object' ? new Set() : undefined });
    }
    const prefix = memberPrefix(this.stack.at(-1) as Frame, segments.at(-1) as Segment);
    if (prefix === undefined) return undefined;
    if (leaf.kind === 'value') return text + prefix + JSON.stringify(leaf.value);
    return `${text}${prefix}"${escapeString(leaf.text)}${this.endString(argument)}`;
  }

  private endString(argument: GeminiPartialArgument): string {
    if (argument.willContinue === true) {
      this.openStringPath = argument.jsonPath;
      return '';
    }
    this.openStringPath = undefined;
    return '"';
  }

  private setInTree(segments: Segment[], leaf: LeafValue, argument: GeminiPartialArgument): void {
    let container: JsonObject | JsonValue[] = this.value;
    for (let index = 0; index < segments.length - 1; index++) {
      const segment = segments[index] as Segment;
      const wantArray = typeof segments[index + 1] === 'number';
      let child = readMember(container, segment);
      if (wantArray ? !Array.isArray(child) : !isObject(child)) {
        child = wantArray ? [] : {};
        writeMember(container, segment, child);
      }
      container = child as JsonObject | JsonValue[];
    }
    const last = segments.at(-1) as Segment;
    let value: JsonValue = leaf.kind === 'string' ? leaf.text : leaf.value;
    const existing = readMember(container, last);
    if (leaf.kind === 'string' && this.treeStringPath === argument.jsonPath && typeof existing === 'string') {
      value = existing + leaf.text;
    }
    writeMember(container, last, value);
    this.treeStringPath =
      leaf.kind === 'string' && argument.willContinue === true ? argument.jsonPath : undefined;
  }
}

function leafValue(argument: GeminiPartialArgument): LeafValue | undefined {
  if (typeof argument.stringValue === 'string') return { kind: 'string', text: argument.stringValue };
  if (typeof argument.numberValue === 'number') return { kind: 'value', value: argument.numberValue };
  if (typeof argument.boolValue === 'boolean') return { kind: 'value', value: argument.boolValue };
  if ('nullValue' in argument) return { kind: 'value', value: null };
  return undefined;
}

/** The separator and key/padding before a new member of `frame`; undefined when out of order. */
function memberPrefix(frame: Frame, segment: Segment): string | undefined {
  if (frame.kind === 'object') {
    if (typeof segment !== 'string' || frame.keys?.has(segment)) return undefined;
    frame.keys?.add(segment);
    return `${frame.count++ > 0 ? ',' : ''}${JSON.stringify(segment)}:`;
  }
  if (typeof segment !== 'number' || segment < frame.count) return undefined;
  let prefix = '';
  while (frame.count < segment) prefix += `${frame.count++ > 0 ? ',' : ''}null`;
  return prefix + (frame.count++ > 0 ? ',' : '');
}

function closing(frame: Frame): string {
  return frame.kind === 'object' ? '}' : ']';
}

function escapeString(text: string): string {
  return text === '' ? '' : JSON.stringify(text).slice(1, -1);
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readMember(container: JsonObject | JsonValue[], segment: Segment): JsonValue | undefined {
  if (Array.isArray(container)) return typeof segment === 'number' ? container[segment] : undefined;
  return typeof segment === 'string' ? container[segment] : undefined;
}

function writeMember(container: JsonObject | JsonValue[], segment: Segment, value: JsonValue): void {
  if (Array.isArray(container)) {
    if (typeof segment !== 'number') return;
    while (container.length < segment) container.push(null);
    container[segment] = value;
  } else if (typeof segment === 'string') {
    container[segment] = value;
  }
}
