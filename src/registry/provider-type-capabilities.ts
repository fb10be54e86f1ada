/**
 * What each built-in provider-type row's adapter declares about a model, answered without loading the
 * adapter's code: the providers' capability tables (data and small functions) with the user's
 * `capabilities` / `models` options on top, as the shared runtime applies them. The registry
 * describes models (`sy.models()`, `sy.resolve()`) from these before any call has loaded an
 * adapter; `provider-type-capabilities.test.ts` proves they equal the adapters' own answers.
 */
import {
  type Capabilities,
  type CapabilityOverrides,
  withCapabilityOverrides,
} from '../core/capabilities.ts';
import { anthropicCapabilities } from '../providers/anthropic/capabilities.ts';
import {
  capabilitiesFor as bedrockCapabilities,
  invokeCapabilities as bedrockInvokeCapabilities,
} from '../providers/bedrock/capabilities.ts';
import { catalog as openaiCatalog } from '../providers/catalog/openai.generated.ts';
import { capabilitiesFor as geminiCapabilities } from '../providers/gemini/capabilities.ts';
import { createCapabilityResolver as chatCapabilities } from '../providers/openai-chat/capabilities.ts';
import {
  type ChatQuirks,
  defaultQuirks,
  mergeQuirks,
  openaiQuirks,
} from '../providers/openai-chat/quirks.ts';
import { presetCatalogs } from '../providers/openai-compatible/catalog.ts';
import { type PresetName, presets } from '../providers/openai-compatible/presets.ts';
import { createCapabilityResolver as responsesCapabilities } from '../providers/openai-responses/capabilities.ts';
import { responsesPresets } from '../providers/openai-responses/presets.ts';
import { capabilitiesFor as vertexCapabilities } from '../providers/vertex/capabilities.ts';

/** A model's capabilities by its wire name (`claude-sonnet-4-5`, no `provider:` prefix). */
export type CapabilityResolver = (wireName: string) => Capabilities;

/** What the declared capabilities of a built-in row depend on. */
export interface CapabilitySettings {
  /** The adapter name (an `openai-compatible` host named otherwise keeps its preset's catalog). */
  name: string;
  /** The adapter options the row passes through (`capabilities`, `models`, `quirks`, `protocol`). */
  options?: Record<string, unknown>;
  /** `openai-compatible`: the preset the host extends, and its quirks (preset's, then the config's). */
  preset?: string;
  quirks?: Partial<ChatQuirks>;
}

type Declared = (settings: CapabilitySettings) => CapabilityResolver;

/** The Chat Completions host an `openai-compatible` row creates (as `createOpenAICompatible` merges it). */
function compatibleCapabilities(settings: CapabilitySettings): CapabilityResolver {
  const preset =
    settings.preset !== undefined && Object.hasOwn(presets, settings.preset)
      ? (settings.preset as PresetName)
      : undefined;
  const quirks = mergeQuirks(
    mergeQuirks(defaultQuirks, preset === undefined ? undefined : presets[preset].quirks),
    settings.quirks,
  );
  return chatCapabilities(quirks, { catalog: presetCatalogs[preset ?? (settings.name as PresetName)] });
}

/** Each built-in factory's declared capabilities, before the user's overrides. */
const declared: Record<string, Declared> = {
  anthropic: () => anthropicCapabilities,
  openai: (settings) =>
    chatCapabilities(mergeQuirks(openaiQuirks, settings.options?.quirks as Partial<ChatQuirks> | undefined), {
      catalog: openaiCatalog,
    }),
  'openai-responses': () => responsesCapabilities(responsesPresets.openai.host),
  gemini: () => geminiCapabilities,
  'openai-compatible': compatibleCapabilities,
  bedrock: (settings) =>
    settings.options?.protocol === 'invoke' ? bedrockInvokeCapabilities : bedrockCapabilities,
  vertex: () => vertexCapabilities,
};

/**
 * The capabilities the adapter of built-in factory `factory` would declare for `settings`, with the
 * user's overrides (`options.capabilities`, `options.models`) on top; `undefined` for a factory
 * this table does not know.
 */
export function declaredCapabilities(
  factory: string,
  settings: CapabilitySettings,
): CapabilityResolver | undefined {
  const row = declared[factory];
  if (row === undefined) return undefined;
  return withCapabilityOverrides(row(settings), (settings.options ?? {}) as CapabilityOverrides);
}
