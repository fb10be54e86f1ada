/**
 * Reading JSON text from outside (request and response bodies, stream events, stored values, files):
 * {@link parseJson} is `JSON.parse` with object keys that come back exactly as written. Every parse
 * of outside text in src goes through it, or through {@link parseJsonString} for one string literal
 * (eslint refuses a bare `JSON.parse` in src).
 */

/**
 * `JSON.parse`, except that object keys written with escapes come back exact. V8's `JSON.parse`
 * (Node 24 and 26; nodejs/node#63785, not Node 20) can decode such a key wrongly: when the object's
 * hidden class so far has a single transition to a property, it compares that property's name with
 * the key's raw text cut to the decoded length, escapes and all. So once any object in the process
 * has had the keys `"x"` then `\` (a backslash), the text `{"x":1,"\"":2}` parses with the key `\`
 * (the raw `\"` cut to one character), and so do `"\n"` and `"\u0041"`: a transcript with such a
 * metadata key came back changed, depending on what the process had parsed before. Text without an
 * escaped key (nearly all of it) keeps the native parse; text with one is parsed instead by
 * {@link parseWithPlainKeys} (once: not natively first). Throws `JSON.parse`'s own SyntaxError on invalid text, and
 * {@link TooManyEscapedKeysError} past {@link maxEscapedKeys} escaped keys.
 */
export function parseJson(text: string): unknown {
  const first = findEscapedKey(text, 0);
  if (first === undefined) return JSON.parse(text);
  // One parse, of the rewritten text: it parses only if `text` does (each key rewritten is a whole
  // string literal of `text`, checked, replaced by another of the same value). Else `text` is parsed
  // for JSON.parse's own SyntaxError (and invalid text over the limit throws that, as before).
  try {
    return parseWithPlainKeys(text, first);
  } catch (error) {
    JSON.parse(text);
    throw error;
  }
}

/**
 * The next object key in `text` (JSON, or text whose spans {@link decodeKeys} and the parse then
 * refuse) written with an escape, from
 * `from` on: the indexes of its opening and closing quotes. Jumps from string to string that holds
 * a backslash, at the speed of `indexOf`: a backslash is always inside a string, which ends at the
 * next quote after an even run of backslashes and began at the last such quote before it; a colon
 * after its end makes the string a key. Linear: each string is walked at most once each way.
 */
function findEscapedKey(text: string, from: number): [number, number] | undefined {
  const unescaped = (quote: number) => {
    let run = 0;
    while (text.charCodeAt(quote - 1 - run) === 0x5c) run++;
    return run % 2 === 0;
  };
  let backslash = text.indexOf('\\', from);
  while (backslash !== -1) {
    let end = backslash + 1; // the escaped character, which may be a quote
    do {
      end = text.indexOf('"', end + 1);
      if (end === -1) return undefined;
    } while (!unescaped(end));
    let next = end + 1;
    while (next < text.length && ' \t\n\r'.includes(text.charAt(next))) next++;
    if (text.charAt(next) === ':') {
      let start = text.lastIndexOf('"', backslash);
      while (!unescaped(start)) start = text.lastIndexOf('"', start - 1);
      return [start, end];
    }
    backslash = text.indexOf('\\', next);
  }
  return undefined;
}

/**
 * Most object keys written with escapes one text may hold: each costs ~2 µs here (the native parse
 * of a whole text, ~10 ns a key), so 4.8 million of them in a 32 MiB body took 9 s of CPU and 2 GB.
 */
export const maxEscapedKeys = 100_000;

/** Thrown by {@link parseJson} for a text with more than {@link maxEscapedKeys} escaped object keys. */
export class TooManyEscapedKeysError extends RangeError {
  override name = 'TooManyEscapedKeysError';

  constructor() {
    super(`the JSON holds more than ${maxEscapedKeys} object keys written with escapes`);
  }
}

