/**
 * The reply's text in the form the request asked for, when its provider was asked for another,
 * whole and streamed: an answer the provider was asked to wrap as `{ "value": … }` (a schema root
 * it takes only as an object, `wrapped-schema.ts`) is read back as the value's own JSON text; an
 * enum answer (`OutputSchema.format: 'enum'`) asked for as JSON is read back unquoted.
 */
import type { CanonicalRequest } from '../../core/request.ts';
import type { StreamBuilder, TextTransform } from '../../core/stream-builder.ts';
import { callOf, type ProviderContext } from './definition.ts';
import { besideValueWarning } from './wrapped-schema.ts';

/** Calls whose output schema was sent wrapped as `{ value }`. */
const wrappedReplies = new WeakSet<object>();
/** Calls that ask for an enum answer as text, until their adapter sends it as such. */
const enumReplies = new WeakSet<object>();

/** The request builders' hook: this call's output schema was sent wrapped (`wrappedSchema`). */
export function rememberWrappedOutput(context: ProviderContext): void {
  wrappedReplies.add(callOf(context));
}

/**
 * The request path's check (`call-setup.ts`): a request for an enum answer (`format: 'enum'`) is
 * remembered, its reply unquoted unless the adapter asks its provider for the bare value itself
 * ({@link sendEnumAsText}).
 */
export function checkOutputFormat(request: CanonicalRequest, context: ProviderContext): void {
  if (request.outputSchema?.format === 'enum') enumReplies.add(callOf(context));
}

/** The request builders' hook: the provider was asked for the enum value as text (Gemini's `text/x.enum`). */
export function sendEnumAsText(context: ProviderContext): void {
  enumReplies.delete(callOf(context));
}

/** The reply readers' hook (`complete-call.ts`, `stream-call.ts`): each text part read back as asked. */
export function holdOutputText(context: ProviderContext, builder: StreamBuilder): void {
  const wrapped = wrappedReplies.has(callOf(context));
  const quoted = enumReplies.has(callOf(context));
  if (!wrapped) {
    if (quoted) builder.transformText(() => new StringValue());
    return;
  }
  // One WARN per call, however many text parts wrote more than the value.
  let warned = false;
  // The WARN names no part of what was dropped: it is the model's answer, and logs carry no reply text.
  const onExtra = (): void => {
    if (warned) return;
    warned = true;
    context.warn(besideValueWarning, { model: context.model });
  };
  if (quoted) builder.transformText(() => chained(new WrappedValue(onExtra), new StringValue()));
  else builder.transformText(() => new WrappedValue(onExtra));
}

