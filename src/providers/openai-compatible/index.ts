/**
 * `switchyard-ai/openai-compatible`: any Chat Completions host, from a preset row or user-defined quirks.
 *
 * One way in, one implementation (`openai-chat/`): `createOpenAICompatible(host, options)`, where the
 * host is a preset row (`presets.groq`, plain data) or a host of your own, in code
 * (`{name, baseURL, quirks}`) or JSON (`parseHostConfig(json)`, which may `extends` a preset). The
 * adapter name is the host name (`groq:llama-3.3-70b-versatile`). Besides the factory, its options
 * and the per-request `providerOptions.<host>` type that every provider entry exports, this entry
 * exports the host definition: `presets`, `presetNames`, `parseHostConfig` and the quirk types.
 */
export type { CapabilityOverrides } from '../openai-chat/capabilities.ts';
export type { OpenAIProviderOptions as OpenAICompatibleProviderOptions } from '../openai-chat/options.ts';
export type {
  ChatQuirks,
  MaxTokensField,
  ModelCapabilities,
  ReasoningField,
  ReasoningParameter,
  ReasoningReplay,
  StructuredOutputMode,
  ToolIdRuleName,
} from '../openai-chat/quirks.ts';
export {
  type AzureChatEndpoint,
  type AzureOpenAIOptions,
  azureChatQuirks,
  azurePreset,
  createAzureOpenAI,
} from './azure.ts';
export { type OpenAICompatiblePreset, type PresetName, presetNames, presets } from './presets.ts';

export {
  createOpenAICompatible,
  type OpenAICompatibleConfig,
  type OpenAICompatibleOptions,
  parseHostConfig,
} from './host.ts';
