/** Linear-time accumulation of streamed tool-input JSON, and best-effort repair of a cut-off input. */
import { isJsonObject, type JsonObject, type JsonValue } from './json.ts';
import { parseJson, parseJsonString } from './json-text.ts';

/**
 * Collects raw JSON fragments and parses them once at the end: O(total length), never a re-parse
 * per fragment. Fragments are kept in an array and joined once.
 */
export class JsonFragments {
  private readonly fragments: string[] = [];

  append(fragment: string): void {
    this.fragments.push(fragment);
  }

  text(): string {
    if (this.fragments.length > 1) {
      const joined = this.fragments.join('');
      this.fragments.length = 0;
      this.fragments.push(joined);
    }
    return this.fragments[0] ?? '';
  }

  /** Parses the complete input; empty text is `{}`. Returns undefined when it is not a JSON object. */
  parse(): JsonObject | undefined {
    const text = this.text().trim();
    if (text === '') return {};
    try {
      const value: unknown = parseJson(text);
      return isJsonObject(value) ? value : undefined;
    } catch {
      return undefined;
    }
  }

  /** For an interrupted call: whatever parses cleanly after closing open strings/brackets, else `{}`. */
  parsePartial(): JsonObject {
    return this.parse() ?? repairJsonObject(this.text()) ?? {};
  }
}

/**
 * Completes a JSON object text that was cut off mid-way and parses it: open strings, arrays and
 * objects are closed; a cut-off literal is completed (`tr` → `true`, `n` → `null`); a cut-off
 * number keeps its longest valid prefix (`1.` → `1`, `-1e+` → `-1`, a lone `-` is dropped); a
 * partial escape (`\`, `\u00`) at the cut is dropped; a member whose key or value had not started
 * is dropped. Complete text parses as `JSON.parse` does. Returns undefined when the text is not
 * the beginning of a JSON object (malformed before the cut). Linear in the text.
 */
export function repairJsonObject(text: string): JsonObject | undefined {
  try {
    const value: unknown = parseJson(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    // Cut off or malformed: parse as far as the text goes.
  }
  try {
    const parser = new PartialJsonParser(text);
    const value = parser.value();
    if (!isJsonObject(value) || !parser.atEndOrBlank()) return undefined;
    return value;
  } catch {
    return undefined; // malformed before the cut, or nested deeper than the stack allows
  }
}

/** Marks a value that had not started (or could not be completed) when the text ended. */
const missing: unique symbol = Symbol('missing');

const literals = ['true', 'false', 'null'] as const;
const literalValues = { true: true, false: false, null: null } as const;
const numberPattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const numberCharacters = /[-+0-9.eE]*/y;
const blank = /[ \t\n\r]*/y;

class Malformed extends Error {}

/** A recursive-descent JSON parser that stops quietly where the text ends. */
class PartialJsonParser {
  private position = 0;
  private readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  private get ended(): boolean {
    return this.position >= this.text.length;
  }

  private skipBlank(): void {
    blank.lastIndex = this.position;
    blank.test(this.text);
    this.position = blank.lastIndex;
  }

  atEndOrBlank(): boolean {
    this.skipBlank();
    return this.ended;
  }

  value(): JsonValue | typeof missing {
    this.skipBlank();
    if (this.ended) return missing;
    const character = this.text[this.position];
    if (character === '{') return this.object();
    if (character === '[') return this.array();
    if (character === '"') return this.string().value;
    if (character === '-' || (character !== undefined && character >= '0' && character <= '9'))
      return this.number();
    return this.literal();
  }

  private object(): JsonObject {
    const result: JsonObject = {};
    this.position++;
    for (let first = true; ; first = false) {
      this.skipBlank();
      if (this.ended) return result;
      if (this.text[this.position] === '}') {
        this.position++;
        return result;
      }
      if (!first) this.expect(',');
      this.skipBlank();
      if (this.ended) return result;
      if (this.text[this.position] !== '"') throw new Malformed('expected a key');
      const key = this.string();
      if (!key.complete) return result;
      this.skipBlank();
      if (this.ended) return result;
      this.expect(':');
      const member = this.value();
      if (member === missing) return result;
      Object.defineProperty(result, key.value, {
        value: member,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }

  private array(): JsonValue[] {
    const result: JsonValue[] = [];
    this.position++;
    for (let first = true; ; first = false) {
      this.skipBlank();
      if (this.ended) return result;
      if (this.text[this.position] === ']') {
        this.position++;
        return result;
      }
      if (!first) this.expect(',');
      const item = this.value();
      if (item === missing) return result;
      result.push(item);
    }
  }

  private expect(character: string): void {
    if (this.text[this.position] !== character) throw new Malformed(`expected ${character}`);
    this.position++;
  }

  /** A string; when cut off, its text up to the cut, minus a partial escape. */
  private string(): { value: string; complete: boolean } {
    const start = this.position;
    const text = this.text;
    let position = start + 1;
    while (position < text.length) {
      const character = text[position];
      if (character === '"') {
        this.position = position + 1;
        return { value: parseJsonString(text.slice(start, position + 1)), complete: true };
      }
      if (character === '\\') {
        const length = text[position + 1] === 'u' ? 6 : 2;
        if (position + length > text.length) break; // a partial escape at the cut: dropped
        position += length;
      } else position++;
    }
    this.position = text.length;
    return { value: parseJsonString(`${text.slice(start, position)}"`), complete: false };
  }

  private number(): number | typeof missing {
    numberCharacters.lastIndex = this.position;
    numberCharacters.test(this.text);
    const tokenEnd = numberCharacters.lastIndex;
    numberPattern.lastIndex = this.position;
    const valid = numberPattern.exec(this.text)?.[0] ?? '';
    const validEnd = this.position + valid.length;
    if (validEnd < tokenEnd && tokenEnd < this.text.length) throw new Malformed('bad number');
    this.position = tokenEnd;
    return valid === '' ? missing : Number(valid);
  }

  private literal(): JsonValue | typeof missing {
    const rest = this.text.slice(this.position, this.position + 5);
    for (const literal of literals) {
      if (rest.startsWith(literal)) {
        this.position += literal.length;
        return literalValues[literal];
      }
      if (this.position + rest.length === this.text.length && literal.startsWith(rest)) {
        this.position = this.text.length;
        return literalValues[literal];
      }
    }
    throw new Malformed('unexpected character');
  }
}
