/** The host table: one row of quirk flags per OpenAI-compatible host (data, not subclasses). */
import type { ChatQuirks } from '../openai-chat/quirks.ts';
import { providerTable } from '../common/provider-table.ts';
import { xaiCapabilities, xaiModels, xaiReasoningEffortModels } from '../openai/xai.ts';

/** The hosts with a ready preset. */
export type PresetName =
  | 'openrouter'
  | 'groq'
  | 'deepseek'
  | 'xai'
  | 'mistral'
  | 'together'
  | 'fireworks'
  | 'perplexity'
  | 'moonshot'
  | 'alibaba'
  | 'cerebras'
  | 'ollama'
  | 'lmstudio'
  | 'vllm';

/** A host: its adapter name and how it differs from a faithful Chat Completions host (`defaultQuirks`). */
export interface OpenAICompatiblePreset {
  name: PresetName;
  quirks: Partial<ChatQuirks>;
}

const hosted = (apiKeyEnv: string, baseURL: string): Partial<ChatQuirks> => ({
  baseURL,
  apiKeyRequired: true,
  apiKeyEnv,
});

/**
 * The table. Capabilities are the host's common case; routers and local servers serve many models,
 * so their rows are permissive and per-model globs (or the user's `models` override) refine them.
 * Token limits are per model (a row, the models.dev catalog or the user's override), never a
 * host-wide guess: an unknown limit is 0 and not checked locally.
 */
