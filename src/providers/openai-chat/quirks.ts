/** The flags that describe how one Chat Completions host differs: plain JSON data, validated with zod. */
import { z } from 'zod';
import { capabilityOverridesSchema } from '../../core/capabilities-schema.ts';
import type { Capabilities } from '../../core/capabilities.ts';
import { type ModelCapabilities, openaiModelCapabilities } from '../openai/capabilities.ts';
import { providerTable } from '../common/provider-table.ts';
import { openaiEffortValues, type ReasoningEffortValue } from '../openai/reasoning.ts';

export type { ModelCapabilities } from '../openai/capabilities.ts';

/** Where a host reads the output limit. */
export type MaxTokensField = 'max_completion_tokens' | 'max_tokens';

/** A response field carrying reasoning text (`reasoning_details` is OpenRouter's structured array). */
export type ReasoningField = 'reasoning_content' | 'reasoning' | 'reasoning_details';

/**
 * Which of the host's own reasoning goes back in the history: none, only on assistant messages that
 * carry tool calls (DeepSeek / Kimi thinking mode answer 400 without it), or all of it.
 */
export type ReasoningReplay = 'drop' | 'tool-turns' | 'all';

/**
 * How a request asks for reasoning: `reasoning_effort` (OpenAI, Groq, xAI, Cerebras, Ollama),
 * `reasoning-object` (OpenRouter `reasoning: {effort | max_tokens}`), `enable_thinking` (Qwen on
 * DashScope, with `thinking_budget`), or `none` (the model decides; the request's setting is dropped
 * with a WARN).
 */
export type ReasoningParameter = 'reasoning_effort' | 'reasoning-object' | 'enable_thinking' | 'none';

export type { ReasoningEffortValue } from '../openai/reasoning.ts';

/** What `response_format` the host understands for an output schema. */
export type StructuredOutputMode = 'json_schema' | 'json_object' | 'none';

/** The tool-call id rule of `core/tool-id-map.ts` the host imposes. */
export type ToolIdRuleName = 'any' | 'openai' | 'nine-alphanumeric' | 'anthropic';

/**
 * One row of the host table. Every field is plain JSON, so a host can be defined in a config file
 * and checked with {@link parseQuirks}. A new host is a new row, never new protocol code.
 */
