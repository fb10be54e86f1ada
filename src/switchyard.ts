/**
 * `createSwitchyard()`: the front door. One client that takes a model name, knows every model,
 * prices every call and falls back when a provider fails.
 */
import type { AdapterSession, CallOptions } from './core/adapter.ts';
import { type Logger, consoleLogger, guardLogger } from './core/logger.ts';
import {
  Conversation,
  type ConversationRestoreOptions,
  type ConversationSettings,
  type ConversationSnapshot,
} from './conversation/conversation.ts';
import type { Reply } from './core/reply.ts';
import { failedTurn, Turn } from './conversation/turn.ts';
import type { Observer } from './observers/types.ts';
import { createPriceTable, type PriceTable } from './pricing/price-table.ts';
import { createPricer } from './pricing/pricer.ts';
import type { ModelPrices } from './pricing/types.ts';
import { joinModelId } from './core/ids.ts';
import { type ProviderTypeTable, createProviderTypeTable } from './registry/provider-type-table.ts';
import { loadConfigFile, parseConfig, type SwitchyardConfig } from './registry/config.ts';
import type { ModelFacts } from './registry/model-facts.ts';
import { createRegistry, type ModelListing, type ResolvedModel } from './registry/registry.ts';
import { Availability, type AvailabilityPolicy, type AvailabilityStore } from './routing/availability.ts';
import { createRouter, type ReplyHook } from './routing/router.ts';
import { attachStructured } from './schemas/structured.ts';
import { countInputTokens, type TokenCount, type TokenCountOptions } from './switchyard-count.ts';
import {
  checkConversationSettings,
  checkRestoreOptions,
  checkSnapshot,
  checkModelName,
  checkSwitchyardOptions,
  type PreparedRequest,
  prepareRequest,
  type SwitchyardRequest,
} from './switchyard-input.ts';

type PreparedOk = Extract<PreparedRequest, { ok: true }>;

/** Options of {@link createSwitchyard}. */
export interface SwitchyardOptions {
  /** A path to a YAML (or JSON) config file, or the same structure as an object. Default: the bundled providers only. */
  config?: string | SwitchyardConfig;
  /** The environment: API keys, base URLs and proxy variables are read from it (default `process.env`; `process.env` itself works). */
  env?: Record<string, string | undefined>;
  /** A custom fetch for every adapter (proxies, cassettes, tests). */
  fetch?: typeof fetch;
  /**
   * Connections per origin of every adapter's built-in pool (default 64), unless an adapter's
   * config sets its own (`options: { maxConnections }`). Each streamed call holds one; more wait.
   */
  maxConnections?: number;
  /** Where warnings go (default: JSON lines on stderr). */
  logger?: Logger;
  /** Receive call lifecycle events (started, retried, first chunk, completed, failed). */
  observers?: Observer[];
  /**
   * Where availability state lives (default: in memory, this process). A shared store (the Redis
   * one of `switchyard-ai/state`) keeps one circuit per target across every process using it.
   */
  stateStore?: AvailabilityStore;
  /** The clock of the availability state machine (ms since epoch). */
  now?: () => number;
  /**
   * The provider-type table adapters are created from (default: a new table of the built-in rows; to add a
   * wire protocol, `registerProviderType(row, table)` on a table from `createProviderTypeTable()` and pass it here).
   */
  providerTypes?: ProviderTypeTable;
  /** The price table (default: the bundled snapshot with the config's `pricing:` overrides). */
  prices?: PriceTable;
}

/** A resolved model with its merged facts. */
export interface ModelDescription extends ResolvedModel {
  facts: ModelFacts;
}

