/** The `switchyard` commands: what each accepts, its help text, and how it runs (loaded only when run). */
import type { ProviderTypeTable } from '../registry/provider-type-table.ts';
import { cliProviderTypeNames, cliProviderTypes, resolveProviderType } from './adapters.ts';
import { type ArgumentSpec, helpOption, type OptionSpec, type ParsedArguments, UsageError } from './args.ts';
import type { Output } from './replay-command.ts';

/** One subcommand. */
export interface Command extends ArgumentSpec {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** What follows `switchyard <name>` in the usage line. */
  synopsis: string;
  /** The paragraph of `switchyard <name> --help`. */
  description: string;
  run(parsed: ParsedArguments, output: Output): Promise<number>;
}

const demo: Command = {
  name: 'demo',
  summary: 'run a scripted session that switches provider mid-conversation (offline)',
  synopsis: '',
  description:
    'Runs one conversation through Anthropic, OpenAI and Gemini adapters in turn, against the\n' +
    'provider emulator on 127.0.0.1: tool calls, reasoning and ids carried across providers.',
  options: {},
  positionals: [],
  async run(_, output) {
    const { runDemo } = await import('./demo-command.ts');
    return runDemo(output);
  },
};

const emulator: Command = {
  name: 'emulator',
  summary: 'start the provider emulator on 127.0.0.1 and log each request',
  synopsis: '[--port N]',
  description:
    "Serves the providers' wire protocols on 127.0.0.1 (scripted answers), prints its URL on stdout\n" +
    'and one line per request served (method, path, status) on stderr. Ctrl-C stops it.',
  options: {
    port: { type: 'string', placeholder: 'N', description: 'port to listen on (default 0: any free port)' },
  },
  positionals: [],
  async run(parsed, output) {
    const text = typeof parsed.values.port === 'string' ? parsed.values.port : '0';
    const port = Number(text);
    if (!/^\d+$/.test(text) || port > 65_535)
      throw new UsageError(`invalid --port '${text}' (expected 0–65535)`);
    const { runEmulator } = await import('./emulator-command.ts');
    return runEmulator(port, output);
  },
};

const serve: Command = {
  name: 'serve',
  summary: 'run the HTTP gateway: every provider protocol inbound, any provider outbound',
  synopsis: '[--config FILE] [--host H] [--port N] [--emulator]',
  description:
    'Serves OpenAI Chat Completions, OpenAI Responses, Anthropic Messages and Gemini at their standard\n' +
    'paths, routed through the front door (config: adapters, models, aliases, fallbacks, gateway.keys).\n' +
    '--emulator serves the built-in emulator as every upstream (offline, no keys). Without\n' +
    'gateway.keys only a loopback host is allowed. SIGTERM shuts down gracefully.',
  options: {
    config: {
      type: 'string',
      placeholder: 'FILE',
      description: 'YAML/JSON config (front door sections + gateway:)',
    },
    host: { type: 'string', placeholder: 'H', description: 'host to listen on (default 127.0.0.1)' },
    port: {
      type: 'string',
      placeholder: 'N',
      description: 'port to listen on (default 4000; 0: any free port)',
    },
    emulator: { type: 'boolean', description: 'serve the built-in emulator as every upstream' },
  },
  positionals: [],
  async run(parsed, output) {
    const text = typeof parsed.values.port === 'string' ? parsed.values.port : '4000';
    const port = Number(text);
    if (!/^\d+$/.test(text) || port > 65_535)
      throw new UsageError(`invalid --port '${text}' (expected 0–65535)`);
    const { runServe } = await import('./serve-command.ts');
    return runServe(
      {
        config: typeof parsed.values.config === 'string' ? parsed.values.config : undefined,
        host: typeof parsed.values.host === 'string' ? parsed.values.host : '127.0.0.1',
        port,
        emulator: parsed.values.emulator === true,
      },
      output,
    );
  },
};

