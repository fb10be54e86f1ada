/**
 * Google's error envelope (`{"error":{"code","message","status"}}`, alone or in a list) written
 * raw into a 200 SSE body — lines that are no SSE field, which SSE ignores — by Google's front end,
 * in front of Gemini (the Gemini API and Vertex) and of Claude on Vertex. Without this the stream
 * read as cut short (`stream_truncated`); the parsers hand their stray lines here, and a whole JSON
 * value gathered from them goes to `onValue`, which throws the classified error it names.
 */

import { parseJson } from '../../core/json-text.ts';

/** Most characters of raw lines gathered as one JSON error object (Google's are a few hundred). */
const maxStrayChars = 16 * 1024;
/** Most parses of gathered raw lines per stream (each line that may end a JSON value is one). */
const maxStrayParses = 32;

/**
 * Whether a line ends with `}` or `]`, then maybe a comma (a value in a list), then maybe blanks.
 * Linear in the line; a regular expression such as `/[\]}]\s*,?\s*$/` backtracks over a run of
 * blanks quadratically (105 ms for one 16 KB line).
 */
function mayCloseValue(line: string): boolean {
  let end = line.trimEnd();
  if (end.endsWith(',')) end = end.slice(0, -1).trimEnd();
  return end.endsWith('}') || end.endsWith(']');
}

/** A stream's `onStrayLine`: raw lines gathered into JSON values, each handed to `onValue`. */
export function createStrayLineReader(onValue: (value: unknown) => void): (line: string) => void {
  let stray = '';
  let parses = 0;
  return (line) => {
    if (parses >= maxStrayParses) return;
    // A line opening a value at its first column starts a new one (Google's pretty-printed error
    // indents all but its first and last lines): what came before it is dropped, not joined.
    const first = line.charCodeAt(0);
    if (first === 0x7b || first === 0x5b) stray = '';
    else if (stray === '' && !/^\s*[[{]/.test(line)) return;
    // Bounded before anything else reads the line: a hostile line costs its length, once.
    if (stray.length + line.length >= maxStrayChars) {
      stray = '';
      return;
    }
    stray += `${line}\n`;
    // Only a line that may close the value is worth a parse (a pretty-printed error spans many).
    if (!mayCloseValue(line)) return;
    parses++;
    let value: unknown;
    try {
      value = parseJson(stray);
    } catch {
      return; // not whole yet
    }
    stray = '';
    onValue(value);
  };
}
