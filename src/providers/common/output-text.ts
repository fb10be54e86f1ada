/**
 * The reply's text in the form the request asked for, when its provider was asked for another: an
 * answer the provider was asked to wrap as `{ "value": … }` (a schema root it takes only as an
 * object, `wrapped-schema.ts`) is read back as the value's own JSON text, whole and streamed.
 */
import type { StreamBuilder, TextTransform } from '../../core/stream-builder.ts';
import type { ProviderContext } from './definition.ts';

/** Calls whose output schema was sent wrapped as `{ value }`. */
const wrappedReplies = new WeakSet<ProviderContext>();

/** The request builders' hook: this call's output schema was sent wrapped (`wrappedSchema`). */
export function rememberWrappedOutput(context: ProviderContext): void {
  wrappedReplies.add(context);
}

/** The reply readers' hook (`complete-call.ts`, `stream-call.ts`): each text part read back as asked. */
export function holdOutputText(context: ProviderContext, builder: StreamBuilder): void {
  if (wrappedReplies.has(context)) builder.transformText(() => new WrappedValue());
}

/** The wrapper's opening, matched with JSON whitespace before and after each of its tokens. */
const opening = '{"value":';
/** Where whitespace may come in {@link opening}: before `{`, before the key, before and after `:`. */
const spaced = new Set([0, 1, 8, 9]);

const quote = 0x22;
const backslash = 0x5c;
const comma = 0x2c;

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/**
 * `{ "value": <value> }` → `<value>`, as the text streams: the opening (with any whitespace) is held
 * until it is whole, then the value's characters go out as they come; the value's end is found by
 * scanning it (strings and their escapes, nesting), and what follows it — the wrapper's `}`, or
 * anything a model wrote after — is dropped. A text that does not begin with the opening goes out
 * as written (a model that did not wrap its answer), and so does an opening the text ended within.
 */
export class WrappedValue implements TextTransform {
  /** The text so far, while it is the opening or a start of it. */
  private held = '';
  /** Characters of {@link opening} matched. */
  private matched = 0;
  private state: 'opening' | 'value' | 'after' | 'as-is' = 'opening';
  /** Arrays and objects open in the value. */
  private depth = 0;
  private inString = false;
  private escaped = false;

  feed(delta: string): string {
    if (this.state === 'value') return this.value(delta, 0);
    if (this.state === 'as-is') return delta;
    if (this.state === 'after') return '';
    for (let position = 0; position < delta.length; position++) {
      const code = delta.charCodeAt(position);
      if (this.matched < opening.length && code === opening.charCodeAt(this.matched)) this.matched++;
      else if (this.matched === opening.length && !isSpace(code)) {
        this.state = 'value';
        this.held = '';
        return this.value(delta, position);
      } else if (!(spaced.has(this.matched) && isSpace(code))) {
        this.state = 'as-is';
        const text = this.held + delta;
        this.held = '';
        return text;
      }
    }
    this.held += delta;
    return '';
  }

  end(): string {
    const held = this.held;
    this.held = '';
    return held;
  }

  /** The value's text in `delta` from `from`, up to the value's end when it ends there. */
  private value(delta: string, from: number): string {
    for (let position = from; position < delta.length; position++) {
      const code = delta.charCodeAt(position);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (code === backslash) this.escaped = true;
        else if (code === quote) {
          this.inString = false;
          if (this.depth === 0) return this.close(delta, from, position + 1);
        }
      } else if (code === quote) this.inString = true;
      else if (code === 0x7b || code === 0x5b) this.depth++;
      else if (code === 0x7d || code === 0x5d) {
        // At depth 0 a bracket ends a number or literal: it is the wrapper's.
        if (this.depth === 0) return this.close(delta, from, position);
        if (--this.depth === 0) return this.close(delta, from, position + 1);
      } else if (this.depth === 0 && (isSpace(code) || code === comma))
        return this.close(delta, from, position);
    }
    return delta.slice(from);
  }

  private close(delta: string, from: number, to: number): string {
    this.state = 'after';
    return delta.slice(from, to);
  }
}