/** `replay`, accepting the `--protocol` names of `providerTypes` (wire protocols, then provider types). */
function replayCommand(providerTypes: ProviderTypeTable): Command {
  const names = cliProviderTypeNames(providerTypes);
  return {
    name: 'replay',
    summary: "run a recorded provider response through that protocol's real adapter",
    synopsis: `<file> --protocol <${names.join('|')}>`,
    description:
      "Serves <file> from the emulator and runs it through the protocol's real adapter over loopback:\n" +
      'a .chunks.txt, .sse or .eventstream.base64.txt (Bedrock) file as a stream, a .json file as a\n' +
      'complete call. Prints one canonical event per line as JSON, the last being finish. Exit 0 on\n' +
      'success, 1 on a classified error (its class on stderr), 2 on bad usage. --protocol takes a\n' +
      'wire protocol or a provider type (--api is a deprecated alias of --protocol).',
    options: {
      protocol: {
        type: 'string',
        placeholder: 'PROTOCOL',
        description: `wire protocol or provider type: ${names.join(', ')}`,
      },
      api: { type: 'string', placeholder: 'PROTOCOL', description: 'deprecated alias of --protocol' },
    },
    positionals: ['file'],
    async run(parsed, output) {
      const name = parsed.values.protocol ?? parsed.values.api;
      if (name === undefined) throw new UsageError(`missing --protocol (one of ${names.join(', ')})`);
      const definition = resolveProviderType(String(name), providerTypes);
      const { runReplay } = await import('./replay-command.ts');
      return runReplay(parsed.positionals[0]!, definition, output);
    },
  };
}

const stringValue = (value: string | boolean | undefined) => (typeof value === 'string' ? value : undefined);

const chat: Command = {
  name: 'chat',
  summary: 'chat in the terminal with any model; swap provider mid-conversation',
  synopsis: '[-m MODEL] [--system TEXT] [--config FILE] [--continue | --resume ID]',
  description:
    'An interactive chat over the front door and the agent loop: answers stream, Markdown rendered;\n' +
    'a status line after each answer (tokens, cost of the turn and in total, context used). /model swaps\n' +
    'provider mid-conversation, /help lists the commands. MCP servers of the config (mcp_servers:) become\n' +
    'tools, each call asked for (y/n/a). Every conversation is logged in $XDG_DATA_HOME/switchyard\n' +
    '(SWITCHYARD_DATA_DIR overrides). With no API key anywhere it runs on the built-in emulator.',
  options: {
    model: {
      type: 'string',
      short: 'm',
      placeholder: 'MODEL',
      description: 'model name, alias or provider:model',
    },
    system: { type: 'string', placeholder: 'TEXT', description: 'system prompt' },
    config: { type: 'string', placeholder: 'FILE', description: 'Switchyard config (YAML or JSON)' },
    continue: { type: 'boolean', short: 'c', description: 'continue the most recent conversation' },
    resume: {
      type: 'string',
      placeholder: 'ID',
      description: 'continue a logged conversation (id or /save name)',
    },
  },
  positionals: [],
  async run(parsed) {
    const values = parsed.values;
    if (values.continue === true && values.resume !== undefined)
      throw new UsageError('--continue and --resume cannot be combined');
    const { runChat } = await import('./chat/repl.ts');
    return runChat({
      model: stringValue(values.model),
      system: stringValue(values.system),
      config: stringValue(values.config),
      continue: values.continue === true,
      resume: stringValue(values.resume),
    });
  },
};

const ask: Command = {
  name: 'ask',
  summary: 'ask one question; the answer streams to stdout',
  synopsis: '[-m MODEL] [--json] [--config FILE] [PROMPT...]',
  description:
    'One-shot: sends PROMPT (and piped stdin, e.g. cat file | switchyard ask summarize) and streams the\n' +
    'answer. --json prints canonical stream events, one per line. Exit 0 on success (also when stdout\n' +
    'closes early, as with | head -1), 1 on a provider error (its class and message on stderr), 2 on\n' +
    'bad usage. On a terminal the answer is cleaned of control sequences (escapes, C1 controls), as\n' +
    'in chat; piped or redirected it is the text as the model sent it.',
  options: {
    model: {
      type: 'string',
      short: 'm',
      placeholder: 'MODEL',
      description: 'model name, alias or provider:model',
    },
    config: { type: 'string', placeholder: 'FILE', description: 'Switchyard config (YAML or JSON)' },
    json: { type: 'boolean', description: 'print canonical events as JSON lines' },
  },
  positionals: [],
  rest: 'PROMPT',
  async run(parsed, output) {
    const { runAsk } = await import('./ask-command.ts');
    return runAsk(
      {
        model: stringValue(parsed.values.model),
        config: stringValue(parsed.values.config),
        json: parsed.values.json === true,
        prompt: parsed.positionals.join(' '),
      },
      output,
    );
  },
};