/**
 * How many object keys `JSON.stringify(value)` writes with an escape — a quote, a backslash, a
 * control character or a lone surrogate in the key — which is what {@link parseJson} counts
 * against {@link maxEscapedKeys} when it reads that text back. Counting stops once past
 * `stopAbove`. An iterative walk of plain data (no depth limit): keys of undefined values are
 * not written, so not counted; inline bytes are skipped (their keys are indexes).
 */
export function countEscapedKeys(value: unknown, stopAbove = Number.POSITIVE_INFINITY): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && count <= stopAbove) {
    const next = stack.pop();
    if (typeof next !== 'object' || next === null || ArrayBuffer.isView(next)) continue;
    if (Array.isArray(next)) {
      for (let index = 0; index < next.length; index++) stack.push(next[index]);
      continue;
    }
    for (const key of Object.keys(next)) {
      const entry = (next as Record<string, unknown>)[key];
      if (entry === undefined || typeof entry === 'function' || typeof entry === 'symbol') continue;
      if (writtenEscaped(key)) count++;
      stack.push(entry);
    }
  }
  return count;
}

/** Whether `JSON.stringify` writes `key` with an escape (as {@link needsEscape}, and a lone surrogate). */
function writtenEscaped(key: string): boolean {
  for (let index = 0; index < key.length; index++) {
    const code = key.charCodeAt(index);
    if (code < 0x20 || code === 0x22 || code === 0x5c) return true;
    if (code >= 0xd800 && code <= 0xdfff) {
      const after = key.charCodeAt(index + 1);
      if (code >= 0xdc00 || !(after >= 0xdc00 && after <= 0xdfff)) return true;
      index++;
    }
  }
  return false;
}

/** Whether `key` holds a character a JSON string must escape (a quote, a backslash, a control character). */
function needsEscape(key: string): boolean {
  for (let index = 0; index < key.length; index++) {
    const code = key.charCodeAt(index);
    if (code < 0x20 || code === 0x22 || code === 0x5c) return true;
  }
  return false;
}

/**
 * Parses `text` with every escaped key (the first at `first`) written without escapes: as itself
 * when it can be (`"\u0041"` as `"A"`), else as a placeholder — `<prefix><n>`, one per distinct
 * key, a prefix the text does not hold — which V8 cannot mistake for another key, then puts the
 * decoded keys back in place of the placeholders: `JSON.parse`'s speed, and its semantics (key
 * order, the last of duplicate keys, an own `__proto__`). Only the objects that held a placeholder
 * are rebuilt; the walk is iterative, so nesting depth is no limit, and ends once every placeholder
 * written is found. Work per key is a few `indexOf`s: the keys are decoded together, by one
 * `JSON.parse` of an array of their literals ({@link decodeKeys}), and the text is parsed once (a
 * parse per key, a native parse of the whole text first, and a pair allocated per node of the walk
 * were a third to a half of the time of a 30 MiB body with 99,000 escaped keys: 6–10× its native
 * parse; 3–5× now, the rest the rewritten copy of the text and the objects rebuilt).
 */
