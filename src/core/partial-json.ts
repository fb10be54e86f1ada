/** Linear-time accumulation of streamed tool-input JSON, and best-effort repair of a cut-off input. */
import { isJsonObject, type JsonObject } from './json.ts';

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
      const value: unknown = JSON.parse(text);
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
 * Closes what a truncated JSON object text left open (a string, arrays, objects), dropping a
 * dangling key or trailing comma, and parses it. Linear in the text; used only once, on abort.
 */
export function repairJsonObject(text: string): JsonObject | undefined {
  const stack: string[] = [];
  let inString = false;
  let escaped = false;
  for (let position = 0; position < text.length; position++) {
    const character = text[position];
    if (inString) {
      if (escaped) escaped = false;
      else if (character === '\\') escaped = true;
      else if (character === '"') inString = false;
      continue;
    }
    if (character === '"') inString = true;
    else if (character === '{') stack.push('}');
    else if (character === '[') stack.push(']');
    else if (character === '}' || character === ']') stack.pop();
  }
  let candidate = text;
  if (escaped) candidate = candidate.slice(0, -1);
  if (inString) candidate += '"';
  for (let attempt = 0; attempt < 4; attempt++) {
    const closed = candidate + [...stack].reverse().join('');
    try {
      const value: unknown = JSON.parse(closed);
      return isJsonObject(value) ? value : undefined;
    } catch {
      // Drop an incomplete trailing member: `, "key"`, `"key":`, `, ` and retry.
      const trimmed = candidate.replace(/,?\s*"(?:[^"\\]|\\.)*"\s*:?\s*$|,\s*$|:\s*$/, '');
      if (trimmed === candidate) return undefined;
      candidate = trimmed;
    }
  }
  return undefined;
}