export const presets: { readonly [Name in PresetName]: OpenAICompatiblePreset } = {
  openrouter: {
    name: 'openrouter',
    quirks: {
      ...hosted('OPENROUTER_API_KEY', 'https://openrouter.ai/api/v1'),
      // `reasoning_details` keep signatures / encrypted reasoning; OpenRouter wants them back.
      reasoningFields: ['reasoning_details', 'reasoning'],
      reasoningReplay: 'all',
      reasoningReplayField: 'reasoning_details',
      reasoningParameter: 'reasoning-object',
      strict: true,
      topK: true,
      capabilities: { images: true, pdf: true, reasoning: true },
    },
  },
  groq: {
    name: 'groq',
    quirks: {
      ...hosted('GROQ_API_KEY', 'https://api.groq.com/openai/v1'),
      maxTokensField: 'max_completion_tokens',
      reasoningFields: ['reasoning'],
      // Tool calls arrive whole, in one chunk.
      capabilities: { streamingToolCalls: false },
      models: {
        'meta-llama/llama-4-*': { images: true },
        'qwen/qwen3-*': { reasoning: true },
        'openai/gpt-oss-*': { reasoning: true },
        '*deepseek-r1*': { reasoning: true },
      },
    },
  },
  deepseek: {
    name: 'deepseek',
    quirks: {
      ...hosted('DEEPSEEK_API_KEY', 'https://api.deepseek.com/v1'),
      reasoningFields: ['reasoning_content'],
      // Thinking mode answers 400 unless a tool-call turn's reasoning_content comes back.
      reasoningReplay: 'tool-turns',
      reasoningParameter: 'none',
      structuredOutput: 'json_object',
      parallelToolCalls: false,
      capabilities: { promptCaching: true },
      models: { 'deepseek-reasoner*': { reasoning: true } },
    },
  },
  xai: {
    name: 'xai',
    quirks: {
      ...hosted(providerTable.xai.keyVariables[0], providerTable.xai.baseURL),
      maxTokensField: 'max_completion_tokens',
      reasoningFields: ['reasoning_content'],
      // xAI reports reasoning_tokens beside completion_tokens, not inside them.
      reasoningTokensInCompletion: false,
      // Only grok-3-mini takes reasoning_effort, and only low | high; grok-4 always reasons.
      reasoningEffortModels: xaiReasoningEffortModels,
      reasoningEffortValues: { 'grok-3-mini*': ['low', 'high'] },
      // Reasoning models answer 400 to stop and the penalties.
      stopUnsupportedModels: ['grok-3-mini*', 'grok-4*', 'grok-code*'],
      strict: true,
      // Tool calls arrive whole, in one chunk.
      capabilities: { ...xaiCapabilities, streamingToolCalls: false },
      models: xaiModels,
    },
  },
  mistral: {
    name: 'mistral',
    quirks: {
      ...hosted('MISTRAL_API_KEY', 'https://api.mistral.ai/v1'),
      // Usage always comes in the last chunk; `stream_options` is rejected.
      streamOptions: false,
      // Magistral thinking arrives as `thinking` items of a content array, read whatever this says.
      reasoningFields: [],
      reasoningParameter: 'none',
      toolIdRule: 'nine-alphanumeric',
      strict: true,
      // Tool calls arrive whole, in one chunk.
      capabilities: { streamingToolCalls: false },
      models: {
        'pixtral*': { images: true },
        'mistral-medium*': { images: true },
        'mistral-small*': { images: true },
        'magistral*': { reasoning: true },
      },
    },
  },
  together: {
    name: 'together',
    quirks: {
      ...hosted('TOGETHER_API_KEY', 'https://api.together.xyz/v1'),
      reasoningFields: ['reasoning', 'reasoning_content'],
      topK: true,
      models: {
        '*Vision*': { images: true },
        '*Llama-4*': { images: true },
        '*DeepSeek-R1*': { reasoning: true },
        '*gpt-oss*': { reasoning: true },
      },
    },
  },
  fireworks: {
    name: 'fireworks',
    quirks: {
      ...hosted('FIREWORKS_API_KEY', 'https://api.fireworks.ai/inference/v1'),
      reasoningFields: ['reasoning_content', 'reasoning'],
      topK: true,
      models: {
        '*deepseek-r1*': { reasoning: true },
        '*qwen3*': { reasoning: true },
        '*gpt-oss*': { reasoning: true },
      },
    },
  },
  perplexity: {
    name: 'perplexity',
    quirks: {
      ...hosted('PERPLEXITY_API_KEY', 'https://api.perplexity.ai'),
      streamOptions: false,
      topK: true,
      // Sonar answers with search citations (kept as `perplexity.citations` metadata), not tool calls.
      capabilities: { tools: false, parallelToolCalls: false, streamingToolCalls: false, images: true },
      models: { 'sonar-reasoning*': { reasoning: true }, 'sonar-deep-research*': { reasoning: true } },
    },
  },
  moonshot: {
    name: 'moonshot',
    quirks: {
      ...hosted('MOONSHOT_API_KEY', 'https://api.moonshot.ai/v1'),
      reasoningFields: ['reasoning_content'],
      // Kimi thinking mode answers 400 unless every tool-call message carries non-empty reasoning_content.
      reasoningReplay: 'tool-turns',
      reasoningReplayPlaceholder: '.',
      reasoningParameter: 'none',
      structuredOutput: 'json_object',
      capabilities: { promptCaching: true },
      models: {
        '*thinking*': { reasoning: true },
        '*vision*': { images: true },
        'kimi-latest*': { images: true },
      },
    },
  },
  alibaba: {
    name: 'alibaba',
    quirks: {
      ...hosted('DASHSCOPE_API_KEY', 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1'),
      reasoningFields: ['reasoning_content'],
      reasoningParameter: 'enable_thinking',
      // "parameter.enable_thinking must be set to false for non-streaming calls".
      thinkingRequiresStream: true,
      structuredOutput: 'json_object',
      topK: true,
      models: {
        'qwen3*': { reasoning: true },
        'qwq*': { reasoning: true },
        'qwen-vl*': { images: true },
        'qwen3-vl*': { images: true },
      },
    },
  },
  cerebras: {
    name: 'cerebras',
    quirks: {
      ...hosted('CEREBRAS_API_KEY', 'https://api.cerebras.ai/v1'),
      maxTokensField: 'max_completion_tokens',
      reasoningFields: ['reasoning'],
      strict: true,
      models: { 'gpt-oss-*': { reasoning: true }, '*thinking*': { reasoning: true } },
    },
  },
  ollama: {
    name: 'ollama',
    quirks: {
      baseURL: 'http://localhost:11434/v1',
      reasoningFields: ['reasoning', 'reasoning_content'],
    },
  },
  lmstudio: {
    name: 'lmstudio',
    quirks: {
      baseURL: 'http://localhost:1234/v1',
      reasoningFields: ['reasoning_content', 'reasoning'],
    },
  },
  vllm: {
    name: 'vllm',
    quirks: {
      baseURL: 'http://localhost:8000/v1',
      apiKeyEnv: 'VLLM_API_KEY',
      reasoningFields: ['reasoning_content', 'reasoning'],
      topK: true,
    },
  },
};

/** The names of every preset, in table order. */
export const presetNames = Object.keys(presets) as PresetName[];
