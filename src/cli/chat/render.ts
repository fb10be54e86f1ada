/**
 * Shows an answer as it streams: text at once (raw), then each finished Markdown block re-drawn
 * rendered for the terminal (`marked` + `marked-terminal`, code highlighted); reasoning dimmed and
 * folded to one line unless `/reasoning on`; each tool call as one line, its result summarized.
 */
import type { Token, Tokens } from 'marked';
import stringWidth from 'string-width';
import type { AgentEvent } from '../../agent/types.ts';
import type { ToolResultPart } from '../../core/transcript.ts';
import { sanitize, WholeCharacters } from '../terminal-text.ts';

/** Where the chat writes, and what it knows of the terminal. */
export interface Screen {
  write(text: string): void;
  /** True for a terminal (cursor movement, colours, Markdown); false for a pipe (plain text). */
  readonly tty: boolean;
  columns(): number;
  rows(): number;
}

export const dim = (screen: Screen, text: string) => (screen.tty ? `\x1b[2m${text}\x1b[22m` : text);
export const bold = (screen: Screen, text: string) => (screen.tty ? `\x1b[1m${text}\x1b[22m` : text);
export const red = (screen: Screen, text: string) => (screen.tty ? `\x1b[31m${text}\x1b[39m` : text);

type MarkdownRenderer = (markdown: string) => string;
let markdown: MarkdownRenderer | undefined;
let loading: Promise<void> | undefined;

/** Loads the Markdown renderer in the background (it is only needed once an answer arrives). */
export function preloadMarkdown(): Promise<void> {
  loading ??= (async () => {
    try {
      const [{ Marked }, { markedTerminal }] = await Promise.all([
        import('marked'),
        import('marked-terminal'),
      ]);
      const marked = new Marked();
      // The types of marked-terminal lag behind marked's extension type.
      marked.use(markedTerminal({ reflowText: false, tab: 2 }) as Parameters<typeof marked.use>[0]);
      // A link is printed as `text (url)`, never as a terminal hyperlink (OSC 8): marked-terminal
      // makes one wherever supports-hyperlinks says the terminal can (iTerm, GNOME's VTE), and an
      // answer could then show one address and open another.
      marked.use({ renderer: { link: plainLink } });
      markdown = (text) => marked.parse(text, { async: false });
    } catch {
      markdown = undefined; // Plain text it is.
    }
  })();
  return loading;
}

/** A Markdown link as `text (url)`, or the URL alone when it is its own text; never OSC 8. */
function plainLink(this: { parser: { parseInline(tokens: Token[]): string } }, link: Tokens.Link): string {
  const text = this.parser.parseInline(link.tokens);
  const href = sanitize(link.href);
  return text === href || text === '' ? href : `${text} (${href})`;
}

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * The terminal columns one grapheme takes (a letter with its combining marks, an emoji sequence
 * joined with ZWJ, a flag): 2 for a wide CJK character or an emoji, 0 for a lone format character
 * or mark, else 1. `string-width` knows the wide ranges and the emoji; splitting into graphemes
 * first keeps the combining marks of every script at 0 (it only knows U+0300–U+036F).
 */
function graphemeWidth(grapheme: string): number {
  if (/\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(grapheme))
    return Math.min(2, stringWidth(grapheme));
  if (/^[\p{Cf}\p{M}]/u.test(grapheme)) return 0;
  return stringWidth(String.fromCodePoint(grapheme.codePointAt(0)!));
}

/**
 * How many terminal rows `text` takes when written from column 0 at `columns` wide: by display
 * columns, and a wide character that does not fit at the end of a row starts the next one.
 */
export function rowsOf(text: string, columns: number): number {
  const width = Math.max(1, columns);
  let rows = 0;
  for (const line of text.split('\n')) {
    rows++;
    let column = 0;
    for (const { segment } of graphemes.segment(line)) {
      const next = graphemeWidth(segment);
      if (column + next > width) {
        rows++;
        column = 0;
      }
      column += next;
    }
  }
  return rows;
}

/**
 * `line` (no line breaks) cut into the pieces that each fill one terminal row at `columns` wide, by
 * display columns as {@link rowsOf} counts them (an empty line is one empty row).
 */
export function splitRows(line: string, columns: number): string[] {
  const width = Math.max(1, columns);
  const rows: string[] = [];
  let row = '';
  let column = 0;
  for (const { segment } of graphemes.segment(line)) {
    const next = graphemeWidth(segment);
    if (column + next > width) {
      rows.push(row);
      row = '';
      column = 0;
    }
    row += segment;
    column += next;
  }
  rows.push(row);
  return rows;
}

/** The index just after the last complete Markdown block of `text` (0 when none is complete). */
export function blockEnd(text: string): number {
  let end = 0;
  let fence: string | undefined;
  let position = 0;
  for (;;) {
    const newline = text.indexOf('\n', position);
    if (newline === -1) return end;
    const line = text.slice(position, newline);
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) fence = marker[0]!;
    else if (fence !== undefined && marker !== undefined && marker[0] === fence) {
      fence = undefined;
      end = newline + 1;
    } else if (fence === undefined && line.trim() === '') end = newline + 1;
    position = newline + 1;
  }
}

