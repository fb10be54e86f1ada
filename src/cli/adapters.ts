/** The wire protocols the CLI can drive: each one's adapter factory (loaded lazily) and default model. */
import type { Adapter } from '../core/adapter.ts';
import type { Logger } from '../core/logger.ts';

/** Options the CLI passes to every adapter. */
export interface CliAdapterOptions {
  baseURL: string;
  apiKey: string;
  maxRetries?: number;
  logger?: Logger;
}

/** How the CLI drives one wire protocol. */
interface CliApi {
  /** A model name to request when the input does not say. */
  defaultModel: string;
  /** Creates the real adapter, pointed at `options.baseURL` (the emulator's URL). */
  create(options: CliAdapterOptions): Promise<Adapter>;
}

/**
 * Every API listed here works end to end: `--api`, help and error messages are derived from
 * this table, so a protocol appears in them exactly when its adapter is added here.
 */
const apis = {
  'anthropic-messages': {
    defaultModel: 'anthropic:claude-sonnet-4-5',
    async create(options) {
      const { createAnthropic } = await import('../providers/anthropic/index.ts');
      return createAnthropic({ ...options, baseURL: `${options.baseURL}/v1` });
    },
  },
  'openai-chat': {
    defaultModel: 'openai:gpt-4.1-mini',
    async create(options) {
      const { createOpenAI } = await import('../providers/openai-chat/index.ts');
      return createOpenAI({ ...options, baseURL: `${options.baseURL}/v1` });
    },
  },
  gemini: {
    defaultModel: 'gemini:gemini-2.5-flash',
    async create(options) {
      const { createGemini } = await import('../providers/gemini/index.ts');
      return createGemini({ ...options, baseURL: `${options.baseURL}/v1beta` });
    },
  },
  'openai-responses': {
    defaultModel: 'openai:gpt-5-mini',
    async create(options) {
      const { createOpenAIResponses } = await import('../providers/openai-responses/index.ts');
      return createOpenAIResponses({ ...options, baseURL: `${options.baseURL}/v1` });
    },
  },
} satisfies Record<string, CliApi>;

/** One of {@link apiNames}. */
export type ApiName = keyof typeof apis;

/** The wire protocols whose adapters this version of the CLI can create. */
export const apiNames = Object.keys(apis) as ApiName[];

/** True when `name` is one of {@link apiNames}. */
export function isApiName(name: string | undefined): name is ApiName {
  return name !== undefined && Object.hasOwn(apis, name);
}

/** A model name to request for each API when the input does not say. */
export const defaultModels = Object.fromEntries(
  apiNames.map((name) => [name, apis[name].defaultModel]),
) as Record<ApiName, string>;

/** Creates the real adapter for `api`, pointed at `options.baseURL` (the emulator's URL). */
export function createAdapterFor(api: ApiName, options: CliAdapterOptions): Promise<Adapter> {
  return apis[api].create(options);
}
