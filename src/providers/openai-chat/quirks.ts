/** The flags that describe how one Chat Completions host differs: plain JSON data, validated with zod. */
import { z } from 'zod';
import type { Capabilities } from '../../core/capabilities.ts';
import { openaiModelCapabilities } from './capabilities.ts';

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

/** What `response_format` the host understands for an output schema. */
export type StructuredOutputMode = 'json_schema' | 'json_object' | 'none';

/** The tool-call id rule of `core/tool-id-map.ts` the host imposes. */
export type ToolIdRuleName = 'any' | 'nine-alphanumeric' | 'anthropic';

/** Per-model capability overrides keyed by glob (`*` matches any run of characters); later keys win. */
export type ModelCapabilities = Record<string, Partial<Capabilities>>;

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
  /** Model globs that reject `temperature` / `top_p` (reasoning models); both are dropped with a WARN. */
  samplingUnsupportedModels: string[];
  /** Send `stream_options: {include_usage: true}` when streaming (false for hosts that reject it). */
  streamOptions: boolean;
  /** Response fields read as reasoning text, in order; the first one present in a message or delta wins. */
  reasoningFields: ReasoningField[];
  reasoningReplay: ReasoningReplay;
  /** The assistant-message field replayed reasoning is sent in. */
  reasoningReplayField: ReasoningField;
  reasoningParameter: ReasoningParameter;
  /** False when `completion_tokens` excludes `reasoning_tokens` (xAI); the adapter then adds them. */
  reasoningTokensInCompletion: boolean;
  toolIdRule: ToolIdRuleName;
  structuredOutput: StructuredOutputMode;
  /** Whether the host accepts `strict` on function tools and json_schema formats. */
  strict: boolean;
  /** Whether the host accepts `parallel_tool_calls`. */
  parallelToolCalls: boolean;
  /** Whether the host accepts `top_k` (otherwise a requested topK is dropped with a WARN). */
  topK: boolean;
  /** Look for error objects inside 200 bodies and stream chunks (`{"error": {...}}`, `event: error`). */
  inBandErrors: boolean;
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
  samplingUnsupportedModels: [],
  streamOptions: true,
  reasoningFields: ['reasoning_content', 'reasoning'],
  reasoningReplay: 'drop',
  reasoningReplayField: 'reasoning_content',
  reasoningParameter: 'reasoning_effort',
  reasoningTokensInCompletion: true,
  toolIdRule: 'any',
  structuredOutput: 'json_schema',
  strict: false,
  parallelToolCalls: true,
  topK: false,
  inBandErrors: true,
  capabilities: {},
  models: openaiModelCapabilities,
};

const capabilitiesSchema = z
  .object({
    images: z.boolean(),
    audio: z.boolean(),
    video: z.boolean(),
    pdf: z.boolean(),
    reasoning: z.boolean(),
    tools: z.boolean(),
    parallelToolCalls: z.boolean(),
    structuredOutput: z.boolean(),
    streaming: z.boolean(),
    streamingToolCalls: z.boolean(),
    promptCaching: z.boolean(),
    systemPrompt: z.boolean(),
    contextWindow: z.number().int().positive(),
    maxOutputTokens: z.number().int().positive(),
    imageMediaTypes: z.array(z.string()),
  })
  .partial()
  .strict();

const reasoningField = z.enum(['reasoning_content', 'reasoning', 'reasoning_details']);

/** The zod schema of a (partial) quirk object; unknown keys are rejected so typos surface. */
export const quirksSchema = z
  .object({
    baseURL: z.string(),
    apiKeyRequired: z.boolean(),
    apiKeyEnv: z.string().min(1),
    maxTokensField: z.enum(['max_completion_tokens', 'max_tokens']),
    instructionRole: z.enum(['system', 'developer']),
    developerRoleModels: z.array(z.string()),
    samplingUnsupportedModels: z.array(z.string()),
    streamOptions: z.boolean(),
    reasoningFields: z.array(reasoningField),
    reasoningReplay: z.enum(['drop', 'tool-turns', 'all']),
    reasoningReplayField: reasoningField,
    reasoningParameter: z.enum(['reasoning_effort', 'reasoning-object', 'enable_thinking', 'none']),
    reasoningTokensInCompletion: z.boolean(),
    toolIdRule: z.enum(['any', 'nine-alphanumeric', 'anthropic']),
    structuredOutput: z.enum(['json_schema', 'json_object', 'none']),
    strict: z.boolean(),
    parallelToolCalls: z.boolean(),
    topK: z.boolean(),
    inBandErrors: z.boolean(),
    capabilities: capabilitiesSchema,
    models: z.record(z.string(), capabilitiesSchema),
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

/** `base` with `override`'s defined fields on top; `capabilities` and `models` merge key by key. */
export function mergeQuirks(base: ChatQuirks, override: Partial<ChatQuirks> | undefined): ChatQuirks {
  if (override === undefined) return base;
  const merged: ChatQuirks = { ...base };
  for (const key of Object.keys(override) as Array<keyof ChatQuirks>) {
    if (override[key] !== undefined) (merged as unknown as Record<string, unknown>)[key] = override[key];
  }
  merged.capabilities = { ...base.capabilities, ...override.capabilities };
  merged.models = { ...base.models, ...override.models };
  return merged;
}

/**
 * OpenAI itself. Reasoning models (o-series, gpt-5) take `developer` instructions and reject
 * sampling parameters; model families are declared in `capabilities.ts`.
 */
export const openaiQuirks: ChatQuirks = {
  ...defaultQuirks,
  baseURL: 'https://api.openai.com/v1',
  apiKeyRequired: true,
  apiKeyEnv: 'OPENAI_API_KEY',
  maxTokensField: 'max_completion_tokens',
  developerRoleModels: ['o1*', 'o3*', 'o4*', 'gpt-5*'],
  samplingUnsupportedModels: ['o1*', 'o3*', 'o4*', 'gpt-5*'],
  strict: true,
  capabilities: { images: true, pdf: true, promptCaching: true, maxOutputTokens: 16_384 },
  models: openaiModelCapabilities,
};