export interface ChatQuirks {
  /** Default base URL, ending before `/chat/completions`. */
  baseURL: string;
  /** Whether calls need an API key (local servers do not). */
  apiKeyRequired: boolean;
  /** Environment variable holding the key, read when no key is passed. */
  apiKeyEnv?: string;
  maxTokensField: MaxTokensField;
  /** Role of the leading instruction message. */
  instructionRole: 'system' | 'developer';
  /** Model globs whose instruction message uses `developer` whatever `instructionRole` says. */
  developerRoleModels: string[];
  /**
   * Model globs whose instructions go in a leading `user` message: models that reject both the
   * `developer` and the `system` role (OpenAI o1-mini, o1-preview). Wins over `developerRoleModels`.
   */
  instructionsAsUserModels: string[];
  /**
   * Whether the host takes instruction messages anywhere in the conversation (OpenAI): a system,
   * developer or context item after the conversation's first other item stays in place, as its own
   * message of the instruction role. Otherwise (the default: chat templates that refuse a late system
   * message) it is joined into the leading one, with the WARN `warnMovedInstructions`.
   */
  instructionsInPlace: boolean;
  /** Model globs that reject `temperature` / `top_p` (reasoning models); both are dropped with a WARN. */
  samplingUnsupportedModels: string[];
  /**
   * Model globs that reject `stop`, `presence_penalty` and `frequency_penalty` (xAI reasoning
   * models); each is dropped with a WARN, pass-through options included.
   */
  stopUnsupportedModels: string[];
  /**
   * The most stop sequences the host takes (OpenAI: 4). With more, the first this many are sent and
   * Switchyard applies every one itself (`stopSequencesWithin`); only past what it emulates is a
   * request refused.
   */
  maxStopSequences?: number;
  /** Send `stream_options: {include_usage: true}` when streaming (false for hosts that reject it). */
  streamOptions: boolean;
  /** Response fields read as reasoning text, in order; the first one present in a message or delta wins. */
  reasoningFields: ReasoningField[];
  reasoningReplay: ReasoningReplay;
  /** The assistant-message field replayed reasoning is sent in. */
  reasoningReplayField: ReasoningField;
  /**
   * With `reasoningReplay: 'tool-turns'`: what the replay field holds on an assistant message with
   * tool calls that carries none of the host's own reasoning (calls another provider made, after a
   * switch mid tool loop): thinking mode refuses the message without the field. Default `''`
   * (DeepSeek's fix, continuedev/continue#11285); Moonshot `'.'`, as Kimi takes an empty one for
   * missing.
   */
  reasoningReplayPlaceholder: string;
  reasoningParameter: ReasoningParameter;
  /**
   * With `reasoningParameter: 'reasoning_effort'`: the model globs that take `reasoning_effort`
   * (`['*']`: every model). For other models a requested effort is dropped with a WARN (xAI takes it
   * on `grok-3-mini*` only).
   */
  reasoningEffortModels: string[];
  /**
   * Per-model-glob effort levels the model accepts (later keys win; no match: any level). A level the
   * model lacks becomes the lowest accepted level at or above it, else the highest one (xAI
   * `['low', 'high']`: minimal/low → low, medium/high → high; OpenAI gpt-5.1+: minimal → low).
   */
  reasoningEffortValues: Record<string, ReasoningEffortValue[]>;
  /**
   * With `reasoningParameter: 'enable_thinking'`: the host rejects `enable_thinking: true` without
   * streaming (DashScope), so non-streaming calls always send `enable_thinking: false` (Qwen3 open
   * models think by default) and a requested reasoning setting is dropped with a WARN.
   */
  thinkingRequiresStream: boolean;
  /** False when `completion_tokens` excludes `reasoning_tokens` (xAI); the adapter then adds them. */
  reasoningTokensInCompletion: boolean;
  toolIdRule: ToolIdRuleName;
  structuredOutput: StructuredOutputMode;
  /** Whether the host accepts `strict` on function tools and json_schema formats. */
  strict: boolean;
  /** Whether the host accepts `parallel_tool_calls`. */
  parallelToolCalls: boolean;
  /** Whether the host takes `prompt_cache_key` (OpenAI's cache routing key, `cache.key`). */
  promptCacheKey: boolean;
  /** Whether the host accepts `top_k` (otherwise a requested topK is dropped with a WARN). */
  topK: boolean;
  /**
   * Model globs that take the top-level `verbosity` (`low`, `medium`, `high`: OpenAI's GPT-5
   * family); for other models a requested verbosity is dropped with a WARN. Default none.
   */
  verbosityModels: string[];
  /** Look for error objects inside 200 bodies and stream chunks (`{"error": {...}}`, `event: error`). */
  inBandErrors: boolean;
  /**
   * The host ends streams with `[DONE]` (or by closing the body) without ever sending a
   * `finish_reason`. Off everywhere by default and in every preset: every recorded host sends one,
   * and without it a stream cut short cannot be told from a finished one. Set it only for a host
   * shown to omit the signal; its streams then end `completed` (or `tool-call`) at `[DONE]` or the
   * end of the body, with no truncation check.
   */
  omitsFinishReason: boolean;
  /** How the key is sent: `Authorization: Bearer <key>`, or Azure's `api-key: <key>`. */
  authHeader: 'bearer' | 'api-key';
  /**
   * The endpoint path after the base URL; `{model}` stands for the wire model name (Azure
   * deployment URLs: `/deployments/{model}/chat/completions`).
   */
  chatPath: string;
  /** Sent as the `api-version` query parameter when set (Azure). */
  apiVersion?: string;
  /** Capabilities of every model on the host (over a text-and-tools baseline). */
  capabilities: Partial<Capabilities>;
  /** Per-model-glob capability overrides, applied in key order after `capabilities`. */
  models: ModelCapabilities;
}

/**
 * The behaviour of a faithful Chat Completions host: what a host row starts from. Its base URL is
 * empty; a host defined without a preset must give one.
 */
export const defaultQuirks: ChatQuirks = {
  baseURL: '',
  apiKeyRequired: false,
  maxTokensField: 'max_tokens',
  instructionRole: 'system',
  developerRoleModels: [],
  instructionsAsUserModels: [],
  instructionsInPlace: false,
  samplingUnsupportedModels: [],
  stopUnsupportedModels: [],
  streamOptions: true,
  reasoningFields: ['reasoning_content', 'reasoning'],
  reasoningReplay: 'drop',
  reasoningReplayField: 'reasoning_content',
  reasoningReplayPlaceholder: '',
  reasoningParameter: 'reasoning_effort',
  reasoningEffortModels: ['*'],
  // OpenAI's open-weight models, wherever they are hosted, take low to high: off cannot be asked.
  reasoningEffortValues: { '*gpt-oss*': ['low', 'medium', 'high'] },
  thinkingRequiresStream: false,
  reasoningTokensInCompletion: true,
  toolIdRule: 'openai',
  structuredOutput: 'json_schema',
  strict: false,
  parallelToolCalls: true,
  promptCacheKey: false,
  topK: false,
  verbosityModels: [],
  inBandErrors: true,
  omitsFinishReason: false,
  authHeader: 'bearer',
  chatPath: '/chat/completions',
  capabilities: {},
  models: openaiModelCapabilities,
};

const reasoningField = z.enum(['reasoning_content', 'reasoning', 'reasoning_details']);
const effortValue = z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']);