/** One-line summary of a tool result. */
export function summarize(result: ToolResultPart): string {
  const output = result.output;
  let text =
    output.type === 'text'
      ? output.text
      : output.type === 'json'
        ? JSON.stringify(output.value)
        : output.parts.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join(' ');
  text = sanitize(text).replace(/\s+/g, ' ').trim();
  return text.length > 100 ? `${text.slice(0, 99)}…` : text;
}

/** Streams one message's events to the screen. */
export class AnswerRenderer {
  private pending = '';
  private reasoningShown = 0;
  /** A surrogate pair split between two deltas is written whole, once its second half comes. */
  private readonly answerCharacters = new WholeCharacters();
  private readonly reasoningCharacters = new WholeCharacters();
  private readonly toolNames = new Map<string, string>();
  /** Raw answer text written so far (for tests and the interrupted marker). */
  text = '';

  private readonly screen: Screen;
  private readonly options: { reasoning: boolean };

  constructor(screen: Screen, options: { reasoning: boolean }) {
    this.screen = screen;
    this.options = options;
  }

  event(event: AgentEvent): void {
    switch (event.type) {
      case 'text-delta':
        return this.textDelta(event.delta);
      case 'reasoning-delta':
        return this.reasoning(event.delta);
      case 'tool-call-start':
        // A model's (or MCP server's) name: never an escape sequence on the terminal.
        this.toolNames.set(event.id, sanitize(event.name));
        return;
      case 'tool-call-end': {
        this.flush();
        const input = sanitize(JSON.stringify(event.input));
        const shown = input.length > 160 ? `${input.slice(0, 159)}…` : input;
        this.line(`${dim(this.screen, '⚙')} ${this.toolNames.get(event.id) ?? 'tool'} ${shown}`);
        return;
      }
      case 'tool-end': {
        const summary = summarize(event.result);
        this.line(dim(this.screen, `  ${event.isError ? '✗' : '↳'} ${summary}`));
        return;
      }
      case 'turn-end':
        this.flush();
        return;
      default:
        return;
    }
  }

  /** Ends the answer: the last block rendered, and `marker` (e.g. interrupted) after it. */
  finish(marker?: string): void {
    this.flush();
    if (marker !== undefined) this.line(marker);
    this.closeReasoning(); // A folded `thinking…` line with no answer after it: what follows starts below.
  }

  private line(text: string): void {
    this.closeReasoning();
    this.screen.write(`${text}\n`);
  }

  private reasoning(delta: string): void {
    if (this.options.reasoning) {
      const whole = this.reasoningCharacters.take(delta);
      if (whole !== '') this.screen.write(dim(this.screen, sanitize(whole)));
      this.reasoningShown += delta.length;
      return;
    }
    this.reasoningShown += delta.length;
    const label = `thinking… (${this.reasoningShown} characters; /reasoning on shows them)`;
    this.screen.write(this.screen.tty ? `\r\x1b[K${dim(this.screen, label)}` : '');
  }

  private closeReasoning(): void {
    // What was kept for a next delta that never came (half a pair, an unfinished CSI): cleaned too.
    const half = sanitize(this.reasoningCharacters.end());
    if (half !== '' && this.options.reasoning) this.screen.write(dim(this.screen, half));
    if (this.reasoningShown === 0) return;
    if (this.screen.tty || this.options.reasoning) this.screen.write('\n');
    this.reasoningShown = 0;
  }

  private textDelta(delta: string): void {
    this.closeReasoning();
    const clean = sanitize(this.answerCharacters.take(delta));
    if (clean === '') return;
    this.text += clean;
    this.pending += clean;
    this.screen.write(clean);
    if (!this.screen.tty || markdown === undefined) return;
    const end = blockEnd(this.pending);
    if (end > 0) this.redraw(this.pending.slice(0, end), this.pending.slice(end));
  }

  /** Replaces the raw text of `block` (and the `rest` after it) on screen with `block` rendered. */
  private redraw(block: string, rest: string): void {
    const columns = this.screen.columns();
    const rows = rowsOf(this.pending, columns) - 1;
    this.pending = rest;
    // Taller than the screen: the start scrolled away and cannot be redrawn; the raw text stays.
    if (rows >= this.screen.rows() - 1 || block.trim() === '') return;
    let rendered: string;
    try {
      rendered = markdown!(block).replace(/\n+$/, '\n') + (block.endsWith('\n\n') ? '\n' : '');
    } catch {
      return;
    }
    this.screen.write(`${rows > 0 ? `\x1b[${rows}A` : ''}\r\x1b[J${rendered}${rest}`);
  }

  /** Renders what remains and ends the line. */
  private flush(): void {
    const half = sanitize(this.answerCharacters.end());
    if (half !== '') {
      this.text += half;
      this.pending += half;
      this.screen.write(half);
    }
    if (this.pending === '') return;
    const pending = this.pending.endsWith('\n') ? this.pending : `${this.pending}\n`;
    if (!this.pending.endsWith('\n')) this.screen.write('\n');
    this.pending = pending;
    if (this.screen.tty && markdown !== undefined) this.redraw(pending, '');
    this.pending = '';
  }
}
