/**
 * `switchyard chat`: the read–answer loop. Messages go through the session (agent loop over the
 * front door), answers stream through the renderer, a status line follows each, every exchange is
 * logged; Ctrl-C stops an answer (upstream aborted, partial answer kept and marked).
 */
import { join } from 'node:path';
import { isAdapterError } from '../../core/errors/guards.ts';
import { UsageError } from '../args.ts';
import { type OutputWatch, watchOutput } from '../closed-output.ts';
import type { Part } from '../../core/transcript.ts';
import type { AgentEvent } from '../../agent/types.ts';
import { approve } from './approval.ts';
import { refusal } from './attach.ts';
import { type CommandContext, runSlashCommand } from './commands.ts';
import { statusLine } from './format.ts';
import { type ChatInput, createChatInput } from './input.ts';
import { oneLine } from '../terminal-text.ts';
import { AnswerRenderer, dim, preloadMarkdown, red, type Screen } from './render.ts';
import { ChatSession, type Exchange } from './session.ts';
import { dataDirectory, type FrontDoor, modelProblem, openFrontDoor, resumableModel } from './setup.ts';
import { type ChatStore, type ConversationRecord, openStore } from './store.ts';
import { connectTools } from './tools.ts';
import { printTranscript } from './transcript-view.ts';
import { type ChatWarnings, createChatWarnings } from './warnings.ts';

/** The options of `switchyard chat`. */
export interface ChatOptions {
  model?: string;
  system?: string;
  config?: string;
  continue?: boolean;
  resume?: string;
}

/** The process's terminal as a {@link Screen}; once `output` is closed, writes go nowhere. */
function processScreen(output: OutputWatch): Screen {
  const out = process.stdout;
  return {
    write: (text) => {
      if (!output.closed) out.write(text);
    },
    tty: out.isTTY === true,
    columns: () => out.columns || 80,
    rows: () => out.rows || 24,
  };
}

/**
 * A one-line description of an error: its class and message (an upstream's own text, so no escapes
 * or line breaks). `model` is the name the chat is on, for the one error it says in plain words.
 */
export function describeError(error: unknown, model?: string): string {
  if (isAdapterError(error) && error.providerCode === 'all_candidates_unavailable')
    return pausedModel(model, error.retryAfterSeconds);
  if (isAdapterError(error)) return `${error.errorClass}: ${oneLine(error.message)}`;
  return oneLine(error instanceof Error ? error.message : String(error));
}

/**
 * Every candidate's circuit is open (after repeated failures the router stops sending to a model
 * for a while, then lets one call through): the routing error says `unavailable (open)` in a list
 * of candidates; the chat says what that means for the next message.
 */
function pausedModel(model: string | undefined, seconds: number | undefined): string {
  const when = seconds === undefined ? 'shortly' : `in ${Math.max(1, Math.ceil(seconds))} s`;
  return `${model ?? 'the model'} is paused after repeated failures: it is tried again ${when} (/model NAME switches to another)`;
}

interface Chat extends CommandContext {
  input: ChatInput;
  warnings: ChatWarnings;
}

/** The events the renderer writes something for. */
const shown = new Set<AgentEvent['type']>(['text-delta', 'reasoning-delta', 'tool-call-end', 'tool-end']);

/**
 * Runs one message, its answer streaming through the renderer, tool calls asked for. A warning
 * before any answer text (a request-time one) is shown at once; one that comes once the answer
 * has begun waits until it is shown (or until a question interrupts it).
 */
async function answer(chat: Chat, parts: Part[]): Promise<Exchange> {
  const { session, screen } = chat;
  const renderer = new AnswerRenderer(screen, chat.settings);
  try {
    const exchange = await chat.input.busy(
      () => session.interrupt(),
      () =>
        session.send(parts, {
          event(event) {
            if (shown.has(event.type)) chat.warnings.hold();
            renderer.event(event);
          },
          approve(pending) {
            renderer.finish();
            chat.warnings.release();
            return approve(chat.input, screen, pending);
          },
        }),
    );
    const cancelled = exchange.outcome === 'cancelled';
    renderer.finish(cancelled ? dim(screen, '⏹ interrupted — the partial answer is kept') : undefined);
    return exchange;
  } finally {
    chat.warnings.release();
  }
}

/** Sends one message and shows its answer and status line. */
async function send(chat: Chat, text: string): Promise<void> {
  const { session, screen } = chat;
  const model = session.describe();
  for (const attachment of chat.attachments) {
    const why = refusal(attachment.part, model);
    if (why !== undefined) {
      chat.attachments.length = 0;
      return chat.say(red(screen, `not sent: ${attachment.label}: ${why} (attachment dropped)`));
    }
  }
  const parts: Part[] = [{ type: 'text', text }, ...chat.attachments.map((entry) => entry.part)];
  chat.attachments.length = 0;
  const exchange = await answer(chat, parts);
  if (exchange.outcome === 'error')
    chat.say(red(screen, `✗ ${describeError(exchange.error, session.model)}`));
  else if (exchange.outcome !== 'completed' && exchange.outcome !== 'cancelled')
    chat.say(dim(screen, `(stopped: ${exchange.outcome})`));
  if (exchange.turns.length > 0) {
    chat.say(
      dim(
        screen,
        statusLine({
          model: session.model,
          turns: exchange.turns,
          all: session.turns,
          contextWindow: model.facts.contextWindow,
        }),
      ),
    );
  }
  chat.save();
}

