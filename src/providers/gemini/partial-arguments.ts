/**
 * Streamed function-call arguments (`partialArgs`: a JSON path and a value, strings possibly in
 * pieces) → JSON text fragments for `tool-call-delta`, plus the argument object itself.
 */
import { ServerError } from '../../core/errors/server-error.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import { type GeminiPartialArgument } from './api.ts';

type Segment = string | number;

/**
 * How far past the end of an array a streamed index may point (the skipped places become `null`).
 * Gemini sends array members in order, so a real gap is 0; a larger one is a broken stream, and an
 * unbounded one would let one small event allocate an array and a text of any size.
 */
export const maxIndexGap = 1000;

/** Where the arguments come from, for error messages. */
export interface ArgumentsSite {
  model?: string;
  requestId?: string;
}

/** The `ServerError` (`invalid_stream`) for streamed arguments that cannot be applied. */
export function invalidArguments(site: ArgumentsSite, detail: string, retryable: boolean): ServerError {
  return new ServerError({
    message: `gemini: the stream of ${site.model ?? 'the model'} ${detail}`,
    provider: 'gemini',
    providerCode: 'invalid_stream',
    retryable,
    requestId: site.requestId,
  });
}

interface Frame {
  segment: Segment | undefined;
  kind: 'object' | 'array';
  count: number;
  keys: Set<string> | undefined;
}

/** The value of one entry: a string piece (`stringValue`) or a whole value (any other value field). */
interface Leaf {
  isString: boolean;
  value: JsonValue;
}

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
    else segments.push(unescapeKey(match[1] ?? match[3] ?? match[4] ?? ''));
  }
  return segments.length > 0 ? segments : undefined;
}

function unescapeKey(key: string): string {
  return key.includes('\\') ? key.replace(/\\(.)/g, '$1') : key;
}

/**
 * Writes the arguments of one streamed call as JSON text, in the order the paths arrive (Gemini
 * sends them in document order). The argument object is built alongside and is the authoritative
 * input at the end. If a path ever arrives out of order (a member of an already closed container),
 * the text cannot continue validly: no more fragments are produced (`diverged`), the object stays
 * right.
 *
 * A partial argument that cannot be applied at all throws a `ServerError` (`invalid_stream`) rather
 * than being skipped, because skipping it would silently drop part of a tool call's input: an entry
 * that is not an object with a string `jsonPath` (retryable, like malformed JSON in the stream), or
 * an array index more than {@link maxIndexGap} past the array's end (not retryable). A path that is
 * a string but not below `$`, or an entry with no value field, adds nothing (as before).
 */
export class PartialArguments {
  private readonly site: ArgumentsSite;
  private readonly stack: Frame[] = [];
  private openStringPath: string | undefined;
  private treeStringPath: string | undefined;
  private readonly value: JsonObject = {};
  private broken = false;
  // Continuation pieces of a string repeat their path: it is parsed once.
  private lastPath: string | undefined;
  private lastSegments: Segment[] | undefined;
  // Reused for every entry: one leaf object per stream, not per fragment.
  private readonly leaf: Leaf = { isString: false, value: null };
  private readonly keyTexts = new Map<string, string>();

  constructor(site: ArgumentsSite = {}) {
    this.site = site;
  }

  /** True once the text could not follow the paths (the input is still exact). */
  get diverged(): boolean {
    return this.broken;
  }

  /** The arguments received so far. */
  get input(): JsonObject {
    return this.value;
  }

