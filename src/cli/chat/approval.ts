/**
 * The chat's approval question for a tool call: the call's whole input is shown before `[y]es`
 * or `[a]lways` can be answered — pretty-printed, every key and every character of every value
 * (the model picks key order and lengths, so any cut could hide the part that matters); an input
 * taller than the terminal is shown a page at a time, and only `[n]o` is taken until its last page.
 */
import type { PendingApproval } from '../../agent/types.ts';
import type { ChatInput } from './input.ts';
import { escaped, sanitize } from '../terminal-text.ts';
import { bold, dim, type Screen, splitRows } from './render.ts';

/** The user's answer for one call. */
export type ApprovalAnswer = 'yes' | 'no' | 'always';

/**
 * Characters a terminal would not show as themselves: C1 controls, line and paragraph separators,
 * format characters (bidirectional overrides, zero-width characters, Unicode tag characters) and the
 * other default-ignorable ones (variation selectors, Hangul fillers), and the blank braille pattern.
 */
const hidden =
  /[\u007f-\u009f\u2028\u2029\u115f\u1160\u3164\uffa0\u2800\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * `input` as the approval shows it: JSON (`indent` 2: one key per line). Characters a terminal
 * would not show as themselves (see `hidden`) are written as `\uXXXX` (`\u{XXXXX}` beyond U+FFFF,
 * the whole code point), so what is shown is what the tool gets and two inputs that differ look
 * different; JSON already escapes the C0 controls.
 */
export function formatCallInput(input: unknown, indent = 2): string {
  const json = JSON.stringify(input, null, indent) ?? 'null';
  return json.replace(hidden, escaped);
}

/** The rows `input` takes on a terminal `columns` wide (a long value wraps onto as many as it needs). */
export function inputRows(input: unknown, columns: number): string[] {
  return formatCallInput(input)
    .split('\n')
    .flatMap((line) => splitRows(line, columns));
}

/**
 * Shows `rows` a page at a time (the terminal's height, less the question's rows); resolves true
 * once the last page is on screen (`seen`), else how the user stopped before it.
 */
async function page(input: ChatInput, screen: Screen, rows: string[]): Promise<'seen' | 'no' | 'interrupt'> {
  const height = Math.max(1, screen.rows() - 2);
  for (let start = 0; start < rows.length; start += height) {
    const end = Math.min(rows.length, start + height);
    screen.write(`${rows.slice(start, end).join('\n')}\n`);
    if (end === rows.length) return 'seen';
    screen.write(
      dim(screen, `-- input rows 1–${end} of ${rows.length} -- [m]ore (space) [n]o, before all is seen: `),
    );
    const key = await input.key(['m', ' ', 'n']);
    screen.write(`${key === 'n' || key === 'interrupt' ? 'no' : ''}\n`);
    if (key === 'n') return 'no';
    if (key === 'interrupt') return key;
  }
  return 'seen';
}

/**
 * Asks about one call; `interrupt` for Ctrl-C. An input whose one-line JSON fits on the question's
 * line is shown there; any other is shown whole above it (paged on a terminal).
 */
async function ask(
  input: ChatInput,
  screen: Screen,
  call: PendingApproval,
): Promise<ApprovalAnswer | 'interrupt'> {
  const run = bold(screen, `run ${sanitize(call.name)}`);
  const compact = formatCallInput(call.input, 0);
  const question = '? [y]es [n]o [a]lways: ';
  const inline = `run ${sanitize(call.name)} ${compact}${question}`;
  if (!compact.includes('\n') && splitRows(inline, screen.columns()).length === 1)
    screen.write(`${run} ${compact}${question}`);
  else {
    screen.write(`${run} with input:\n`);
    const rows = screen.tty
      ? inputRows(call.input, screen.columns())
      : formatCallInput(call.input).split('\n');
    const shown = await page(input, screen, rows);
    if (shown !== 'seen') return shown;
    screen.write(`${run}${question}`);
  }
  const key = await input.key(['y', 'n', 'a']);
  screen.write(`${key === 'interrupt' ? 'no' : key}\n`);
  if (key === 'interrupt') return key;
  return key === 'y' ? 'yes' : key === 'a' ? 'always' : 'no';
}

/** Asks y / n / a for each pending call; Ctrl-C declines it and every call after it (none is asked). */
export async function approve(
  input: ChatInput,
  screen: Screen,
  pending: PendingApproval[],
): Promise<Record<string, ApprovalAnswer>> {
  const answers: Record<string, ApprovalAnswer> = {};
  for (const [index, call] of pending.entries()) {
    const answer = await ask(input, screen, call);
    if (answer === 'interrupt') {
      const rest = pending.length - index - 1;
      if (rest > 0)
        screen.write(`${dim(screen, `declined the other ${rest} call${rest === 1 ? '' : 's'} too`)}\n`);
      break; // Unanswered calls are declined.
    }
    answers[call.callId] = answer;
  }
  return answers;
}
