/**
 * The chat's input: line editing and history (node:readline) on a terminal, lines on a pipe.
 * On a terminal, stdin passes through a filter first: Ctrl-C while an answer streams interrupts
 * it, a single key answers an approval, and a bracketed paste (any size) becomes one placeholder
 * in the line instead of being typed character by character.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { PassThrough } from 'node:stream';

const pasteStart = '\x1b[200~';
const pasteEnd = '\x1b[201~';
/** Input history lines kept across sessions. */
const historyLimit = 1000;

/** A key answer to a question (approval); `interrupt` for Ctrl-C. */
export type KeyAnswer = string | 'interrupt';

/** Where the chat reads from. */
export interface ChatInput {
  /** The next message or command, `undefined` at the end (Ctrl-D, Ctrl-C on an empty line, closed stdin). */
  read(prompt: string): Promise<string | undefined>;
  /** While `work` runs, Ctrl-C calls `onInterrupt` instead of editing a line. */
  busy<Value>(onInterrupt: () => void, work: () => Promise<Value>): Promise<Value>;
  /** One key among `keys` (lower-cased), or `interrupt`. */
  key(keys: string[]): Promise<KeyAnswer>;
  /** Ends the input: `read` gives `undefined` from now on, even for lines already read ahead (twice is fine). */
  close(): void;
}

/** Reads the history file (oldest first); missing or unreadable: empty. */
function loadHistory(file: string | undefined): string[] {
  if (file === undefined) return [];
  try {
    const lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
    if (lines.length > historyLimit * 2) writeFileSync(file, `${lines.slice(-historyLimit).join('\n')}\n`);
    return lines.slice(-historyLimit);
  } catch {
    return [];
  }
}

function remember(file: string | undefined, line: string): void {
  if (file === undefined || line.includes('\n') || line.length > 2000 || line.trim() === '') return;
  try {
    // Private when created (0700 folder, 0600 file), as shells keep theirs: it holds what was typed.
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    appendFileSync(file, `${line}\n`, { mode: 0o600 });
  } catch {
    // History is a convenience: a read-only folder loses it, nothing else.
  }
}

/** Input from a terminal (`stdin.isTTY`) or from a pipe. */
export function createChatInput(
  stdin: NodeJS.ReadStream,
  stdout: NodeJS.WriteStream,
  historyFile?: string,
): ChatInput {
  return stdin.isTTY ? terminalInput(stdin, stdout, historyFile) : pipeInput(stdin);
}

/** Lines from a pipe; Ctrl-C (SIGINT) answers an approval question, else interrupts a running answer, else ends the input. */
function pipeInput(stdin: NodeJS.ReadableStream): ChatInput {
  const lines: string[] = [];
  let ended = false;
  let waiting: (() => void) | undefined;
  const reader = createInterface({ input: stdin, terminal: false, crlfDelay: Infinity });
  reader.on('line', (line) => {
    lines.push(line);
    waiting?.();
  });
  reader.on('close', () => {
    ended = true;
    waiting?.();
  });
  let onInterrupt: (() => void) | undefined;
  /** Set while a key is asked: Ctrl-C answers it (`interrupt`), as on a terminal. */
  let asking: { interrupted: boolean } | undefined;
  const sigint = () => {
    if (asking !== undefined) {
      asking.interrupted = true;
      waiting?.();
    } else if (onInterrupt !== undefined) onInterrupt();
    else {
      ended = true;
      lines.length = 0;
      waiting?.();
    }
  };
  process.on('SIGINT', sigint);
  const next = async (): Promise<string | undefined> => {
    while (lines.length === 0 && !ended) await new Promise<void>((resolve) => (waiting = resolve));
    return lines.shift();
  };
  return {
    read: next,
    async busy(interrupt, work) {
      onInterrupt = interrupt;
      try {
        return await work();
      } finally {
        onInterrupt = undefined;
      }
    },
    async key(keys) {
      const question = { interrupted: false };
      asking = question;
      try {
        while (lines.length === 0 && !ended && !question.interrupted)
          await new Promise<void>((resolve) => (waiting = resolve));
      } finally {
        asking = undefined;
      }
      if (question.interrupted) return 'interrupt';
      const answer = lines.shift()?.trim().toLowerCase()[0];
      return answer !== undefined && keys.includes(answer) ? answer : 'interrupt';
    },
    close() {
      // Closed input has nothing more to give, not even lines already read ahead.
      ended = true;
      lines.length = 0;
      waiting?.();
      process.off('SIGINT', sigint);
      reader.close();
    },
  };
}