  /** Applies one partial argument (any wire value); returns the JSON text it adds (empty when none). */
  apply(entry: unknown): string {
    if (!isJsonObject(entry) || typeof entry.jsonPath !== 'string') {
      throw invalidArguments(
        this.site,
        'sent a partialArgs entry that is not an object with a string jsonPath',
        true,
      );
    }
    const argument = entry as unknown as GeminiPartialArgument;
    const segments = this.segmentsOf(argument.jsonPath);
    const leaf = this.leaf;
    if (segments === undefined || !readLeaf(argument, leaf)) return '';
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

  private segmentsOf(path: string): Segment[] | undefined {
    if (path !== this.lastPath) {
      this.lastPath = path;
      this.lastSegments = parseJsonPath(path);
    }
    return this.lastSegments;
  }

  private write(segments: Segment[], leaf: Leaf, argument: GeminiPartialArgument): string | undefined {
    let text = '';
    if (this.openStringPath !== undefined) {
      if (this.openStringPath === argument.jsonPath && leaf.isString) {
        return escapeString(leaf.value as string) + this.endString(argument);
      }
      text += '"';
      this.openStringPath = undefined;
    }
    if (this.stack.length === 0) {
      text += '{';
      this.stack.push({ segment: undefined, kind: 'object', count: 0, keys: new Set() });
    }
    // segments[0 .. last - 1] are the containers, segments[last] the member written.
    const last = segments.length - 1;
    let common = 0;
    while (
      common < last &&
      common + 1 < this.stack.length &&
      this.stack[common + 1]?.segment === segments[common]
    ) {
      common++;
    }
    while (this.stack.length > common + 1) text += closing(this.stack.pop() as Frame);
    for (let index = common; index < last; index++) {
      const segment = segments[index] as Segment;
      const prefix = memberPrefix(this.stack[this.stack.length - 1] as Frame, segment, this.keyTexts);
      if (prefix === undefined) return undefined;
      const kind = typeof segments[index + 1] === 'number' ? 'array' : 'object';
      text += prefix + (kind === 'array' ? '[' : '{');
      this.stack.push({ segment, kind, count: 0, keys: kind === 'object' ? new Set() : undefined });
    }
    const prefix = memberPrefix(
      this.stack[this.stack.length - 1] as Frame,
      segments[last] as Segment,
      this.keyTexts,
    );
    if (prefix === undefined) return undefined;
    if (!leaf.isString) return text + prefix + JSON.stringify(leaf.value);
    return `${text}${prefix}"${escapeString(leaf.value as string)}${this.endString(argument)}`;
  }

  private endString(argument: GeminiPartialArgument): string {
    if (argument.willContinue === true) {
      this.openStringPath = argument.jsonPath;
      return '';
    }
    this.openStringPath = undefined;
    return '"';
  }

  private setInTree(segments: Segment[], leaf: Leaf, argument: GeminiPartialArgument): void {
    let container: JsonObject | JsonValue[] = this.value;
    const last = segments.length - 1;
    for (let index = 0; index < last; index++) {
      const segment = segments[index] as Segment;
      const wantArray = typeof segments[index + 1] === 'number';
      let child = readMember(container, segment);
      if (wantArray ? !Array.isArray(child) : !isJsonObject(child)) {
        child = wantArray ? [] : {};
        this.writeMember(container, segment, child, argument.jsonPath);
      }
      container = child as JsonObject | JsonValue[];
    }
    const segment = segments[last] as Segment;
    let value = leaf.value;
    const existing = readMember(container, segment);
    if (leaf.isString && this.treeStringPath === argument.jsonPath && typeof existing === 'string') {
      value = existing + (leaf.value as string);
    }
    this.writeMember(container, segment, value, argument.jsonPath);
    this.treeStringPath = leaf.isString && argument.willContinue === true ? argument.jsonPath : undefined;
  }

  /** Writes one member; an array index is padded with `null`s, at most {@link maxIndexGap} of them. */
  private writeMember(
    container: JsonObject | JsonValue[],
    segment: Segment,
    value: JsonValue,
    path: string,
  ): void {
    if (Array.isArray(container)) {
      if (typeof segment !== 'number') return;
      if (segment - container.length > maxIndexGap) {
        throw invalidArguments(
          this.site,
          `sent a function-call argument at ${path}, index ${segment} of an array of length ` +
            `${container.length} (an index at most ${maxIndexGap} past the end is accepted)`,
          false,
        );
      }
      while (container.length < segment) container.push(null);
      container[segment] = value;
    } else if (segment === '__proto__') {
      // An own property, as JSON.parse makes it (an assignment would swap the object's prototype);
      // the stream builder then removes it and keeps the arguments as sent.
      Object.defineProperty(container, segment, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else if (typeof segment === 'string') {
      container[segment] = value;
    }
  }
}

/** Reads the entry's value into `leaf`; false when it has no value field. */
function readLeaf(argument: GeminiPartialArgument, leaf: Leaf): boolean {
  leaf.isString = typeof argument.stringValue === 'string';
  if (leaf.isString) leaf.value = argument.stringValue as string;
  else if (typeof argument.numberValue === 'number') leaf.value = argument.numberValue;
  else if (typeof argument.boolValue === 'boolean') leaf.value = argument.boolValue;
  else if ('nullValue' in argument) leaf.value = null;
  else return false;
  return true;
}

/** The separator and key/padding before a new member of `frame`; undefined when out of order. */
function memberPrefix(frame: Frame, segment: Segment, keyTexts: Map<string, string>): string | undefined {
  if (frame.kind === 'object') {
    if (typeof segment !== 'string' || frame.keys?.has(segment)) return undefined;
    frame.keys?.add(segment);
    return `${frame.count++ > 0 ? ',' : ''}${keyText(segment, keyTexts)}`;
  }
  // The tree throws first on a gap over maxIndexGap; the text never pads more than that either.
  if (typeof segment !== 'number' || segment < frame.count || segment - frame.count > maxIndexGap) {
    return undefined;
  }
  let prefix = '';
  while (frame.count < segment) prefix += `${frame.count++ > 0 ? ',' : ''}null`;
  return prefix + (frame.count++ > 0 ? ',' : '');
}

/** How many `"key":` texts one call keeps (keys repeat once per row of an array of objects). */
const maxKeyTexts = 256;

/** The `"key":` text of `key`, built once per call for the first {@link maxKeyTexts} keys. */
function keyText(key: string, texts: Map<string, string>): string {
  let text = texts.get(key);
  if (text === undefined) {
    text = `${JSON.stringify(key)}:`;
    if (texts.size < maxKeyTexts) texts.set(key, text);
  }
  return text;
}

function closing(frame: Frame): string {
  return frame.kind === 'object' ? '}' : ']';
}

/** `text` as the inside of a JSON string literal; most pieces need no escaping and are returned as is. */
function escapeString(text: string): string {
  return needsEscape(text) ? JSON.stringify(text).slice(1, -1) : text;
}

/** True when `text` holds a character `JSON.stringify` escapes (any surrogate: lone ones are escaped). */
function needsEscape(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) return true;
  }
  return false;
}

/** An own member only: an inherited one (`__proto__`, `constructor`) must never become a container written into. */
function readMember(container: JsonObject | JsonValue[], segment: Segment): JsonValue | undefined {
  if (Array.isArray(container)) return typeof segment === 'number' ? container[segment] : undefined;
  return typeof segment === 'string' && Object.hasOwn(container, segment) ? container[segment] : undefined;
}