function parseWithPlainKeys(text: string, first: [number, number]): unknown {
  // The quotes around each escaped key, in order.
  const spans: number[] = [];
  for (let span: [number, number] | undefined = first; span !== undefined;) {
    if (spans.length >= 2 * maxEscapedKeys) throw new TooManyEscapedKeysError();
    spans.push(span[0], span[1]);
    span = findEscapedKey(text, span[1] + 1);
  }
  const decoded = decodeKeys(text, spans);
  let prefix: string;
  do prefix = `sy${Math.random().toString(36).slice(2, 10)}~`;
  while (text.includes(prefix));
  // Each distinct key's spelling in the rewritten text, and the key of each placeholder. Repeated
  // keys collapse in the parse as they do natively (a body repeating `"\n":1` millions of times
  // made millions of distinct placeholder keys: seconds of CPU and GBs).
  const spellings = new Map<string, string>();
  const keys = new Map<string, string>();
  const pieces: string[] = [];
  let last = 0;
  let written = 0;
  for (let index = 0; index < decoded.length; index++) {
    const key = decoded[index]!;
    let spelling = spellings.get(key);
    if (spelling === undefined) {
      // (A key spelling the placeholder prefix keeps a placeholder: plain, it would read as one.)
      if (!needsEscape(key) && !key.startsWith(prefix)) {
        // Written again without escapes (`"\u0041"` as `"A"`): the native parse keeps it exact,
        // and a plain `"A"` elsewhere in the object is the same key for it, as for JSON.parse.
        spelling = `"${key}"`;
      } else {
        // A key no plain text can spell: one placeholder per distinct key.
        const placeholder = `${prefix}${keys.size}`;
        keys.set(placeholder, key);
        spelling = `"${placeholder}"`;
      }
      spellings.set(key, spelling);
    }
    if (spelling.startsWith(prefix, 1)) written++;
    pieces.push(text.slice(last, spans[2 * index]), spelling);
    last = spans[2 * index + 1]! + 1;
  }
  pieces.push(text.slice(last));
  const value: unknown = JSON.parse(pieces.join(''));
  return written === 0 ? value : restoreKeys(value, prefix, keys, written);
}

/**
 * The keys at `spans` (pairs of quote indexes) of `text` decoded, by one `JSON.parse` of the array
 * of their literals. A span holds no unescaped quote but its two ends, so each literal is one
 * element; the parse succeeds only if each is a whole JSON string literal. Throws (a SyntaxError)
 * if not, as for text that is no JSON.
 */
function decodeKeys(text: string, spans: readonly number[]): string[] {
  const literals: string[] = [];
  for (let index = 0; index < spans.length; index += 2) {
    if (spans[index]! < 0) throw new SyntaxError('an escaped key without its opening quote');
    literals.push(text.slice(spans[index], spans[index + 1]! + 1));
  }
  const keys = JSON.parse(`[${literals.join(',')}]`) as unknown[];
  if (keys.length !== literals.length || keys.some((key) => typeof key !== 'string'))
    throw new SyntaxError('an escaped key is no string literal');
  return keys as string[];
}

/**
 * `value` with each placeholder key (`<prefix><n>`) of its objects replaced by its key (`keys`), in
 * place (the objects holding one rebuilt, in their key order). Walks in document order and stops
 * once `written` placeholders are found (fewer if one object repeated a key: then the whole value).
 */
function restoreKeys(
  value: unknown,
  prefix: string,
  keys: ReadonlyMap<string, string>,
  written: number,
): unknown {
  const holder: Record<string, unknown> = { value };
  // Where each object or array still to visit sits: its parent and its key there (two stacks, no
  // pair allocated per node).
  const parents: Array<Record<string, unknown> | unknown[]> = [holder];
  const places: Array<string | number> = ['value'];
  let left = written;
  while (parents.length > 0 && left > 0) {
    const parent = parents.pop()!;
    const at = places.pop()!;
    const node = (parent as Record<string | number, unknown>)[at];
    if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index--) {
        const child: unknown = node[index];
        if (typeof child === 'object' && child !== null) {
          parents.push(node);
          places.push(index);
        }
      }
      continue;
    }
    let object = node as Record<string, unknown>;
    let names = Object.keys(object);
    if (names.some((name) => name.startsWith(prefix))) {
      const rebuilt: Record<string, unknown> = {};
      const renamed: string[] = [];
      for (const name of names) {
        const key = name.startsWith(prefix) ? keys.get(name)! : name;
        if (key !== name) left--;
        setOwn(rebuilt, key, object[name]);
        renamed.push(key);
      }
      setOwn(parent, at, rebuilt);
      object = rebuilt;
      names = renamed;
    }
    // Children pushed last first, so that they are met in document order.
    for (let index = names.length - 1; index >= 0; index--) {
      const child = object[names[index]!];
      if (typeof child === 'object' && child !== null) {
        parents.push(object);
        places.push(names[index]!);
      }
    }
  }
  return holder.value;
}

