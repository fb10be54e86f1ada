/** The zod schema of capability overrides (config files, JSON host definitions): any subset of `Capabilities`. */
import { z } from 'zod';

/** A partial `Capabilities` object; unknown keys are rejected. */
export const capabilityOverridesSchema = z
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
    longContextWindow: z.number().int().positive(),
    maxOutputTokens: z.number().int().positive(),
    imageMediaTypes: z.array(z.string()),
    audioMediaTypes: z.array(z.string()),
    documentMediaTypes: z.array(z.string()),
    documentUrls: z.boolean(),
    structuredOutputWithTools: z.boolean(),
    assistantPrefill: z.boolean(),
  })
  .partial()
  .strict();
