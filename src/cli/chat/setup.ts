/**
 * The front door the `chat`, `ask` and `models` commands share: the config file (when given), keys
 * from the environment, and — with no API key anywhere — the built-in emulator on 127.0.0.1 behind
 * the Anthropic, OpenAI and Gemini adapters, so the commands work offline on a fresh machine.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { closest } from '../../core/closest.ts';
import type { Logger } from '../../core/logger.ts';
import { bundledCatalog } from '../../providers/catalog/index.ts';
import { presets } from '../../providers/openai-compatible/presets.ts';
import { aliasRules, aliasTarget } from '../../registry/defaults.ts';
import { loadConfigFile, type McpServerEntry, type SwitchyardConfig } from '../../registry/config.ts';
import { createSwitchyard, type Switchyard } from '../../switchyard.ts';
import type { ConversationRecord } from './store.ts';

/** A ready front door and what the commands need to know about how it was made. */
export interface FrontDoor {
  sy: Switchyard;
  /** The model used when `-m` is not given. */
  defaultModel: string;
  /** Set when serving from the built-in emulator: the one line to tell the user. */
  emulatorNotice?: string;
  /** `mcp_servers:` of the config file. */
  mcpServers: Record<string, McpServerEntry>;
  close(): Promise<void>;
}

/** What the front door of a command is built from. */
export interface FrontDoorOptions {
  /** `--config FILE`. */
  config?: string;
  env?: Record<string, string | undefined>;
  logger?: Logger;
}

/** The answer the emulator gives in offline mode (Markdown, to show the rendering). */
const emulatorAnswer =
  'This answer comes from the **Switchyard emulator** (offline, scripted). Set `ANTHROPIC_API_KEY`, ' +
  '`OPENAI_API_KEY` or `GEMINI_API_KEY` to talk to a real model.\n\n' +
  "Meanwhile, try `/model gpt-mini`, `/models` or `/cost`:\n\n```ts\nconst sy = createSwitchyard();\nawait sy.complete({ model: 'sonnet', transcript });\n```\n";

/** The data folder: `$SWITCHYARD_DATA_DIR`, else `$XDG_DATA_HOME/switchyard`, else `~/.local/share/switchyard`. */
export function dataDirectory(env: Record<string, string | undefined> = process.env): string {
  if (env.SWITCHYARD_DATA_DIR !== undefined && env.SWITCHYARD_DATA_DIR !== '') return env.SWITCHYARD_DATA_DIR;
  const base =
    env.XDG_DATA_HOME !== undefined && env.XDG_DATA_HOME !== ''
      ? env.XDG_DATA_HOME
      : join(homedir(), '.local', 'share');
  return join(base, 'switchyard');
}

/** True when `provider` is configured with a key (local servers that need none do not count). */
function hasKey(provider: { name: string; configured: boolean }): boolean {
  if (!provider.configured) return false;
  const preset = (presets as Record<string, { quirks: { apiKeyRequired?: boolean } } | undefined>)[
    provider.name
  ];
  return preset === undefined || preset.quirks.apiKeyRequired === true;
}

/** The proxy variables the default (undici) transport honours and Node's built-in `fetch` does not. */
const proxyVariables = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'];

/**
 * The commands' transport: Node's built-in `fetch` (part of Node, as the provider SDKs use), so a
 * one-question process does not load the pooled `undici` transport (~110 modules) — unless a proxy
 * variable is set, which only that transport honours.
 */
export function commandFetch(
  env: Record<string, string | undefined> = process.env,
): typeof fetch | undefined {
  const proxied = proxyVariables.some((name) => (env[name]?.trim() ?? '') !== '');
  return proxied ? undefined : globalThis.fetch;
}

/**
 * The first configured provider's balanced model (else its first), in the providers' order. An
 * adapter named otherwise than its provider (`work-claude` of type `anthropic`) lists its
 * provider's catalog without the default aliases, which name the provider's own adapter
 * (`sonnet` is `anthropic:…`): its balanced model is the one that alias names, under its name.
 */
function pickDefaultModel(sy: Switchyard): string | undefined {
  const provider = sy.providers().find(hasKey);
  if (provider === undefined) return undefined;
  const models = sy.models().filter((model) => model.provider === provider.name);
  const balanced = models.find((model) => model.tier === 'balanced' && model.aliases.length > 0);
  if (balanced !== undefined) return balanced.aliases[0];
  const chosen = models[0];
  if (chosen === undefined) return undefined;
  return ownBalancedModel(sy, provider.name, chosen.id) ?? chosen.aliases[0] ?? chosen.id;
}

/**
 * Under an adapter named otherwise than its provider, the model its provider's default balanced
 * alias names (`work-claude:claude-sonnet-4-5` for `sonnet`, `anthropic:claude-sonnet-4-5`; with
 * `builtins: false` too, which has no such alias), when the adapter serves it. `listed` is one of
 * the adapter's models, which says whose catalog it lists.
 */