/** The front door; see {@link createSwitchyard}. */
export interface Switchyard {
  /** Streams one call: iterate for events, or await for the reply. */
  stream(request: SwitchyardRequest, options?: CallOptions): Turn;
  /** One call, resolved with the whole reply (priced, with its routing decision in metadata). */
  complete(request: SwitchyardRequest, options?: CallOptions): Promise<Reply>;
  /** A stateful conversation; `sy.conversation.fromJSON(snapshot)` restores a saved one. */
  conversation: ((settings: ConversationSettings) => Conversation) & {
    /**
     * Restores a saved conversation. `options.providerOptions` are its provider options: a
     * snapshot's own are refused (`invalid_options`), since they reach the provider's request as written.
     */
    fromJSON(snapshot: ConversationSnapshot, options?: ConversationRestoreOptions): Conversation;
  };
  /** Every model known: config entries and the catalog models of every adapter, with facts and status. */
  models(): ModelListing[];
  /** What a name resolves to (exact id, then alias, then glob), with the model's facts. */
  resolve(name: string): ModelDescription;
  /**
   * The prices a call of `name` is costed at, known before the call: its config entry's `pricing`,
   * else the table's row for its id, else for its id under its provider's own name
   * (`ResolvedModel.ownName`: `anthropic:…` for an adapter `work-claude` of type `anthropic`, as its
   * replies are priced); undefined when none prices it. Rejects as `resolve` does for an unknown name.
   */
  pricesOf(name: string): Promise<ModelPrices | undefined>;
  /**
   * A local estimate of a request's input tokens for the model it names: that model's adapter's
   * estimator (calibrated per provider, media at the provider's rates), no network call. Rejects as
   * `resolve` does for an unknown name, and with `not_configured` when the adapter has no key.
   * `stopAbove`: counting may stop once past it, returning a number above it (an exact tokenizer
   * costs time per character: bound the work of a huge input).
   */
  estimateInputTokens(
    request: Pick<SwitchyardRequest, 'model' | 'transcript' | 'tools'>,
    options?: { stopAbove?: number },
  ): Promise<number>;
  /**
   * The provider's own count of a request's input tokens (`exact: true`) where the model's adapter
   * can ask for one (Anthropic's `count_tokens`, Gemini's and Vertex Gemini's `countTokens`, OpenAI
   * Responses' `input_tokens`, Bedrock's `CountTokens` and Vertex's `count-tokens` for Claude: free
   * calls), else the local estimate (`exact: false`). The estimate
   * also answers, with a WARN saying why, when the provider fails to count (429, 5xx, no answer
   * within `timeoutMs`, default 5 s) and, without asking, for a request estimated past 1.5× the
   * model's context window. A provider's 400 (the request is invalid) rejects with its classified
   * error, as does the caller's abort (`CancelledError`, the upstream's request aborted, even where
   * an estimate would answer); an unknown name and a missing key reject as `estimateInputTokens` does.
   */
  countInputTokens(request: SwitchyardRequest, options?: TokenCountOptions): Promise<TokenCount>;
  /** The adapters, with `configured: false` (and the variables to set) where the key is missing. */
  providers(): Array<{ name: string; type: string; configured: boolean; missing?: readonly string[] }>;
  /**
   * Loads the code of every configured adapter now rather than at its first call (a server's
   * start: no first-call delay, and `models()` can then say what each adapter cannot serve as set
   * up). Rejects with the first adapter whose code fails to load; the others are loaded.
   */
  loadAdapters(): Promise<void>;
  /** The availability state machine (per `provider:<name>` and `model:<id>`). */
  readonly availability: Availability;
  readonly prices: PriceTable;
  /**
   * Ends `session` on every adapter: deletes the provider-side state its calls created (Gemini
   * prompt caches). Conversations (`close()`) and agent runs call it when they end.
   */
  endSession(session: AdapterSession): Promise<void>;
  /** Closes every adapter created so far. */
  close(): Promise<void>;
}

/** The reply hook of a prepared request: its output schema's check (if any), then `after` (if any); none without either. */
function hookOf(prepared: PreparedOk, after: ReplyHook | undefined): ReplyHook | undefined {
  const { output, outputSchema } = prepared;
  if (output === undefined || outputSchema === undefined) return after;
  return async (reply, request) => {
    const validated = await attachStructured(reply, output, outputSchema);
    return after === undefined ? validated : after(validated, request);
  };
}

/**
 * Creates the front door. With no options it knows every built-in provider and preset, reads keys
 * from the environment, and serves aliases such as `sonnet`, canonical ids such as
 * `openai:gpt-5-mini` and bare names such as `gemini-2.5-flash`.
 *
 * @example
 * const sy = createSwitchyard();
 * const reply = await sy.complete({ model: 'sonnet', transcript: [userText('Hello!')] });
 * console.log(reply.text, reply.usage.cost);
 */