/** The terminal: raw mode, bracketed paste, readline with history on a filtered stream. */
function terminalInput(
  stdin: NodeJS.ReadStream,
  stdout: NodeJS.WriteStream,
  historyFile?: string,
): ChatInput {
  const feed = new PassThrough();
  const pastes: string[] = [];
  let mode: 'line' | 'busy' | 'key' = 'line';
  let onInterrupt: (() => void) | undefined;
  let onKey: ((key: string) => void) | undefined;
  let paste: string | undefined;
  let closed = false;
  let released = false;

  const history = loadHistory(historyFile).reverse();
  const reader: Interface = createInterface({
    input: feed,
    output: stdout,
    terminal: true,
    history,
    historySize: historyLimit,
    removeHistoryDuplicates: true,
  });
  stdin.setRawMode(true);
  stdout.write('\x1b[?2004h');

  const insertPaste = (text: string) => {
    if (!text.includes('\n') && !text.includes('\r') && text.length <= 2000) {
      feed.write(text);
      return;
    }
    pastes.push(text);
    const lines = text.split(/\r\n|\r|\n/).length;
    const size =
      text.length >= 1024 * 1024
        ? `${(text.length / 1024 / 1024).toFixed(1)} MB`
        : `${Math.ceil(text.length / 1024)} KB`;
    feed.write(`[paste #${pastes.length}: ${lines} lines, ${size}]`);
  };

  const onData = (chunk: Buffer) => {
    let text = chunk.toString('utf8');
    while (text !== '') {
      if (paste !== undefined) {
        const end = text.indexOf(pasteEnd);
        if (end === -1) {
          paste += text;
          return;
        }
        paste += text.slice(0, end);
        text = text.slice(end + pasteEnd.length);
        const done = paste;
        paste = undefined;
        if (mode === 'line') insertPaste(done);
        continue;
      }
      if (mode === 'busy') {
        if (text.includes('\x03')) onInterrupt?.();
        return;
      }
      if (mode === 'key') {
        const key = text.includes('\x03') ? '\x03' : text[0]!;
        onKey?.(key);
        return;
      }
      const start = text.indexOf(pasteStart);
      if (start === -1) {
        feed.write(text);
        return;
      }
      if (start > 0) feed.write(text.slice(0, start));
      paste = '';
      text = text.slice(start + pasteStart.length);
    }
  };
  const onEnd = () => feed.end();
  stdin.on('data', onData);
  stdin.on('end', onEnd);
  reader.on('close', () => {
    closed = true;
  });
  stdin.resume();

  const expand = (line: string) =>
    line.replace(
      /\[paste #(\d+): \d+ lines, [\d.]+ [KM]B\]/g,
      (match, number: string) => pastes[Number(number) - 1] ?? match,
    );

  const readLine = (prompt: string) =>
    new Promise<string | undefined>((resolve) => {
      if (closed) return resolve(undefined);
      const finish = (value: string | undefined) => {
        reader.off('line', onLine);
        reader.off('SIGINT', onSigint);
        reader.off('close', onClose);
        resolve(value);
      };
      const onLine = (line: string) => finish(line);
      const onSigint = () => {
        if (reader.line === '') finish(undefined);
        else {
          // Clear the line being edited.
          reader.write(null, { ctrl: true, name: 'u' });
          reader.write(null, { ctrl: true, name: 'k' });
        }
      };
      const onClose = () => finish(undefined);
      reader.on('line', onLine);
      reader.on('SIGINT', onSigint);
      reader.on('close', onClose);
      reader.setPrompt(prompt);
      reader.prompt();
    });

  return {
    async read(prompt) {
      mode = 'line';
      const lines: string[] = [];
      for (;;) {
        const line = await readLine(lines.length === 0 ? prompt : '… ');
        if (line === undefined) return lines.length === 0 ? undefined : lines.join('\n');
        remember(historyFile, line);
        if (line.endsWith('\\')) {
          lines.push(line.slice(0, -1));
          continue;
        }
        lines.push(line);
        const message = expand(lines.join('\n'));
        pastes.length = 0;
        return message;
      }
    },
    async busy(interrupt, work) {
      mode = 'busy';
      onInterrupt = interrupt;
      reader.pause();
      try {
        return await work();
      } finally {
        onInterrupt = undefined;
        mode = 'line';
      }
    },
    key(keys) {
      const previous = mode;
      mode = 'key';
      return new Promise((resolve) => {
        onKey = (key) => {
          if (key === '\x03') {
            onKey = undefined;
            mode = previous;
            return resolve('interrupt');
          }
          const lower = key.toLowerCase();
          if (!keys.includes(lower)) return;
          onKey = undefined;
          mode = previous;
          resolve(lower);
        };
      });
    },
    close() {
      if (released) return;
      released = true;
      closed = true;
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdout.write('\x1b[?2004l');
      try {
        stdin.setRawMode(false);
      } catch {
        // The terminal is gone.
      }
      reader.close();
      stdin.pause();
    },
  };
}
