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
 * controls shown as `\u202e` and the like. A stream's deltas are cleaned as they come through
 * {@link WholeCharacters}, which keeps a CSI sequence or surrogate pair cut between two deltas
 * whole: so cleaned, the pieces read as the whole cleaned at once.
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
 * A stream's text taken a delta at a time, never half a character nor half a control sequence: a
 * delta ending in the first half of a surrogate pair, or inside a CSI sequence (`ESC [ 3`), keeps
 * that end for the next delta. Written alone, each half of a pair reaches the terminal — or a pipe
 * — as U+FFFD (a split emoji would show as two), and a CSI sequence cut in two would leave its end
 * (`1m`) as text where {@link sanitize} removes the whole. `end()` gives back what was kept.
 */
export class WholeCharacters {
  private kept = '';

  take(delta: string): string {
    const text = this.kept === '' ? delta : this.kept + delta;
    const cut = keptFrom(text);
    this.kept = text.slice(cut);
    return cut === text.length ? text : text.slice(0, cut);
  }

  end(): string {
    const kept = this.kept;
    this.kept = '';
    return kept;
  }
}

/** Longest unfinished CSI sequence kept for the next delta (a longer one is no sequence a terminal waits on). */
const maxKeptSequence = 64;
/** ESC, or ESC [ and the parameter and intermediate bytes so far: a CSI sequence not finished yet. */
// eslint-disable-next-line no-control-regex
const unfinishedCsi = /^\x1b(\[[0-?]*[ -/]*)?$/;

/** Where the part of `text` to keep for the next delta starts (`text.length`: keep nothing). */
function keptFrom(text: string): number {
  const escape = text.lastIndexOf('\x1b');
  if (escape >= 0 && text.length - escape <= maxKeptSequence && unfinishedCsi.test(text.slice(escape)))
    return escape;
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? text.length - 1 : text.length;
}

/** `text` as one line for a status or error line: line breaks and tabs become spaces, controls go. */
export function oneLine(text: string): string {
  return sanitize(text.replace(/\s+/g, ' ')).trim();
}
