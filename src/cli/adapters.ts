/** Maps a wire-protocol name to its adapter factory, loaded lazily. */
import type { Adapter } from '../core/adapter.ts';
import type { Logger } from '../core/logger.ts';

/** The wire protocols the CLI knows. */
export const apiNames = ['anthropic-messages', 'openai-chat', 'openai-responses', 'gemini'] as const;
/** One of {@link apiNames}. */
export type ApiName = (typeof apiNames)[number];

/** Options the CLI passes to every adapter. */
export interface CliAdapterOptions {
  baseURL: string;
  apiKey: string;
  maxRetries?: number;
  logger?: Logger;
}

/** A model name to request for each API when the input does not say. */
export const defaultModels: Record<ApiName, string> = {
  'anthropic-messages': 'anthropic:claude-sonnet-4-5',
  'openai-chat': 'openai:gpt-4.1-mini',
  'openai-responses': 'openai:gpt-5-mini',
  gemini: 'gemini:gemini-2.5-flash',
};

/** Thrown when the API's adapter has not landed in this version. */
export class AdapterUnavailableError extends Error {
  override name = 'AdapterUnavailableError';
}

/** Creates the real adapter for `api`, pointed at `options.baseURL` (the emulator's URL). */
export async function createAdapterFor(api: ApiName, options: CliAdapterOptions): Promise<Adapter> {
  switch (api) {
    case 'anthropic-messages': {
      const { createAnthropic } = await import('../providers/anthropic/index.ts');
      return createAnthropic({ ...options, baseURL: `${options.baseURL}/v1` });
    }
    case 'openai-chat': {
      const { createOpenAI } = await import('../providers/openai-chat/index.ts');
      return createOpenAI({ ...options, baseURL: `${options.baseURL}/v1` });
    }
    case 'gemini': {
      const { createGemini } = await import('../providers/gemini/index.ts');
      return createGemini({ ...options, baseURL: `${options.baseURL}/v1beta` });
    }
    case 'openai-responses': {
      const { createOpenAIResponses } = await import('../providers/openai-responses/index.ts');
      return createOpenAIResponses({ ...options, baseURL: `${options.baseURL}/v1` });
    }
  }
}