const models: Command = {
  name: 'models',
  summary: 'list every known model: aliases, limits, prices, configured',
  synopsis: '[--provider NAME] [--json] [--config FILE]',
  description:
    'Every known model with its aliases, context window, output limit, input and output price per\n' +
    'million tokens (USD) and whether its provider is configured (has a key).',
  options: {
    provider: { type: 'string', placeholder: 'NAME', description: 'only the models of this provider' },
    config: { type: 'string', placeholder: 'FILE', description: 'Switchyard config (YAML or JSON)' },
    json: { type: 'boolean', description: 'print JSON' },
  },
  positionals: [],
  async run(parsed, output) {
    const { runModels } = await import('./models-command.ts');
    return runModels(
      {
        provider: stringValue(parsed.values.provider),
        config: stringValue(parsed.values.config),
        json: parsed.values.json === true,
      },
      output,
    );
  },
};

const history: Command = {
  name: 'history',
  summary: 'list logged chat conversations',
  synopsis: '[--search TEXT] [--json]',
  description:
    'The conversations `switchyard chat` logged (newest first): id, name, model, turns, cost, title.\n' +
    '--search matches message text, titles and names. Continue one with switchyard chat --resume ID.',
  options: {
    search: { type: 'string', placeholder: 'TEXT', description: 'only conversations containing TEXT' },
    json: { type: 'boolean', description: 'print JSON' },
  },
  positionals: [],
  async run(parsed, output) {
    const { runHistory } = await import('./history-command.ts');
    return runHistory(
      { search: stringValue(parsed.values.search), json: parsed.values.json === true },
      output,
    );
  },
};

/** Every subcommand, in help order; `replay --protocol` accepts the rows of `providerTypes`. */
export function createCommands(providerTypes: ProviderTypeTable = cliProviderTypes): Command[] {
  return [chat, ask, models, history, demo, emulator, replayCommand(providerTypes), serve];
}

/** The `switchyard <command> --help` text. */
export function commandHelp(command: Command): string {
  const options: Array<[string, OptionSpec]> = [...Object.entries(command.options), ['help', helpOption]];
  const rows = options.map(([name, option]) => {
    const flag = `${option.short === undefined ? '    ' : `-${option.short}, `}--${name}`;
    return [option.placeholder === undefined ? flag : `${flag} ${option.placeholder}`, option.description];
  });
  const width = Math.max(...rows.map(([flag]) => flag!.length)) + 3;
  return [
    `usage: switchyard ${command.name}${command.synopsis === '' ? '' : ` ${command.synopsis}`}`,
    '',
    command.description,
    '',
    'options:',
    ...rows.map(([flag, description]) => `  ${flag!.padEnd(width)}${description}`),
  ].join('\n');
}

/** The `switchyard help` text. */
export function mainHelp(version: string, commands: Command[] = createCommands()): string {
  const width = Math.max(...commands.map((command) => command.name.length)) + 3;
  return [
    `switchyard ${version} — one canonical transcript for every LLM provider`,
    '',
    'usage: switchyard <command> [options]',
    '',
    'commands:',
    ...commands.map((command) => `  ${command.name.padEnd(width)}${command.summary}`),
    `  ${'help'.padEnd(width)}show help for a command: switchyard help <command>`,
    '',
    'options:',
    '  -h, --help      show this help',
    '  -v, --version   print the version',
    '',
    "Run 'switchyard <command> --help' for a command's options.",
  ].join('\n');
}
