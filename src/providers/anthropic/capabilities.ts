/** Honest per-family capabilities of Claude models, and how each family takes extended thinking. */
import type { Capabilities } from '../../core/capabilities.ts';

/**
 * How a model takes extended thinking:
 * - `none`: no extended thinking;
 * - `budget`: `thinking: {type:'enabled', budget_tokens}` only;
 * - `adaptive`: `thinking: {type:'adaptive'}` + `output_config.effort`, budgets still accepted (deprecated);
 * - `adaptive-only`: adaptive thinking only (a fixed budget is a 400).
 */
export type ThinkingMode = 'none' | 'budget' | 'adaptive' | 'adaptive-only';

/** A model family's facts: its capabilities, thinking mode and tool-use system-prompt size. */
export interface ModelProfile {
  family: string;
  capabilities: Capabilities;
  thinking: ThinkingMode;
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
  maxOutputTokens: number;
  thinking: ThinkingMode;
  toolPromptTokens: number;
  exclusiveSampling?: boolean;
}

function profile(family: string, facts: FamilyFacts): ModelProfile {
  return {
    family,
    thinking: facts.thinking,
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
      maxOutputTokens: facts.maxOutputTokens,
      imageMediaTypes,
      audioMediaTypes: [],
      documentMediaTypes,
    },
  };
}

const vision = { images: true, pdf: true } as const;

/** Opus 4.7+, Mythos and Fable: adaptive thinking only, 1M context, 128k output. */
const adaptiveOnlyFacts: FamilyFacts = {
  ...vision,
  structuredOutput: true,
  contextWindow: 1_000_000,
  maxOutputTokens: 128_000,
  thinking: 'adaptive-only',
  toolPromptTokens: 346,
  exclusiveSampling: true,
};

/**
 * The table, newest first within each family. Sources: Anthropic's models overview, extended and
 * adaptive thinking, structured outputs (GA on Opus 4.5+, Sonnet 4.5+, Haiku 4.5) and tool-use
 * pricing pages (tool system-prompt sizes). Opus 4.7+ (and Opus 5), Mythos and Fable take adaptive
 * thinking only.
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
    toolPromptTokens: 346,
    exclusiveSampling: true,
  }),
  opus45: profile('claude-opus-4-5', {
    ...vision,
    structuredOutput: true,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    thinking: 'budget',
    toolPromptTokens: 346,
    exclusiveSampling: true,
  }),
  opus4: profile('claude-opus-4', {
    ...vision,
    structuredOutput: false,
    contextWindow: 200_000,
    maxOutputTokens: 32_000,
    thinking: 'budget',
    toolPromptTokens: 346,
  }),
  sonnet46: profile('claude-sonnet-4-6+', {
    ...vision,
    structuredOutput: true,
    contextWindow: 1_000_000,
    maxOutputTokens: 64_000,
    thinking: 'adaptive',
    toolPromptTokens: 346,
    exclusiveSampling: true,
  }),
  sonnet45: profile('claude-sonnet-4-5', {
    ...vision,
    structuredOutput: true,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    thinking: 'budget',
    toolPromptTokens: 346,
    exclusiveSampling: true,
  }),
  sonnet4: profile('claude-sonnet-4', {
    ...vision,
    structuredOutput: false,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    thinking: 'budget',
    toolPromptTokens: 346,
  }),
  sonnet37: profile('claude-3-7-sonnet', {
    ...vision,
    structuredOutput: false,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    thinking: 'budget',
    toolPromptTokens: 346,
  }),
  sonnet35: profile('claude-3-5-sonnet', {
    ...vision,
    structuredOutput: false,
    contextWindow: 200_000,
    maxOutputTokens: 8_192,
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
    contextWindow: 200_000,
    maxOutputTokens: 8_192,
    thinking: 'none',
    toolPromptTokens: 264,
  }),
  haiku3: profile('claude-3-haiku', {
    images: true,
    pdf: false,
    structuredOutput: false,
    contextWindow: 200_000,
    maxOutputTokens: 4_096,
    thinking: 'none',
    toolPromptTokens: 264,
  }),
  opus3: profile('claude-3-opus', {
    images: true,
    pdf: false,
    structuredOutput: false,
    contextWindow: 200_000,
    maxOutputTokens: 4_096,
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

/** `claude-mythos…` and `claude-fable…` (`claude-mythos-5`, `claude-mythos-preview`, snapshots). */
const adaptiveOnlyName = /^claude-(mythos|fable)(?:[-@[]|$)/;

/** `claude-<tier>-<major>[-<minor>]…`; a minor of 8 digits is a date snapshot (minor 0). */
const modernName = /^claude-(opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?:[-@[]|$)/;

function modernProfile(tier: string, major: number, minor: number): ModelProfile | undefined {
  const version = major + minor / 10;
  if (major < 4) return undefined;
  if (tier === 'opus') {
    if (version >= 4.7) return profiles.opusAdaptiveOnly;
    if (version >= 4.6) return profiles.opus46;
    if (version >= 4.5) return profiles.opus45;
    return profiles.opus4;
  }
  if (tier === 'sonnet') {
    if (version >= 4.6) return profiles.sonnet46;
    if (version >= 4.5) return profiles.sonnet45;
    return profiles.sonnet4;
  }
  return version >= 4.5 ? profiles.haiku45 : undefined;
}

/** The profile of a model wire name (date suffixes, `-latest` and `@` snapshots accepted). */
export function modelProfile(model: string): ModelProfile {
  const name = model.toLowerCase().replace(/^anthropic[.:/]/, '');
  const modern = modernName.exec(name);
  if (modern !== null) {
    const found = modernProfile(modern[1] as string, Number(modern[2]), Number(modern[3] ?? 0));
    if (found !== undefined) return found;
  }
  const adaptiveOnly = adaptiveOnlyName.exec(name)?.[1];
  if (adaptiveOnly !== undefined) return adaptiveOnly === 'mythos' ? profiles.mythos : profiles.fable;
  if (name.startsWith('claude-3-7-sonnet')) return profiles.sonnet37;
  if (name.startsWith('claude-3-5-sonnet')) return profiles.sonnet35;
  if (name.startsWith('claude-3-5-haiku')) return profiles.haiku35;
  if (name.startsWith('claude-3-haiku')) return profiles.haiku3;
  if (name.startsWith('claude-3-opus')) return profiles.opus3;
  return profiles.unknown;
}

/** What `model` supports as served by this adapter. */
export function anthropicCapabilities(model: string): Capabilities {
  return modelProfile(model).capabilities;
}
