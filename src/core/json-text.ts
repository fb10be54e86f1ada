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
 * escaped key (nearly all of it) keeps the native parse; text with one is parsed again by
 * {@link parseJsonKeysExactly}. Throws `JSON.parse`'s own SyntaxError on invalid text.
 */
export function parseJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  return hasEscapedKey(text) ? parseJsonKeysExactly(text) : value;
}

/**
 * Whether an object key in `text` (JSON that `JSON.parse` accepted) is written with an escape.
 * Jumps from string to string that holds a backslash, at the speed of `indexOf`: a backslash is
 * always inside a string, which ends at the next quote after an even run of backslashes; a colon
 * after that end makes the string a key.
 */
function hasEscapedKey(text: string): boolean {
  let backslash = text.indexOf('\\');
  while (backslash !== -1) {
    let end = backslash + 1; // the escaped character, which may be a quote
    let run: number;
    do {
      end = text.indexOf('"', end + 1);
      if (end === -1) return false;
      run = 0;
      while (text.charCodeAt(end - 1 - run) === 0x5c) run++;
    } while (run % 2 === 1);
    let next = end + 1;
    while (next < text.length && ' \t\n\r'.includes(text.charAt(next))) next++;
    if (text.charAt(next) === ':') return true;
    backslash = text.indexOf('\\', next);
  }
  return false;
}

/**
 * Parses JSON text that `JSON.parse` has accepted, building the objects key by key so that no key
 * goes through V8's JSON object fast path; each string is decoded by `JSON.parse` alone, which is
 * exact. Iterative, so nesting depth is no limit (the shape check refuses deep values later).
 */
function parseJsonKeysExactly(text: string): unknown {
  const token = /[\t\n\r ]*(?:("[^"\\]*(?:\\[^][^"\\]*)*")|([-\d][-+.\deE]*)|(true|false|null)|([[\]{},:]))/y;
  const open: Array<unknown[] | Record<string, unknown>> = [];
  let root: unknown;
  let key = '';
  let expectingKey = false;
  const place = (value: unknown): void => {
    const parent = open.at(-1);
    if (parent === undefined) root = value;
    else if (Array.isArray(parent)) parent.push(value);
    // `JSON.parse` makes an own `__proto__` property (refused later); assigning would swap the prototype.
    else if (key === '__proto__') {
      Object.defineProperty(parent, key, { value, writable: true, enumerable: true, configurable: true });
    } else parent[key] = value;
  };
  for (let match = token.exec(text); match !== null; match = token.exec(text)) {
    const [, string, number, literal, punctuator] = match;
    if (string !== undefined) {
      const decoded = string.includes('\\') ? parseJsonString(string) : string.slice(1, -1);
      if (expectingKey) {
        key = decoded;
        expectingKey = false;
      } else place(decoded);
    } else if (number !== undefined) place(Number(number));
    else if (literal !== undefined) place(literal === 'null' ? null : literal === 'true');
    else if (punctuator === '{' || punctuator === '[') {
      const container = punctuator === '{' ? {} : [];
      place(container);
      open.push(container);
      expectingKey = punctuator === '{';
    } else if (punctuator === '}' || punctuator === ']') {
      open.pop();
      expectingKey = false;
    } else if (punctuator === ',') expectingKey = !Array.isArray(open.at(-1));
  }
  return root;
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
    while (end < text.length && /[0-9.eE+-]/.test(text.charAt(end))) end++;
    const token = text.slice(index, end);
    if (longDigitRun.test(token) && String(Number(token)) !== token) return true;
    index = end - 1;
  }
  return false;
}
