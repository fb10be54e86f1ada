/** xAI's model facts, the same on its Chat Completions and Responses endpoints (each protocol's preset reads them). */
import type { Capabilities, ModelCapabilities } from '../../core/capabilities.ts';

/** What every Grok model has on either endpoint. */
export const xaiCapabilities: Partial<Capabilities> = { promptCaching: true };

/** Per-model rows. */
export const xaiModels: ModelCapabilities = {
  'grok-3-mini*': { reasoning: true },
  'grok-4*': { reasoning: true, images: true },
  'grok-2-vision*': { images: true },
};

/** Only grok-3-mini takes a reasoning effort; grok-4 always reasons and rejects one. */
export const xaiReasoningEffortModels: string[] = ['grok-3-mini*'];
