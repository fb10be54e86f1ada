/** Honest per-family capabilities of Claude models (glob rows, one matcher), and how each family takes extended thinking. */
import type { Capabilities } from '../../core/capabilities.ts';
import { withCatalog } from '../../core/catalog.ts';
import { lastMatchingRow } from '../../core/glob.ts';
import { LruCache } from '../../core/lru.ts';
import { catalog } from '../catalog/anthropic.generated.ts';
import type { WireOutputConfig } from './api.ts';

/**
 * How a model takes extended thinking:
 * - `none`: no extended thinking;
 * - `budget`: `thinking: {type:'enabled', budget_tokens}` only;
 * - `adaptive`: `thinking: {type:'adaptive'}` + `output_config.effort`, budgets still accepted (deprecated);
 * - `adaptive-only`: adaptive thinking only (a fixed budget is a 400).
 */
export type ThinkingMode = 'none' | 'budget' | 'adaptive' | 'adaptive-only';

/** An `output_config.effort` level. */
export type OutputEffort = NonNullable<WireOutputConfig['effort']>;

/** A model family's facts: its capabilities, thinking mode and tool-use system-prompt size. */
export interface ModelProfile {
  family: string;
  capabilities: Capabilities;
  thinking: ThinkingMode;
  /**
   * The `output_config.effort` levels the model takes, least to most: low to high from Opus 4.5
   * (with or without thinking), `max` from Opus and Sonnet 4.6, `xhigh` too from Opus 4.7; none
   * before (Sonnet and Haiku 4.5 take no effort).
   */
  efforts: readonly OutputEffort[];
  /** Tokens of the tool-use system prompt the API adds when tools are present (`auto` choice). */
  toolPromptTokens: number;
  /** Claude 4.5 and later refuse `temperature` and `top_p` together ("use only one"). */
  exclusiveSampling: boolean;
}

/** The image media types the Messages API takes (inline images of other types are refused). */
export const imageMediaTypes = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;

/** Document types the adapter sends: PDF (`document` with a PDF source) and any text (a text source). */
export const documentMediaTypes = ['application/pdf', 'text/*'] as const;

interface FamilyFacts {
  images: boolean;
  pdf: boolean;
  structuredOutput: boolean;
  contextWindow: number;
  /** The window with the `context-1m-*` beta flag (`Capabilities.longContextWindow`), where it opens one. */
  longContextWindow?: number;
  maxOutputTokens: number;
  thinking: ThinkingMode;
  /** The `output_config.effort` levels it takes (`ModelProfile.efforts`); none when absent. */
  efforts?: readonly OutputEffort[];
  toolPromptTokens: number;
  exclusiveSampling?: boolean;
}

function profile(family: string, facts: FamilyFacts): ModelProfile {
  return {
    family,
    thinking: facts.thinking,
    efforts: facts.efforts ?? [],
    toolPromptTokens: facts.toolPromptTokens,
    exclusiveSampling: facts.exclusiveSampling ?? false,
    capabilities: {
      images: facts.images,
      audio: false,
      video: false,
      pdf: facts.pdf,
      reasoning: facts.thinking !== 'none',
      tools: true,
      parallelToolCalls: true,
      structuredOutput: facts.structuredOutput,
      streaming: true,
      streamingToolCalls: true,
      promptCaching: true,
      systemPrompt: true,
      contextWindow: facts.contextWindow,
      ...(facts.longContextWindow === undefined ? {} : { longContextWindow: facts.longContextWindow }),
      maxOutputTokens: facts.maxOutputTokens,
      imageMediaTypes,
      audioMediaTypes: [],
      documentMediaTypes,
    },
  };
}

const vision = { images: true, pdf: true } as const;

/**
 * Families the models.dev snapshot lists (`src/providers/catalog/anthropic.generated.ts`) take their
 * token limits from it alone: no number is kept in two places. Rows carry limits only for families
 * the snapshot predates.
 */
