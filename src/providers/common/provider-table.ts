/**
 * The provider table: one row per provider Switchyard ships an adapter (or a host preset) for,
 * holding the facts every other place derives from — the adapters' defaults, the OpenAI-compatible
 * and Responses presets, the registry's provider-type table, the CLI and the tests. A string literal that
 * repeats a key variable or a base URL of this table anywhere else in src/ fails
 * test/provider-table.test.ts.
 */
import type { ProtocolId } from '../../core/adapter.ts';
import type { BaseURLVariable } from './options.ts';

/** One provider's facts. */
export interface ProviderRow {
  /** Environment variables the API key is read from, in order (empty: the cloud's own credential chain). */
  readonly keyVariables: readonly string[];
  /** Environment variables a base URL is read from, in order, with the path the adapter appends. */
  readonly baseURLVariables: readonly BaseURLVariable[];
  /** The public endpoint, its base path included; absent for regional clouds (built per region). */
  readonly baseURL?: string;
  /** The wire protocols its adapters speak; the first is the one its bare name selects. */
  readonly protocols: readonly ProtocolId[];
  /** Its models.dev catalog: `src/providers/catalog/<catalog>.generated.ts`. */
  readonly catalog: string;
  /** The package entry whose factory creates its adapter (absent: reached through `createSwitchyard` only). */
  readonly entry?: string;
}

/** The rows, by provider (adapter) name. */
export const providerTable = {
  anthropic: {
    keyVariables: ['ANTHROPIC_API_KEY'],
    // The SDK convention: the variable names the host, without `/v1`.
    baseURLVariables: [{ name: 'ANTHROPIC_BASE_URL', suffix: '/v1' }],
    baseURL: 'https://api.anthropic.com/v1',
    protocols: ['anthropic-messages'],
    catalog: 'anthropic',
    entry: 'switchyard-ai/anthropic',
  },
  openai: {
    keyVariables: ['OPENAI_API_KEY'],
    baseURLVariables: [{ name: 'OPENAI_BASE_URL' }],
    baseURL: 'https://api.openai.com/v1',
    protocols: ['openai-chat', 'openai-responses'],
    catalog: 'openai',
    entry: 'switchyard-ai/openai',
  },
  gemini: {
    keyVariables: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
    // Google's SDK convention: the variable names the host, `/v1beta` is appended.
    baseURLVariables: [
      { name: 'GEMINI_BASE_URL', suffix: '/v1beta' },
      { name: 'GOOGLE_GEMINI_BASE_URL', suffix: '/v1beta' },
    ],
    baseURL: 'https://generativelanguage.googleapis.com/v1beta',
    protocols: ['gemini'],
    catalog: 'gemini',
    entry: 'switchyard-ai/gemini',
  },
  xai: {
    keyVariables: ['XAI_API_KEY'],
    baseURLVariables: [{ name: 'XAI_BASE_URL' }],
    baseURL: 'https://api.x.ai/v1',
    protocols: ['openai-chat', 'openai-responses'],
    catalog: 'xai',
    entry: 'switchyard-ai/openai-compatible',
  },
  bedrock: {
    keyVariables: ['AWS_BEARER_TOKEN_BEDROCK'],
    baseURLVariables: [],
    protocols: ['bedrock-converse', 'bedrock-invoke'],
    catalog: 'bedrock',
  },
  vertex: {
    keyVariables: ['GOOGLE_VERTEX_API_KEY'],
    baseURLVariables: [],
    protocols: ['gemini', 'vertex-anthropic'],
    catalog: 'vertex',
  },
} as const satisfies Readonly<Record<string, ProviderRow>>;

/** A provider of the table. */
export type TableProvider = keyof typeof providerTable;

/** Where a provider's endpoints live below its host (`/v1`, `/v1beta`): the path of its base URL. */
export function basePathOf(provider: TableProvider): string | undefined {
  const row: ProviderRow = providerTable[provider];
  return row.baseURL === undefined ? undefined : new URL(row.baseURL).pathname;
}
