/** The chat's slash commands: one row each (name, arguments, help, action); unknown ones get "did you mean". */
import { closest } from '../../core/closest.ts';
import type { Part } from '../../core/transcript.ts';
import type { AnyAgentTool } from '../../agent/tool.ts';
import { readAttachment, refusal } from './attach.ts';
import { costTable, modelRows, modelTable, table, usdAbout } from './format.ts';
import { sanitize } from '../terminal-text.ts';
import { bold, dim, red, type Screen } from './render.ts';
import type { ChatSession } from './session.ts';
import type { ChatStore } from './store.ts';
import { modelProblem, resumableModel } from './setup.ts';
import { printTranscript } from './transcript-view.ts';

/** What a command can reach. */
export interface CommandContext {
  session: ChatSession;
  screen: Screen;
  store: ChatStore | undefined;
  tools: AnyAgentTool[];
  /** Attachments waiting for the next message. */
  attachments: Array<{ part: Part; label: string }>;
  settings: { reasoning: boolean };
  /** Writes one line. */
  say(line: string): void;
  /** Saves the conversation now (after /save, /new, /load). */
  save(): void;
}

/** One slash command. */
interface SlashCommand {
  name: string;
  args: string;
  help: string;
  /** Returns `exit` to leave the chat. */
  run(context: CommandContext, argument: string): Promise<void | 'exit'> | void | 'exit';
}

function swapModel(context: CommandContext, name: string): void {
  const { session, say, screen } = context;
  if (name === '') return say(`model: ${session.model} (${session.describe().id}) — /model NAME to swap`);
  const problem = modelProblem(session.sy, name, '/models lists them');
  if (problem !== undefined) return say(red(screen, problem));
  const resolved = session.describe(name);
  if (!resolved.configured) {
    const provider = session.sy.providers().find((entry) => entry.name === resolved.provider);
    return say(
      red(
        screen,
        `${resolved.provider} is not configured: set ${provider?.missing?.join(' or ') ?? 'its API key'}`,
      ),
    );
  }
  session.model = name;
  say(`model: ${name} (${resolved.id}) — the conversation continues on it`);
}

async function attach(context: CommandContext, path: string): Promise<void> {
  const { session, say, screen } = context;
  if (path === '') {
    if (context.attachments.length === 0) return say('usage: /attach FILE (image, PDF or text)');
    return say(
      `attached for the next message: ${context.attachments.map((entry) => entry.label).join(', ')}`,
    );
  }
  const result = await readAttachment(path);
  if (!result.ok) return say(red(screen, `not attached: ${result.message}`));
  const why = refusal(result.part, session.describe());
  if (why !== undefined) return say(red(screen, `not attached: ${why}`));
  context.attachments.push({ part: result.part, label: result.label });
  say(`attached ${result.label} — sent with your next message`);
}

/** `/save [NAME]`: names the conversation and saves it — or says why nothing was saved. */
function save(context: CommandContext, name: string): void {
  const { session, say, screen } = context;
  if (name !== '') session.name = name;
  if (context.store === undefined)
    return say(red(screen, 'not saved: no conversation log (see the note at start-up)'));
  const label = session.name ?? session.id;
  // The log keeps conversations with at least one message: an empty one is not saved (nor resumable).
  if (session.transcript.every((item) => item.kind === 'system'))
    return say(
      `nothing to save yet: no messages — it is saved${name === '' ? '' : ` as ${label}`} once you send one`,
    );
  context.save();
  if (context.store === undefined) return; // The save failed, and said so.
  say(`saved as ${label} — resume with: switchyard chat --resume ${label}`);
}

function history(context: CommandContext, search: string): void {
  if (context.store === undefined) return context.say('no conversation log (see the note at start-up)');
  const found = context.store.list(search === '' ? { limit: 20 } : { search, limit: 20 });
  if (found.length === 0)
    return context.say(search === '' ? 'no conversations yet' : `nothing matches '${search}'`);
  for (const line of table([
    ['id', 'name', 'updated', 'model', 'cost', 'title'],
    ...found.map((entry) => [
      entry.id,
      sanitize(entry.name ?? '-'),
      entry.updatedAt.slice(0, 16).replace('T', ' '),
      sanitize(entry.model),
      usdAbout(entry.cost, entry.estimated),
      sanitize(entry.title),
    ]),
  ]))
    context.say(line);
}

