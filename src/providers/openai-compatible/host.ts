/** The OpenAI-compatible adapter: a host (preset row or the user's own) on the Chat Completions implementation. */
import { z } from 'zod';
import type { Adapter } from '../../core/adapter.ts';
import type { CapabilityOverrides } from '../openai-chat/capabilities.ts';
import { chatCredentials, createChatDefinition } from '../openai-chat/definition.ts';
import { type ChatQuirks, defaultQuirks, mergeQuirks, quirksSchema } from '../openai-chat/quirks.ts';
import { createHttpAdapter } from '../common/http-adapter.ts';
import type { AdapterOptions } from '../common/options.ts';
import { presetCatalogs } from './catalog.ts';
import { type PresetName, presetNames, presets } from './presets.ts';

/** A host: a preset, or one defined in code / JSON. */
export interface OpenAICompatibleConfig extends CapabilityOverrides {
  /** Adapter name and `provider` of canonical model ids (`groq` → `groq:llama-3.3-70b-versatile`). */
  name: string;
  /**
   * The preset this host is a variant of (`{ name: 'groq-eu', extends: 'groq', baseURL }`): its
   * quirks are the base `quirks` apply on, and its model catalog (token limits, modalities) applies
   * under this host's name; the preset is the host's provider (`Adapter.ownName`: its prices, and
   * `providerOptions.groq` under `providerOptions['groq-eu']`). Without it, a host named like a
   * preset gets that preset's catalog.
   */
  extends?: PresetName;
  /** Overrides `quirks.baseURL`. */
  baseURL?: string;
  /** A key for this host (prefer `apiKeyEnv`). */
  apiKey?: string;
  /** Overrides `quirks.apiKeyEnv`. */
  apiKeyEnv?: string;
  /** How the host differs from `defaultQuirks` (a faithful Chat Completions host). */
  quirks?: Partial<ChatQuirks>;
}

/** Per-instance options: the common adapter options plus capability overrides. */
export interface OpenAICompatibleOptions extends AdapterOptions, CapabilityOverrides {
  /** Send `strict: true` on function tools where the host takes it. Default false. */
  strictTools?: boolean;
}

const hostConfigSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/i, 'letters, digits, dot, dash or underscore'),
    extends: z.enum(presetNames as [PresetName, ...PresetName[]]).optional(),
    baseURL: z.url().optional(),
    apiKeyEnv: z.string().min(1).optional(),
    quirks: quirksSchema.optional(),
    capabilities: quirksSchema.shape.capabilities.optional(),
    models: quirksSchema.shape.models.optional(),
  })
  .strict();

/**
 * Validates a host defined in JSON — `{name, extends?, baseURL?, apiKeyEnv?, quirks?,
 * capabilities?, models?}` — where `extends` names a preset to start from. Keys are not accepted
 * in JSON (use `apiKeyEnv`). Throws a `TypeError` naming every invalid field.
 */
export function parseHostConfig(json: unknown): OpenAICompatibleConfig {
  const result = hostConfigSchema.safeParse(json);
  if (!result.success) {
    const problems = result.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new TypeError(`invalid OpenAI-compatible host: ${problems.join('; ')}`);
  }
  const { extends: preset, quirks, ...rest } = result.data;
  const base = preset === undefined ? {} : presets[preset].quirks;
  const config: OpenAICompatibleConfig = { ...rest, quirks: { ...base, ...(quirks as Partial<ChatQuirks>) } };
  if (preset !== undefined) config.extends = preset;
  return config;
}

/**
 * Creates an adapter for an OpenAI-compatible host: `createOpenAICompatible(presets.groq, {apiKey})`,
 * or `createOpenAICompatible({name: 'my-host', baseURL, quirks: {...}})`. The key comes from
 * `options.apiKey`, else `host.apiKey`, else the `apiKeyEnv` variable; creation never throws for
 * a missing key: a call to a host that requires one fails before any HTTP call with an `AuthError`
 * (`not_configured`). The base URL comes from `options.baseURL`, else the `…_BASE_URL` variable
 * matching `apiKeyEnv` (`GROQ_BASE_URL`), else the host's. A host without any base URL throws a
 * `TypeError`.
 */
export function createOpenAICompatible(
  host: OpenAICompatibleConfig,
  options: OpenAICompatibleOptions = {},
): Adapter {
  if (!/^[^:\s]+$/.test(host.name)) {
    throw new TypeError(
      `an OpenAI-compatible host needs a name without spaces or colons, got "${host.name}"`,
    );
  }
  if (host.extends !== undefined && !Object.hasOwn(presets, host.extends)) {
    throw new TypeError(
      `${host.name}: extends must name a preset (${presetNames.join(', ')}), got "${String(host.extends)}"`,
    );
  }
  const preset = host.extends === undefined ? undefined : presets[host.extends];
  const quirks = mergeQuirks(mergeQuirks(defaultQuirks, preset?.quirks), host.quirks);
  if (host.baseURL !== undefined) quirks.baseURL = host.baseURL;
  if (host.apiKeyEnv !== undefined) quirks.apiKeyEnv = host.apiKeyEnv;
  if ((options.baseURL ?? quirks.baseURL) === '') {
    throw new TypeError(`${host.name}: an OpenAI-compatible host needs a baseURL`);
  }
  // A variant of a preset (`groq-eu` of `groq`) is that preset's host named otherwise: its
  // provider's own name (catalog, prices, `providerOptions.groq`) is the preset's.
  const definition = createChatDefinition({
    name: host.extends ?? host.name,
    quirks,
    strictTools: options.strictTools,
    // The host's own table; the user's `capabilities` / `models` options apply on top, in the runtime.
    capabilities: host.capabilities,
    models: host.models,
    catalog: presetCatalogs[host.extends ?? (host.name as PresetName)],
  });
  return createHttpAdapter(definition, {
    ...options,
    name: options.name ?? host.name,
    apiKey: options.apiKey ?? host.apiKey,
    credentials: chatCredentials(quirks),
  });
}