/** The zod schema of a (partial) quirk object; unknown keys are rejected so typos surface. */
export const quirksSchema = z
  .object({
    baseURL: z.string(),
    apiKeyRequired: z.boolean(),
    apiKeyEnv: z.string().min(1),
    maxTokensField: z.enum(['max_completion_tokens', 'max_tokens']),
    instructionRole: z.enum(['system', 'developer']),
    developerRoleModels: z.array(z.string()),
    instructionsAsUserModels: z.array(z.string()),
    instructionsInPlace: z.boolean(),
    samplingUnsupportedModels: z.array(z.string()),
    stopUnsupportedModels: z.array(z.string()),
    maxStopSequences: z.number().int().positive().optional(),
    streamOptions: z.boolean(),
    reasoningFields: z.array(reasoningField),
    reasoningReplay: z.enum(['drop', 'tool-turns', 'all']),
    reasoningReplayField: reasoningField,
    reasoningReplayPlaceholder: z.string(),
    reasoningParameter: z.enum(['reasoning_effort', 'reasoning-object', 'enable_thinking', 'none']),
    reasoningEffortModels: z.array(z.string()),
    reasoningEffortValues: z.record(z.string(), z.array(effortValue).min(1)),
    thinkingRequiresStream: z.boolean(),
    reasoningTokensInCompletion: z.boolean(),
    toolIdRule: z.enum(['any', 'openai', 'nine-alphanumeric', 'anthropic']),
    structuredOutput: z.enum(['json_schema', 'json_object', 'none']),
    strict: z.boolean(),
    parallelToolCalls: z.boolean(),
    promptCacheKey: z.boolean(),
    topK: z.boolean(),
    verbosityModels: z.array(z.string()),
    inBandErrors: z.boolean(),
    omitsFinishReason: z.boolean(),
    authHeader: z.enum(['bearer', 'api-key']),
    chatPath: z.string().regex(/^\//, 'a path starting with /'),
    apiVersion: z.string().min(1),
    capabilities: capabilityOverridesSchema,
    models: z.record(z.string(), capabilityOverridesSchema),
  })
  .partial()
  .strict();

/**
 * Validates quirks read from JSON (any subset of the fields) and completes them from `base`
 * (default: {@link defaultQuirks}). Throws a `TypeError` naming every invalid field.
 */
export function parseQuirks(json: unknown, base: ChatQuirks = defaultQuirks): ChatQuirks {
  const result = quirksSchema.safeParse(json);
  if (!result.success) {
    const problems = result.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new TypeError(`invalid OpenAI-compatible quirks: ${problems.join('; ')}`);
  }
  return mergeQuirks(base, result.data as Partial<ChatQuirks>);
}

/**
 * `base` with `override`'s defined fields on top; `capabilities`, `models` and
 * `reasoningEffortValues` merge key by key.
 */
export function mergeQuirks(base: ChatQuirks, override: Partial<ChatQuirks> | undefined): ChatQuirks {
  // Always a new object (nested tables too): callers set fields on the result, and returning `base`
  // itself once let one host's `baseURL` become every later host's default.
  const merged: ChatQuirks = { ...base };
  for (const key of Object.keys(override ?? {}) as Array<keyof ChatQuirks>) {
    if (override?.[key] !== undefined) (merged as unknown as Record<string, unknown>)[key] = override[key];
  }
  merged.capabilities = { ...base.capabilities, ...override?.capabilities };
  merged.models = { ...base.models, ...override?.models };
  merged.reasoningEffortValues = { ...base.reasoningEffortValues, ...override?.reasoningEffortValues };
  return merged;
}

/**
 * OpenAI itself. Instruction messages stay where the conversation has them. Reasoning models
 * (o-series, gpt-5) take `developer` instructions and reject
 * sampling parameters; o1-mini and o1-preview take neither `developer` nor `system` messages, so
 * their instructions lead as a `user` message; their effort levels are `openaiEffortValues`.
 * Model families are declared in `capabilities.ts`.
 */
export const openaiQuirks: ChatQuirks = {
  ...defaultQuirks,
  baseURL: providerTable.openai.baseURL,
  apiKeyRequired: true,
  apiKeyEnv: providerTable.openai.keyVariables[0],
  maxTokensField: 'max_completion_tokens',
  developerRoleModels: ['o1', 'o1-2*', 'o1-pro*', 'o3*', 'o4*', 'gpt-5*'],
  instructionsAsUserModels: ['o1-mini*', 'o1-preview*'],
  instructionsInPlace: true,
  samplingUnsupportedModels: ['o1*', 'o3*', 'o4*', 'gpt-5*'],
  // "Unsupported parameter: 'stop' is not supported with this model" (o3, o4-mini, gpt-5 and its minor versions).
  stopUnsupportedModels: ['o3*', 'o4*', 'gpt-5*'],
  maxStopSequences: 4,
  reasoningEffortValues: { ...openaiEffortValues },
  strict: true,
  promptCacheKey: true,
  // "Unsupported value: 'low' is not supported with the 'gpt-4.1' model": GPT-5's setting only.
  verbosityModels: ['gpt-5*'],
  capabilities: { images: true, pdf: true, promptCaching: true },
  models: openaiModelCapabilities,
};