const commands: SlashCommand[] = [
  {
    name: 'model',
    args: 'NAME',
    help: 'swap the model (any provider) mid-conversation',
    run: (c, a) => swapModel(c, a),
  },
  {
    name: 'models',
    args: '',
    help: 'the configured models, with prices and limits',
    async run(context) {
      const listings = context.session.sy.models().filter((listing) => listing.configured);
      for (const line of modelTable(await modelRows(context.session.sy, listings))) context.say(line);
    },
  },
  {
    name: 'cost',
    args: '',
    help: 'cost of each turn and the total',
    run: (c) => costTable(c.session.turns).forEach(c.say),
  },
  {
    name: 'system',
    args: 'TEXT',
    help: 'set the system prompt (no text: show it)',
    run(context, text) {
      if (text === '') return context.say(`system: ${context.session.system ?? '(none)'}`);
      context.session.setSystem(text);
      context.say('system prompt set');
    },
  },
  {
    name: 'attach',
    args: 'FILE',
    help: 'attach an image, PDF or text file to the next message',
    run: attach,
  },
  {
    name: 'save',
    args: '[NAME]',
    help: 'name this conversation (it is logged either way)',
    run: save,
  },
  {
    name: 'load',
    args: 'NAME|ID',
    help: 'continue a logged conversation',
    run(context, name) {
      if (context.store === undefined) return context.say('no conversation log (see the note at start-up)');
      const record = name === '' ? undefined : context.store.load(name);
      if (record === undefined)
        return context.say(red(context.screen, `no conversation '${name}' — /history lists them`));
      context.save();
      const current = context.session.model;
      context.session.restore(record);
      // Its own model (or its last answer's) when known here; else the one this chat is on.
      const model = resumableModel(context.session.sy, record);
      context.session.model = 'problem' in model ? current : model.model;
      printTranscript(context.screen, record.transcript);
      context.say(
        `loaded ${record.name ?? record.id} (${record.turns.length} turns, ${usdAbout(
          totalOf(record.turns),
          record.turns.some((turn) => turn.interrupted === true),
        )})`,
      );
      if ('note' in model && model.note !== undefined) context.say(dim(context.screen, model.note));
      if ('problem' in model)
        context.say(
          dim(context.screen, `model '${record.model}' is not in this configuration: staying on ${current}`),
        );
    },
  },
  {
    name: 'new',
    args: '',
    help: 'start a new conversation',
    run(context) {
      context.save();
      context.session.reset();
      context.say('new conversation');
    },
  },
  {
    name: 'undo',
    args: '',
    help: 'drop the last message and its answer',
    run: (c) => c.say(c.session.undo() ? 'dropped the last message and its answer' : 'nothing to undo'),
  },
  { name: 'history', args: '[TEXT]', help: 'logged conversations (matching TEXT)', run: history },
  {
    name: 'tools',
    args: '',
    help: 'the tools the model may call (from mcp_servers)',
    run(context) {
      if (context.tools.length === 0) return context.say('no tools (add mcp_servers: to the config)');
      for (const tool of context.tools)
        context.say(
          `${sanitize(tool.name)}${context.session.allowed.has(tool.name) ? ' (always allowed)' : ''} — ${sanitize(tool.description ?? '')}`,
        );
    },
  },
  {
    name: 'reasoning',
    args: 'on|off',
    help: 'show reasoning in full, or folded to one line',
    run(context, value) {
      const setting = value.toLowerCase(); // As the command names: `/REASONING ON` works too.
      if (setting !== 'on' && setting !== 'off') return context.say('usage: /reasoning on|off');
      context.settings.reasoning = setting === 'on';
      context.say(`reasoning ${setting}`);
    },
  },
  {
    name: 'help',
    args: '',
    help: 'this list',
    run(context) {
      for (const command of commands)
        context.say(
          `${bold(context.screen, `/${command.name}`)}${command.args === '' ? '' : ` ${command.args}`}  ${dim(context.screen, command.help)}`,
        );
      context.say(
        dim(
          context.screen,
          'End a line with \\ to continue it. Ctrl-C stops an answer; Ctrl-C on an empty line or Ctrl-D exits.',
        ),
      );
    },
  },
  { name: 'exit', args: '', help: 'leave (the conversation is logged)', run: () => 'exit' },
];

function totalOf(turns: ReadonlyArray<{ cost: number | undefined }>): number {
  return turns.reduce((sum, turn) => sum + (turn.cost ?? 0), 0);
}

/** Runs one `/command argument` line. */
export async function runSlashCommand(context: CommandContext, line: string): Promise<void | 'exit'> {
  const match = /^\/(\S*)\s*([\s\S]*)$/.exec(line.trim())!;
  const name = match[1]!.toLowerCase();
  const command = commands.find((candidate) => candidate.name === name);
  if (command === undefined) {
    const suggestion = closest(
      name,
      commands.map((candidate) => candidate.name),
    );
    context.say(
      red(
        context.screen,
        `unknown command '/${name}'${suggestion === undefined ? '' : ` (did you mean '/${suggestion}'?)`} — /help lists them`,
      ),
    );
    return;
  }
  return command.run(context, match[2]!.trim());
}
