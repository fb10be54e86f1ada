/**
 * `switchyard ask [-m MODEL] [PROMPT]`: one question, the answer streamed to stdout. Piped stdin
 * is read and sent with the prompt. Exit 0 on success (and when stdout closes early, as with
 * `| head -1`: the answer is stopped), 1 on a provider error (its class and message on stderr),
 * 2 on bad usage. On a terminal the answer is cleaned of control sequences as `chat` cleans it
 * (piped or redirected, it is the model's text as sent); lines on stderr are always cleaned.
 */
import { fstatSync } from 'node:fs';
import { isAdapterError } from '../core/errors/guards.ts';
import { userText } from '../core/transcript.ts';
import { UsageError } from './args.ts';
import { watchOutput } from './closed-output.ts';
import { oneLine, sanitize, WholeCharacters } from './terminal-text.ts';
import { modelProblem, openFrontDoor } from './chat/setup.ts';
import type { Output } from './replay-command.ts';

/** The options of `switchyard ask`. */
export interface AskOptions {
  model?: string;
  config?: string;
  json: boolean;
  prompt: string;
}

/** Where `ask` reads and writes (the process's stdin and stdout unless a test says otherwise). */
export interface AskStreams {
  /** `undefined`: nothing to read (a terminal, or no stdin). */
  stdin: NodeJS.ReadableStream | undefined;
  write(text: string): void;
  /** stdout is a terminal: what is written is cleaned of control sequences first. */
  tty?: boolean;
  /** Aborts when stdout is gone (`switchyard ask … | head -1`): the answer is stopped, exit 0. */
  closed?: AbortSignal;
}

/** The process's streams: stdin only when it is a pipe or a file, never a terminal or an inherited socket. */
export function processStreams(): AskStreams {
  let piped: boolean;
  try {
    const info = fstatSync(0);
    piped = !process.stdin.isTTY && (info.isFIFO() || info.isFile());
  } catch {
    piped = false; // No stdin at all.
  }
  const output = watchOutput(process.stdout);
  return {
    stdin: piped ? process.stdin : undefined,
    write: (text) => {
      if (!output.closed) process.stdout.write(text);
    },
    closed: output.signal,
    tty: process.stdout.isTTY === true,
  };
}

/** Piped stdin as text (at most `limit` bytes). */
export async function readStdin(stdin: NodeJS.ReadableStream, limit = 64 * 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    size += typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Buffer).length;
    if (size > limit) throw new UsageError(`stdin is over ${limit / 1024 / 1024} MB`);
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Runs `ask`; returns the exit code. */
export async function runAsk(
  options: AskOptions,
  output: Output,
  streams = processStreams(),
): Promise<number> {
  const piped = streams.stdin === undefined ? undefined : await readStdin(streams.stdin);
  const prompt = [options.prompt, piped ?? ''].filter((text) => text.trim() !== '').join('\n\n');
  if (prompt === '') throw new UsageError('missing PROMPT (give it as an argument or pipe text on stdin)');
  const door = await openFrontDoor({
    config: options.config,
    logger: { warn: (message) => output.stderr(`switchyard ask: warning: ${oneLine(message)}`) },
  });
  try {
    const model = options.model ?? door.defaultModel;
    const problem = modelProblem(door.sy, model, "'switchyard models' lists them");
    if (problem !== undefined) throw new UsageError(problem);
    if (door.emulatorNotice !== undefined) output.stderr(`switchyard ask: ${door.emulatorNotice}`);
    let ended = true;
    const write = (text: string) => streams.write(streams.tty === true ? sanitize(text) : text);
    // An emoji split between two deltas is written whole (each half alone would print as U+FFFD).
    const answer = new WholeCharacters();
    const endAnswer = () => {
      const half = answer.end();
      if (half !== '' && !options.json) write(half);
    };
    try {
      const request = { model, transcript: [userText(prompt)] };
      for await (const event of door.sy.stream(request, { signal: streams.closed })) {
        if (options.json) write(`${JSON.stringify(event)}\n`);
        else if (event.type === 'text-delta') {
          const whole = answer.take(event.delta);
          if (whole !== '') write(whole);
          ended = event.delta.endsWith('\n');
        }
      }
      endAnswer();
      if (!options.json && !ended) streams.write('\n');
      return 0;
    } catch (error) {
      if (streams.closed?.aborted === true) return 0; // Nobody reads the rest: a quiet end, as `head` expects.
      endAnswer();
      if (!options.json && !ended) streams.write('\n');
      if (!isAdapterError(error)) throw error;
      output.stderr(`switchyard ask: ${error.errorClass}: ${oneLine(error.message)}`);
      return 1;
    }
  } finally {
    await door.close();
  }
}