/** `first`, then `second` on what it lets out. */
function chained(first: TextTransform, second: TextTransform): TextTransform {
  return {
    feed: (delta) => second.feed(first.feed(delta)),
    end: () => second.feed(first.end()) + second.end(),
  };
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
 * What both readers below share: text held while it may still be the form they read (an opening
 * not yet whole, an escape not yet whole), given out as written by {@link release} when it is not,
 * or at the part's end.
 */
abstract class HeldText implements TextTransform {
  /** Text held back, not yet given out. */
  protected held = '';

  abstract feed(delta: string): string;

  end(): string {
    const held = this.held;
    this.held = '';
    return held;
  }

  /** What was held and `delta`, as written: the text is not in the form read. */
  protected release(delta: string): string {
    const text = this.held + delta;
    this.held = '';
    return text;
  }
}

/**
 * `{ "value": <value> }` → `<value>`, as the text streams: the opening (with any whitespace) is held
 * until it is whole, then the value's characters go out as they come; the value's end is found by
 * scanning it (strings and their escapes, nesting), and what follows it — the wrapper's `}`, or
 * anything a model wrote after — is dropped. A text that does not begin with the opening goes out
 * as written (a model that did not wrap its answer), and so does an opening the text ended within.
 * What is dropped beyond the wrapper's `}` and whitespace (other members, `, "note": …`, or text
 * after the object) is handed to `onExtra`, once, from where it begins.
 */
export class WrappedValue extends HeldText {
  /** Characters of {@link opening} matched. */
  private matched = 0;
  private state: 'opening' | 'value' | 'after' | 'as-is' = 'opening';
  /** After the value: whether the wrapper's `}` was met, and whether more than it was reported. */
  private closed = false;
  private reported = false;
  private readonly onExtra: ((text: string) => void) | undefined;

  constructor(onExtra?: (text: string) => void) {
    super();
    this.onExtra = onExtra;
  }
  /** Arrays and objects open in the value. */
  private depth = 0;
  private inString = false;
  private escaped = false;

  feed(delta: string): string {
    if (this.state === 'value') return this.value(delta, 0);
    if (this.state === 'as-is') return delta;
    if (this.state === 'after') return this.after(delta, 0);
    for (let position = 0; position < delta.length; position++) {
      const code = delta.charCodeAt(position);
      if (this.matched < opening.length && code === opening.charCodeAt(this.matched)) this.matched++;
      else if (this.matched === opening.length && !isSpace(code)) {
        this.state = 'value';
        this.held = '';
        return this.value(delta, position);
      } else if (!(spaced.has(this.matched) && isSpace(code))) {
        this.state = 'as-is';
        return this.release(delta);
      }
    }
    this.held += delta;
    return '';
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
    this.after(delta, to);
    return delta.slice(from, to);
  }

  /** What follows the value, from `from`: dropped; past the wrapper's `}` and whitespace, reported. */
  private after(delta: string, from: number): string {
    if (this.reported || this.onExtra === undefined) return '';
    for (let position = from; position < delta.length; position++) {
      const code = delta.charCodeAt(position);
      if (isSpace(code)) continue;
      if (code === 0x7d && !this.closed) {
        this.closed = true;
        continue;
      }
      this.reported = true;
      this.onExtra(delta.slice(position));
      return '';
    }
    return '';
  }
}

/** The escapes of a JSON string, by the character after the backslash. */
const escapes: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/**
 * A JSON string's text → the string, as the text streams: whitespace before the opening quote is
 * held, the characters go out as they come (an escape once it is whole), and what follows the
 * closing quote is dropped. A text that does not begin with a quote goes out as written (a model
 * that answered with the bare value already).
 */
export class StringValue extends HeldText {
  private state: 'start' | 'string' | 'after' | 'as-is' = 'start';

  feed(delta: string): string {
    if (this.state === 'string') return this.string(delta, 0);
    if (this.state === 'as-is') return delta;
    if (this.state === 'after') return '';
    for (let position = 0; position < delta.length; position++) {
      const code = delta.charCodeAt(position);
      if (isSpace(code)) continue;
      if (code === quote) {
        this.state = 'string';
        this.held = '';
        return this.string(delta, position + 1);
      }
      this.state = 'as-is';
      return this.release(delta);
    }
    this.held += delta;
    return '';
  }

  /** The string's characters in `delta` from `from`, up to its closing quote. */
  private string(delta: string, from: number): string {
    let out = '';
    let position = from;
    while (position < delta.length) {
      if (this.held !== '') {
        // An escape, a character at a time: `\x`, or `\u` and four hex digits.
        this.held += delta[position];
        position++;
        if (this.held.length === (this.held[1] === 'u' ? 6 : 2)) {
          out += unescaped(this.held);
          this.held = '';
        }
        continue;
      }
      const next = nextSpecial(delta, position);
      if (next === -1) return out + delta.slice(position);
      out += delta.slice(position, next);
      if (delta.charCodeAt(next) === quote) {
        this.state = 'after';
        return out;
      }
      this.held = '\\';
      position = next + 1;
    }
    return out;
  }
}

/** The index of the next quote or backslash in `text` from `from`, or -1. */
function nextSpecial(text: string, from: number): number {
  for (let position = from; position < text.length; position++) {
    const code = text.charCodeAt(position);
    if (code === quote || code === backslash) return position;
  }
  return -1;
}

/** One whole escape's character; an escape JSON has not, as written. */
function unescaped(escape: string): string {
  if (escape[1] !== 'u') return escapes[escape[1]!] ?? escape;
  return /^\\u[0-9a-fA-F]{4}$/.test(escape)
    ? String.fromCharCode(Number.parseInt(escape.slice(2), 16))
    : escape;
}
