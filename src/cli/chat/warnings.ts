/**
 * The front door's warnings in the chat: one dim line each, shown once (a swap re-projects the
 * same foreign parts on every later call), and never inside an answer — a warning that comes once
 * one has begun waits until it is shown, so it starts on its own line and the Markdown redraw
 * (which counts the rows of the answer) is not thrown off.
 */
import type { LogFields } from '../../core/logger.ts';
import { oneLine } from '../terminal-text.ts';
import { dim, type Screen } from './render.ts';

/** Where the chat's logger sends warnings. */
export interface ChatWarnings {
  warn(message: string, fields?: LogFields): void;
  /** Holds warnings back (an answer has begun on screen); twice is once. */
  hold(): void;
  /** Shows the held warnings and stops holding (the answer has ended its line). */
  release(): void;
}

/**
 * `warning: MESSAGE (REASON)`. The reason is often a provider's own text (an error code or
 * message): escapes and line breaks are taken out, as from everything else a provider sends.
 */
export function warningLine(message: string, fields?: LogFields): string {
  const reason = fields?.reason === undefined ? '' : ` (${oneLine(String(fields.reason))})`;
  return `warning: ${oneLine(message)}${reason}`;
}

export function createChatWarnings(screen: Screen): ChatWarnings {
  const shown = new Set<string>();
  let held: string[] | undefined;
  const show = (line: string) => screen.write(`${dim(screen, line)}\n`);
  return {
    warn(message, fields) {
      const line = warningLine(message, fields);
      if (shown.has(line)) return;
      shown.add(line);
      if (held !== undefined) held.push(line);
      else show(line);
    },
    hold() {
      held ??= [];
    },
    release() {
      const lines = held ?? [];
      held = undefined;
      lines.forEach(show);
    },
  };
}
