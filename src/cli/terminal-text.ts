/**
 * Text from a model, a tool or a provider made safe to write to a terminal: every command that
 * shows such text (`chat`, `ask`, `history`) cleans it with these, so an answer cannot clear the
 * screen, retitle the window, write the clipboard (OSC 52) or plant a link (OSC 8).
 */

/** `text` without terminal control sequences (only newline and tab kept). */
export function sanitize(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-?]*[ -/]*[@-~]|[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '');
}

/** `text` as one line for a status or error line: line breaks and tabs become spaces, controls go. */
export function oneLine(text: string): string {
  return sanitize(text.replace(/\s+/g, ' ')).trim();
}
