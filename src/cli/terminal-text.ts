/**
 * Text from a model, a tool or a provider made safe to write to a terminal: every command that
 * shows such text (`chat`, `ask`, `history`) cleans it with these, so an answer cannot clear the
 * screen, retitle the window, write the clipboard (OSC 52), plant a link (OSC 8) or reorder what
 * is shown (bidirectional overrides and isolates, as in Trojan Source).
 */

/**
 * The explicit bidirectional formatting characters: embeddings, overrides and their end
 * (U+202A–U+202E), isolates and their end (U+2066–U+2069). Each makes a terminal that follows the
 * bidirectional algorithm show the characters after it in another order than they are. The marks
 * (U+200E, U+200F, U+061C) reorder nothing across runs and are part of ordinary right-to-left text:
 * they are left as they are, as are Arabic and Hebrew letters themselves.
 */
const bidiControls = /[\u202a-\u202e\u2066-\u2069]/g;

/**
 * `character` (one code point) as an escape: `\uXXXX`, or `\u{XXXXX}` beyond U+FFFF — the one way
 * the CLI shows a character that must not act on the terminal (answers, the approval question).
 */
export function escaped(character: string): string {
  const code = character.codePointAt(0)!;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` without terminal control sequences (only newline and tab kept), its explicit bidirectional
 * controls shown as `\u202e` and the like. Each character it changes is one UTF-16 unit, so text
 * cleaned in pieces (a stream's deltas, a character's surrogates split between two) reads as the
 * whole cleaned at once.
 */
export function sanitize(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/\x1b\[[0-?]*[ -/]*[@-~]|[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '')
      .replace(bidiControls, escaped)
  );
}

/**
 * A stream's text taken a delta at a time, never half a character: a delta ending in the first half
 * of a surrogate pair keeps that half for the next one (written alone, each half reaches the
 * terminal — or a pipe — as U+FFFD, so a split emoji would show as two). `end()` gives back a half
 * whose other half never came.
 */
export class WholeCharacters {
  private half = '';

  take(delta: string): string {
    const text = this.half === '' ? delta : this.half + delta;
    const last = text.charCodeAt(text.length - 1);
    this.half = last >= 0xd800 && last <= 0xdbff ? text.slice(-1) : '';
    return this.half === '' ? text : text.slice(0, -1);
  }

  end(): string {
    const half = this.half;
    this.half = '';
    return half;
  }
}

/** `text` as one line for a status or error line: line breaks and tabs become spaces, controls go. */
export function oneLine(text: string): string {
  return sanitize(text.replace(/\s+/g, ' ')).trim();
}