const catalogLimits = { contextWindow: 0, maxOutputTokens: 0 } as const;

/** Opus 4.7+, Mythos and Fable: adaptive thinking only, 1M context, 128k output. */
const adaptiveOnlyFacts: FamilyFacts = {
  ...vision,
  structuredOutput: true,
  contextWindow: 1_000_000,
  maxOutputTokens: 128_000,
  thinking: 'adaptive-only',
  efforts: ['low', 'medium', 'high', 'xhigh', 'max'],
  toolPromptTokens: 346,
  exclusiveSampling: true,
};

/**
 * The table, newest first within each family. Sources: Anthropic's models overview (the 1M window
 * of Sonnet 4 and 4.5 with the `context-1m-2025-08-07` beta flag), extended and
 * adaptive thinking, structured outputs (GA on Opus 4.5+, Sonnet 4.5+, Haiku 4.5) and tool-use
 * pricing pages (tool system-prompt sizes), effort (low to high from Opus 4.5, with or without
 * thinking; `max` from Opus and Sonnet 4.6, `xhigh` from Opus 4.7). Opus 4.7+ (and Opus 5), Mythos
 * and Fable take adaptive thinking only.
 */
const profiles = {
  opusAdaptiveOnly: profile('claude-opus-4-7+', adaptiveOnlyFacts),
  /** Claude Mythos and Claude Fable models: the Opus 4.7+ facts (adaptive thinking only). */
  mythos: profile('claude-mythos', adaptiveOnlyFacts),
  fable: profile('claude-fable', adaptiveOnlyFacts),
  opus46: profile('claude-opus-4-6', {
    ...vision,
    structuredOutput: true,
    contextWindow: 1_000_000,
    maxOutputTokens: 128_000,
    thinking: 'adaptive',
    efforts: ['low', 'medium', 'high', 'max'],
    toolPromptTokens: 346,
    exclusiveSampling: true,
  }),
  opus45: profile('claude-opus-4-5', {
    ...vision,
    structuredOutput: true,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    thinking: 'budget',
    efforts: ['low', 'medium', 'high'],
    toolPromptTokens: 346,
    exclusiveSampling: true,
  }),
  opus4: profile('claude-opus-4', {
    ...vision,
    structuredOutput: false,
    ...catalogLimits,
    thinking: 'budget',
    toolPromptTokens: 346,
  }),
  sonnet46: profile('claude-sonnet-4-6+', {
    ...vision,
    structuredOutput: true,
    contextWindow: 1_000_000,
    maxOutputTokens: 64_000,
    thinking: 'adaptive',
    efforts: ['low', 'medium', 'high', 'max'],
    toolPromptTokens: 346,
    exclusiveSampling: true,
  }),
  sonnet45: profile('claude-sonnet-4-5', {
    ...vision,
    structuredOutput: true,
    contextWindow: 200_000,
    longContextWindow: 1_000_000,
    maxOutputTokens: 64_000,
    thinking: 'budget',
    toolPromptTokens: 346,
    exclusiveSampling: true,
  }),
  sonnet4: profile('claude-sonnet-4', {
    ...vision,
    structuredOutput: false,
    ...catalogLimits,
    longContextWindow: 1_000_000,
    thinking: 'budget',
    toolPromptTokens: 346,
  }),
  sonnet37: profile('claude-3-7-sonnet', {
    ...vision,
    structuredOutput: false,
    ...catalogLimits,
    thinking: 'budget',
    toolPromptTokens: 346,
  }),
  sonnet35: profile('claude-3-5-sonnet', {
    ...vision,
    structuredOutput: false,
    ...catalogLimits,
    thinking: 'none',
    toolPromptTokens: 294,
  }),
  haiku45: profile('claude-haiku-4-5', {
    ...vision,
    structuredOutput: true,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    thinking: 'budget',
    toolPromptTokens: 346,
    exclusiveSampling: true,
  }),
  haiku35: profile('claude-3-5-haiku', {
    ...vision,
    structuredOutput: false,
    ...catalogLimits,
    thinking: 'none',
    toolPromptTokens: 264,
  }),
  haiku3: profile('claude-3-haiku', {
    images: true,
    pdf: false,
    structuredOutput: false,
    ...catalogLimits,
    thinking: 'none',
    toolPromptTokens: 264,
  }),
  opus3: profile('claude-3-opus', {
    images: true,
    pdf: false,
    structuredOutput: false,
    ...catalogLimits,
    thinking: 'none',
    toolPromptTokens: 530,
  }),
  /** An unknown model: text and tools only; its limits are unknown (0: not checked locally). */
  unknown: profile('unknown', {
    images: false,
    pdf: false,
    structuredOutput: false,
    contextWindow: 0,
    maxOutputTokens: 0,
    thinking: 'none',
    toolPromptTokens: 346,
  }),
} satisfies Record<string, ModelProfile>;

