/** The hosts that speak the Responses protocol, as data: base URL, key variable, capabilities. */
import { catalog as openaiCatalog } from '../catalog/openai.generated.ts';
import { catalog as xaiCatalog } from '../catalog/xai.generated.ts';
import { openaiModelCapabilities } from '../openai/capabilities.ts';
import { xaiCapabilities, xaiModels, xaiReasoningEffortModels } from '../openai/xai.ts';
import type { HostCapabilities } from './capabilities.ts';
import { providerTable } from '../common/provider-table.ts';

/** One Responses host row. */
export interface ResponsesPreset {
  /** Adapter name (`provider` of canonical model ids). */
  name: string;
  baseURL: string;
  /** Environment variable holding the key. */
  apiKeyEnv?: string;
  /** Whether calls need a key (local servers do not). */
  apiKeyRequired: boolean;
  host: HostCapabilities;
  /** Whether the host takes `reasoning.summary` and `include: ["reasoning.encrypted_content"]`. */
  reasoningReplay: boolean;
  /** Model globs that take `reasoning.effort` (default: every model); others drop it with a WARN. */
  effortModels?: string[];
  /** The endpoint path (default `/responses`). */
  path?: string;
  /** How the key is sent (default `Authorization: Bearer`). */
  authHeader?: 'bearer' | 'api-key';
  /**
   * Whether the host takes `custom` tools (freeform text input): a freeform tool goes as one, else
   * as a function of one string `input` (`freeformTool`). Default false.
   */
  customTools?: boolean;
}

/** OpenAI, xAI and any server implementing the Open Responses specification (LM Studio, Ollama, vLLM, …). */
export const responsesPresets = {
  openai: {
    name: 'openai',
    baseURL: providerTable.openai.baseURL,
    apiKeyEnv: providerTable.openai.keyVariables[0],
    apiKeyRequired: true,
    host: {
      capabilities: { images: true, pdf: true, promptCaching: true },
      models: openaiModelCapabilities,
      catalog: openaiCatalog,
    },
    reasoningReplay: true,
    customTools: true,
  },
  xai: {
    name: 'xai',
    baseURL: providerTable.xai.baseURL,
    apiKeyEnv: providerTable.xai.keyVariables[0],
    apiKeyRequired: true,
    host: {
      // Tool calls stream here, unlike xAI's Chat Completions endpoint.
      capabilities: { ...xaiCapabilities, streamingToolCalls: true },
      models: xaiModels,
      catalog: xaiCatalog,
    },
    reasoningReplay: true,
    effortModels: xaiReasoningEffortModels,
  },
  'open-responses': {
    name: 'open-responses',
    baseURL: 'http://127.0.0.1:1234/v1',
    apiKeyRequired: false,
    // A local server serves whatever model it loaded: permissive, refined by the user's `models`.
    host: { capabilities: { images: true, pdf: true, reasoning: true }, models: {} },
    reasoningReplay: false,
  },
} satisfies Record<string, ResponsesPreset>;

/** A preset name. */
export type ResponsesPresetName = keyof typeof responsesPresets;
