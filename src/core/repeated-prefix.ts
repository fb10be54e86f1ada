/**
 * Cuts a known prefix off the start of a streamed text when the text repeats it: a provider that
 * cannot continue a prefill starts a new message, which often begins with the prefill again
 * (`providers/common/prefill.ts`). Used by the `StreamBuilder` on a reply's first text part.
 */
export class RepeatedPrefix {
  private readonly prefix: string;
  /** The text's start so far, while it may still be the prefix. */
  private held = '';
  /** Whether the text is known to begin with the prefix or not. */
  private decided = false;

  constructor(prefix: string) {
    this.prefix = prefix;
  }

  /**
   * The part of `delta` that goes on: nothing while the text so far is a start of the prefix (at
   * most the prefix's length is held); the text after the prefix once it is whole; everything
   * held, and the delta, once the text leaves the prefix.
   */
  feed(delta: string): string {
    if (this.decided) return delta;
    const text = this.held + delta;
    if (text.length < this.prefix.length && this.prefix.startsWith(text)) {
      this.held = text;
      return '';
    }
    this.decided = true;
    this.held = '';
    return text.startsWith(this.prefix) ? text.slice(this.prefix.length) : text;
  }

  /** The text ended: what is held goes on (it was only a start of the prefix, never the whole). */
  flush(): string {
    const held = this.held;
    this.held = '';
    if (held !== '') this.decided = true;
    return held;
  }

  /** Whether the text is known to begin with the prefix or not: nothing more is held. */
  get done(): boolean {
    return this.decided;
  }
}