/** Rows for each later version of a tier: `claude-opus-4-7*` … `claude-opus-9*`. */
function fromVersion(
  prefix: string,
  versions: readonly string[],
  family: ModelProfile,
): Record<string, ModelProfile> {
  return Object.fromEntries(versions.map((version) => [`${prefix}-${version}*`, family]));
}

/** A family name with its delimiters (`claude-mythos`, `-5`, `@snapshot`, `[1m]`), not `claude-mythology`. */
function named(name: string, family: ModelProfile): Record<string, ModelProfile> {
  return { [name]: family, [`${name}-*`]: family, [`${name}@*`]: family, [`${name}[*`]: family };
}

const after = (minors: readonly string[]) => [...minors, '5', '6', '7', '8', '9'];

/**
 * The family of each model, as glob rows over the wire name (the one matcher, `core/glob.ts`):
 * general globs first, the last matching row wins. Date suffixes, `-latest`, `@` snapshots and
 * `[1m]` context suffixes fall under their family's glob.
 */
const familyRows: Readonly<Record<string, ModelProfile>> = {
  'claude-3-opus*': profiles.opus3,
  'claude-3-haiku*': profiles.haiku3,
  'claude-3-5-haiku*': profiles.haiku35,
  'claude-3-5-sonnet*': profiles.sonnet35,
  'claude-3-7-sonnet*': profiles.sonnet37,
  'claude-opus-4*': profiles.opus4,
  'claude-opus-4-5*': profiles.opus45,
  'claude-opus-4-6*': profiles.opus46,
  ...fromVersion('claude-opus', after(['4-7', '4-8', '4-9']), profiles.opusAdaptiveOnly),
  'claude-sonnet-4*': profiles.sonnet4,
  'claude-sonnet-4-5*': profiles.sonnet45,
  ...fromVersion('claude-sonnet', after(['4-6', '4-7', '4-8', '4-9']), profiles.sonnet46),
  ...fromVersion('claude-haiku', after(['4-5', '4-6', '4-7', '4-8', '4-9']), profiles.haiku45),
  ...named('claude-mythos', profiles.mythos),
  ...named('claude-fable', profiles.fable),
};

/** Profiles by model name: a call reads its model's twice (capabilities, request), each a walk of every glob row. */
const profileCache = new LruCache<string, ModelProfile>(256);

/** The profile of a model wire name (an `anthropic.` / `anthropic:` / `anthropic/` prefix accepted). */
export function modelProfile(model: string): ModelProfile {
  let profile = profileCache.get(model);
  if (profile === undefined) {
    const name = model.toLowerCase().replace(/^anthropic[.:/]/, '');
    profile = lastMatchingRow(familyRows, name) ?? profiles.unknown;
    profileCache.set(model, profile);
  }
  return profile;
}

/** What `model` supports as served by this adapter: its family row, with the catalog row's limits. */
export const anthropicCapabilities: (model: string) => Capabilities = withCatalog(
  (model) => modelProfile(model).capabilities,
  catalog,
);