function ownBalancedModel(sy: Switchyard, name: string, listed: string): string | undefined {
  const own = sy.resolve(listed).ownName;
  const rule = aliasRules.find((candidate) => candidate.provider === own && candidate.tier === 'balanced');
  if (own === undefined || rule === undefined) return undefined;
  const id = `${name}:${aliasTarget(rule, bundledCatalog[own])}`;
  try {
    return sy.resolve(id).configured ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Builds the front door. With `--config` it is the config's; without, the environment's keys; with
 * no key anywhere (and no config), the emulator serves `anthropic`, `openai` and `gemini`.
 */
export async function openFrontDoor(options: FrontDoorOptions = {}): Promise<FrontDoor> {
  const config: SwitchyardConfig = options.config === undefined ? {} : loadConfigFile(options.config);
  const { mcp_servers: mcpServers = {}, ...frontDoorConfig } = config;
  const sy = createSwitchyard({
    config: frontDoorConfig,
    env: options.env,
    logger: options.logger,
    fetch: commandFetch(options.env),
  });
  if (sy.providers().some(hasKey) || options.config !== undefined) {
    let defaultModel: string | undefined;
    return {
      sy,
      // Listing every model's facts is work `-m MODEL` never needs: done only when asked.
      get defaultModel() {
        if (defaultModel === undefined) {
          const fallback = sy.models().find((listing) => listing.configured);
          defaultModel = pickDefaultModel(sy) ?? fallback?.aliases[0] ?? fallback?.id ?? 'sonnet';
        }
        return defaultModel;
      },
      mcpServers,
      close: () => sy.close(),
    };
  }
  await sy.close();
  return emulatorFrontDoor(options.env, options.logger);
}

async function emulatorFrontDoor(
  env: Record<string, string | undefined> | undefined,
  logger: Logger | undefined,
): Promise<FrontDoor> {
  const { startEmulator } = await import('../../testing/emulator/index.ts');
  const emulator = await startEmulator();
  emulator.setDefault({
    type: 'scripted',
    content: [{ type: 'text', text: emulatorAnswer }],
    usage: { input: 40, output: 90 },
    enforce: false,
  });
  const adapter = (type: string, path: string) => ({
    type,
    base_url: `${emulator.url}${path}`,
    api_key: 'emulator',
    max_retries: 0,
  });
  const sy = createSwitchyard({
    config: {
      adapters: {
        anthropic: adapter('anthropic', '/v1'),
        openai: adapter('openai', '/v1'),
        gemini: adapter('gemini', '/v1beta'),
      },
    },
    env,
    logger,
    fetch: commandFetch(env),
  });
  return {
    sy,
    defaultModel: 'sonnet',
    emulatorNotice:
      'No API key found (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY): using the built-in emulator — answers are scripted.',
    mcpServers: {},
    async close() {
      await sy.close();
      await emulator.close();
    },
  };
}

/**
 * Why `name` cannot be used as a model, or `undefined`: a name nothing resolves, or a bare name only
 * a glob serves that is no known model but close to one (`gpt-mnii`, served by `openai:gpt-*`: most
 * likely a typo; `openai:gpt-mnii` says it is meant). The message names the closest known model.
 */
export function modelProblem(sy: Switchyard, name: string, listHint: string): string | undefined {
  let resolved;
  try {
    resolved = sy.resolve(name);
  } catch {
    resolved = undefined;
  }
  if (resolved !== undefined && (resolved.matchedBy !== 'glob' || name.includes(':'))) return undefined;
  const names = sy.models().flatMap((listing) => [...listing.aliases, listing.id]);
  if (resolved !== undefined && names.includes(resolved.id)) return undefined;
  const suggestion = closest(name, names);
  if (resolved !== undefined && suggestion === undefined) return undefined;
  return `unknown model '${name}'${suggestion === undefined ? ` — ${listHint}` : ` (did you mean '${suggestion}'?)`}`;
}

/**
 * The model to continue a logged conversation on. The log keeps the name it was on as given, which
 * may be an alias of a config not used now (`--resume` without `--config`): then the model of its
 * last answer (a canonical id), said in `note`; `problem` when that is not known here either.
 */
export function resumableModel(
  sy: Switchyard,
  record: Pick<ConversationRecord, 'model' | 'turns'>,
): { model: string; note?: string } | { problem: string } {
  if (modelProblem(sy, record.model, '') === undefined) return { model: record.model };
  const last = record.turns.at(-1)?.model;
  if (last !== undefined && modelProblem(sy, last, '') === undefined)
    return {
      model: last,
      note: `model '${record.model}' is not in this configuration: continuing on ${last}, the model of its last answer (-m MODEL picks another)`,
    };
  return {
    problem: `this conversation was on model '${record.model}', which this configuration does not know: give -m MODEL (or its --config) to continue it`,
  };
}