export function createSwitchyard(given?: SwitchyardOptions): Switchyard {
  const options = checkSwitchyardOptions<SwitchyardOptions>(given);
  const config =
    typeof options.config === 'string' ? loadConfigFile(options.config) : parseConfig(options.config ?? {});
  const logger = guardLogger(options.logger ?? consoleLogger);
  const registry = createRegistry({
    config,
    providerTypes: options.providerTypes ?? createProviderTypeTable(),
    env: options.env ?? process.env,
    fetch: options.fetch,
    maxConnections: options.maxConnections,
    logger,
  });
  const prices = options.prices ?? createPriceTable({ overrides: config.pricing });
  const policy: Partial<AvailabilityPolicy> = {};
  if (config.routing?.failure_threshold !== undefined)
    policy.failureThreshold = config.routing.failure_threshold;
  if (config.routing?.cooldown_seconds !== undefined)
    policy.cooldownMs = config.routing.cooldown_seconds * 1000;
  if (config.routing?.long_retry_after_seconds !== undefined)
    policy.longRetryAfterMs = config.routing.long_retry_after_seconds * 1000;
  if (config.routing?.max_open_seconds !== undefined)
    policy.maxOpenMs = config.routing.max_open_seconds * 1000;
  const availability = new Availability({ store: options.stateStore, policy, now: options.now });
  const router = createRouter({
    registry,
    availability,
    pricer: createPricer(prices, logger),
    observers: options.observers ?? [],
    logger,
  });

  /** Checks a request and streams it with its output-schema hook (then `after`), or a turn failed with the classified error. */
  function stream(request: SwitchyardRequest, callOptions: CallOptions | undefined, after?: ReplyHook): Turn {
    const prepared = prepareRequest(request, callOptions);
    if (!prepared.ok) return new Turn(failedTurn(prepared.error, prepared.model));
    const routed = router.stream(prepared.request, prepared.options, hookOf(prepared, after));
    // Kept with the routed call: the router keeps its last call, turn included (`RouterState.lastCall`).
    return (routed.owner = new Turn(routed));
  }

  /** Checks a request and completes it with its output-schema hook, or rejects with the classified error. */
  function complete(request: SwitchyardRequest, callOptions: CallOptions | undefined): Promise<Reply> {
    const prepared = prepareRequest(request, callOptions);
    if (!prepared.ok) return Promise.reject(prepared.error);
    return router.complete(prepared.request, prepared.options, hookOf(prepared, undefined));
  }

  const endSession = (session: AdapterSession) => registry.endSession(session);
  const sender = (request: SwitchyardRequest, callOptions: CallOptions, onReply: (reply: Reply) => Reply) =>
    stream(request, callOptions, onReply);
  const conversation = Object.assign(
    (settings: ConversationSettings) =>
      new Conversation(sender, checkConversationSettings(settings), undefined, endSession),
    {
      fromJSON: (saved: ConversationSnapshot, options?: ConversationRestoreOptions) => {
        const snapshot = checkSnapshot(saved, checkRestoreOptions(options));
        return new Conversation(sender, snapshot.settings, snapshot, endSession);
      },
    },
  );

  return {
    stream: (request, callOptions) => stream(request, callOptions),
    complete,
    conversation,
    models: () => registry.models(),
    resolve(name) {
      const model = registry.resolve(checkModelName(name));
      return { ...model, facts: router.facts(model) };
    },
    async pricesOf(name) {
      const model = registry.resolve(checkModelName(name));
      const own = model.pricing ?? prices.lookup(model.id);
      // An adapter named otherwise (`work-claude`) is priced by its provider's own name (`anthropic`).
      if (own !== undefined || model.ownName === undefined) return own;
      return prices.lookup(joinModelId(model.ownName, model.wireName));
    },
    async estimateInputTokens({ model: name, transcript, tools }, options) {
      const model = registry.resolve(checkModelName(name));
      await registry.load(model.provider);
      const input = {
        transcript,
        model: model.id,
        ...(tools === undefined ? {} : { tools }),
        ...(options?.stopAbove === undefined ? {} : { stopAbove: options.stopAbove }),
      };
      return registry.adapter(model.provider).estimateInputTokens(input);
    },
    countInputTokens: (request, countOptions) =>
      countInputTokens({ registry, facts: (model) => router.facts(model), logger }, request, countOptions),
    providers: () => registry.providers(),
    async loadAdapters() {
      const configured = registry.providers().filter((provider) => provider.configured);
      const loads = await Promise.allSettled(configured.map((provider) => registry.load(provider.name)));
      const failed = loads.find((load) => load.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
    },
    endSession,
    availability,
    prices,
    close: () => {
      router.forget();
      return registry.close();
    },
  };
}