/** Sets an own property as `JSON.parse` makes it: `__proto__` too (an assignment would swap the prototype). */
function setOwn(target: Record<string, unknown> | unknown[], key: string | number, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else (target as Record<string | number, unknown>)[key] = value;
}

/**
 * Whether JSON `text` opens more than `limit` objects and arrays, read from the text (strings
 * skipped) without parsing it: a body of millions of `{}` costs its parse a GB of objects before a
 * walk of the value can count them. Stops at the first one past the limit.
 */
export function opensMoreThan(text: string, limit: number): boolean {
  let count = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x7b || code === 0x5b) {
      if (++count > limit) return true;
    } else if (code === 0x22) {
      // A string (an image's base64, most of a large body): to its closing quote at the speed of
      // `indexOf` — the next quote after an even run of backslashes.
      let end = text.indexOf('"', index + 1);
      while (end !== -1 && !evenBackslashesBefore(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) return false;
      index = end;
    }
  }
  return false;
}

/** Whether the character at `at` follows an even run of backslashes (so is not escaped). */
function evenBackslashesBefore(text: string, at: number): boolean {
  let run = 0;
  while (text.charCodeAt(at - 1 - run) === 0x5c) run++;
  return run % 2 === 0;
}

/** One JSON string literal (with its quotes) decoded: exact, as no object key is involved. */
export function parseJsonString(literal: string): string {
  return JSON.parse(literal) as string;
}

/**
 * 16 digits, a decimal point allowed among them: no number with fewer significant digits loses one
 * to a double (15 are exact).
 */
const longDigitRun = /(?:[0-9]\.?){16}/;

/**
 * Whether parsing `text` (JSON) changes a number's digits: a number written with more significant
 * digits than a double keeps (`1234567890123456789`, an id). Such text must travel as written, not
 * re-serialized from its parse. A regex finds the candidates; only text holding a run of 16 digits
 * is scanned, token by token, outside strings.
 */
export function losesNumberDigits(text: string): boolean {
  if (!longDigitRun.test(text)) return false;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index++;
      else if (code === 0x22) inString = false;
      continue;
    }
    if (code === 0x22) {
      inString = true;
      continue;
    }
    if (code !== 0x2d && (code < 0x30 || code > 0x39)) continue;
    let end = index + 1;
    while (end < text.length && isNumberCharacter(text.charCodeAt(end))) end++;
    const token = text.slice(index, end);
    if (longDigitRun.test(token) && String(Number(token)) !== token) return true;
    index = end - 1;
  }
  return false;
}

/** A character of a JSON number after its first: a digit, `.`, `e`, `E`, `+` or `-`. */
function isNumberCharacter(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2e ||
    code === 0x65 ||
    code === 0x45 ||
    code === 0x2b ||
    code === 0x2d
  );
}

/** `JSON.rawJSON` (Node ≥ 21): a primitive `JSON.stringify` writes as its text. */
const rawJSON = (JSON as unknown as { rawJSON?: (text: string) => unknown }).rawJSON;

/**
 * `text` (JSON) parsed with every number whose parse would change its digits kept as written (a
 * `JSON.rawJSON` value, which `JSON.stringify` writes as is): for a body serialized at once, in a
 * protocol that carries the value as JSON rather than as text. Undefined when it cannot be done
 * exactly here (no `JSON.rawJSON`; an escaped key: the source-text reviver shares the key bug;
 * nesting too deep for the reviver's recursive walk).
 */
export function parseJsonKeepingDigits(text: string): unknown {
  if (rawJSON === undefined || findEscapedKey(text, 0) !== undefined) return undefined;
  const reviver = (_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' && context?.source !== undefined && losesNumberDigits(context.source)
      ? rawJSON(context.source)
      : value;
  try {
    return JSON.parse(text, reviver as (key: string, value: unknown) => unknown) as unknown;
  } catch {
    return undefined; // V8 walks a reviver recursively: nesting too deep for it keeps the input as it is
  }
}