/** Opens the log; on failure says why in one line and goes on without it. */
async function openLog(say: (line: string) => void): Promise<ChatStore | undefined> {
  const path = join(dataDirectory(), 'chat.db');
  const store = await openStore(path);
  if ('reason' in store) {
    say(`not logging this conversation: ${store.reason}`);
    return undefined;
  }
  return store;
}

/** The conversation `--resume` or `--continue` names, and the model to go on with (`-m`, else its own). */
function resume(
  door: FrontDoor,
  store: ChatStore | undefined,
  options: ChatOptions,
): { record: ConversationRecord; model: string; note?: string } | { problem: string } {
  let record: ConversationRecord | undefined;
  try {
    record = options.resume !== undefined ? store?.load(options.resume) : store?.latest();
  } catch (error) {
    // A damaged record (the store names it): the other conversations and a new one are still fine.
    return {
      problem: `${describeError(error)} — 'switchyard chat' starts a new conversation, 'switchyard history' lists the others`,
    };
  }
  if (record === undefined)
    return {
      problem:
        options.resume !== undefined
          ? `no conversation '${options.resume}' to resume`
          : 'no conversation to continue',
    };
  if (options.model !== undefined) return { record, model: options.model };
  const model = resumableModel(door.sy, record);
  return 'problem' in model ? model : { record, ...model };
}

/** Runs the chat until the user leaves; returns the exit code. */
export async function runChat(options: ChatOptions): Promise<number> {
  // Nobody reads the answers any more: stop the one streaming, read no more input, log and leave.
  let stop = () => {};
  const output = watchOutput(process.stdout, () => stop());
  const screen = processScreen(output);
  const say = (line: string) => screen.write(`${line}\n`);
  if (screen.tty) void preloadMarkdown();
  const warnings = createChatWarnings(screen);
  const door = await openFrontDoor({ config: options.config, logger: { warn: warnings.warn } });
  const allowed = new Set<string>();
  const session = new ChatSession({
    sy: door.sy,
    model: options.model ?? door.defaultModel,
    allowed,
    system: options.system,
  });
  const problem = modelProblem(door.sy, session.model, "'switchyard models' lists them");
  if (problem !== undefined) {
    await door.close();
    throw new UsageError(problem);
  }
  const input = createChatInput(process.stdin, process.stdout, join(dataDirectory(), 'input-history'));
  stop = () => {
    session.interrupt();
    input.close();
  };
  if (output.closed) stop();
  let store = await openLog(say);
  const { tools, sources } = await connectTools(door.mcpServers, allowed, {
    failed: (name, error) => say(`MCP server ${name} not connected: ${describeError(error)}`),
    warn: say,
  });
  session.tools = tools;
  const chat: Chat = {
    session,
    screen,
    store,
    tools,
    attachments: [],
    settings: { reasoning: false },
    input,
    warnings,
    say,
    save() {
      const failure = session.saveTo(store);
      if (failure === undefined) return;
      say(red(screen, `not logging any more: ${failure}`));
      store = chat.store = undefined;
    },
  };
  try {
    if (options.resume !== undefined || options.continue === true) {
      const resumed = resume(door, store, options);
      if ('problem' in resumed) {
        // Start-up failures go to stderr, as every command's do (stdout may be a file or a pipe).
        process.stderr.write(`switchyard chat: ${resumed.problem}\n`);
        return 1;
      }
      session.restore(resumed.record);
      session.model = resumed.model;
      printTranscript(screen, resumed.record.transcript);
      if (resumed.note !== undefined) say(dim(screen, resumed.note));
    }
    if (door.emulatorNotice !== undefined) say(dim(screen, door.emulatorNotice));
    const described = session.describe();
    say(
      dim(
        screen,
        `switchyard chat · ${session.model} (${described.id})${tools.length > 0 ? ` · ${tools.length} tools` : ''} · /help for commands`,
      ),
    );
    for (;;) {
      const line = await input.read('› ');
      if (line === undefined) break;
      if (line.trim() === '') continue;
      try {
        if (line.trimStart().startsWith('/')) {
          if ((await runSlashCommand(chat, line)) === 'exit') break;
        } else await send(chat, line);
      } catch (error) {
        say(red(screen, `✗ ${describeError(error)}`));
      }
    }
    return 0;
  } finally {
    input.close();
    chat.save();
    store?.close();
    await Promise.allSettled(sources.map((source) => source.close()));
    await door.close();
  }
}
