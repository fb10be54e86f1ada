/** Honest capability declarations, user overrides, and what a request needs of them. */
import { LruCache } from './lru.ts';
import { matchesGlob } from './glob.ts';
import { type CanonicalRequest, wantsReasoning } from './request.ts';
import type { Part } from './transcript.ts';

/** What a model, as served by this adapter, actually supports. */
export interface Capabilities {
  images: boolean;
  audio: boolean;
  video: boolean;
  pdf: boolean;
  reasoning: boolean;
  tools: boolean;
  parallelToolCalls: boolean;
  structuredOutput: boolean;
  streaming: boolean;
  /**
   * Tool-call arguments arrive in fragments (`tool-call-delta` events as the model writes them);
   * false when the provider sends each call whole. A description of the stream, not a request
   * need: checked against recorded streams (`test/conformance/streaming-tool-calls.test.ts`).
   */
  streamingToolCalls: boolean;
  /** Explicit prompt caching (`request.cache`); without it the cache request is dropped with a WARN. */
  promptCaching: boolean;
  /** System, developer and context items are taken. */
  systemPrompt: boolean;
  /** Input window in tokens; 0 when unknown (then never checked). */
  contextWindow: number;
  /**
   * The larger input window a request opens with the provider's long-context beta flag (Anthropic's
   * `context-1m-*` on Claude Sonnet 4 and 4.5: 1,000,000): the window of a request that sends it
   * (`contextWindowOf`). Absent: the model has no such flag.
   */
  longContextWindow?: number;
  /** Largest `maxOutputTokens` the model takes; 0 when unknown (then never checked). */
  maxOutputTokens: number;
  /** Image media types taken (`*` globs allowed, e.g. `image/*`); empty: not checked locally. */
  imageMediaTypes: readonly string[];
  /** Audio media types taken (`*` globs allowed); empty: not checked locally. */
  audioMediaTypes: readonly string[];
  /** Media types of non-image file parts (documents) taken (`*` globs allowed); empty: not checked locally. */
  documentMediaTypes: readonly string[];
  /**
   * False when a document (a file part) given by URL cannot be sent — the adapter sends documents
   * inline only (OpenAI Chat Completions) — so such a part is refused instead of dropped. Absent: taken.
   */
  documentUrls?: boolean;
  /**
   * False when one request cannot carry both structured output (`outputSchema`) and function tools
   * (Gemini before 3 answers 400 to JSON mode with function declarations): the adapter then asks for
   * the structured answer another way (docs/options.md). Absent: taken together.
   */
  structuredOutputWithTools?: boolean;
  /**
   * False when the provider cannot continue a transcript's trailing assistant message (a prefill,
   * e.g. `{` so the reply goes on as JSON): it takes it as a finished earlier turn and starts a new
   * message (OpenAI Chat and Responses). The call then WARNs, and a reply that repeats the prefill
   * has the repeat cut, so prefill + reply reads as a continuation (`providers/common/prefill.ts`).
   * Absent: continued (Anthropic, Claude on Bedrock and Vertex, Gemini).
   */
  assistantPrefill?: boolean;
}

/** A capability that a request needs. */
export type CapabilityName =
  | 'images'
  | 'audio'
  | 'video'
  | 'pdf'
  | 'reasoning'
  | 'tools'
  | 'parallelToolCalls'
  | 'structuredOutput'
  | 'systemPrompt';

/** Per-model capability overrides keyed by glob (`*` matches any run of characters); later keys win. */
export type ModelCapabilities = Record<string, Partial<Capabilities>>;

/**
 * Capability overrides a user gives an adapter (`createAnthropic({models: {'claude-x*': {…}}})`)
 * or the front door's config gives a model: they win over every declared fact.
 */
export interface CapabilityOverrides {
  /** Applied to every model, after the adapter's own table. */
  capabilities?: Partial<Capabilities>;
  /** Per-model-glob overrides (e.g. `{'llama3*': {tools: false}}`), applied last, in key order. */
  models?: ModelCapabilities;
}

/** Applies the rows of `models` whose glob matches `model` onto `target`, in key order. */
export function applyModelRows(
  target: Capabilities,
  models: ModelCapabilities | undefined,
  model: string,
): void {
  if (models === undefined) return;
  for (const [pattern, overrides] of Object.entries(models)) {
    if (matchesGlob(pattern, model)) Object.assign(target, overrides);
  }
}

/** Most models whose resolved capabilities one resolver keeps (model names come from callers). */
const maxCachedModels = 512;

/**
 * Wraps a capability function with user overrides (`capabilities`, then matching `models` rows),
 * caching the result per model. Without overrides, `declared` is returned as is.
 */
export function withCapabilityOverrides(
  declared: (model: string) => Capabilities,
  overrides: CapabilityOverrides,
): (model: string) => Capabilities {
  const { capabilities, models } = overrides;
  if (capabilities === undefined && (models === undefined || Object.keys(models).length === 0))
    return declared;
  const cache = new LruCache<string, Capabilities>(maxCachedModels);
  return (model) => {
    const known = cache.get(model);
    if (known !== undefined) return known;
    const resolved: Capabilities = { ...declared(model), ...capabilities };
    applyModelRows(resolved, models, model);
    cache.set(model, resolved);
    return resolved;
  };
}

/** Where in a request each needed capability is first used (a path such as `transcript[1].parts[0]`). */
export function capabilityUses(request: CapabilityInput): Map<CapabilityName, string> {
  const uses = new Map<CapabilityName, string>();
  const use = (name: CapabilityName, path: string) => {
    if (!uses.has(name)) uses.set(name, path);
  };
  if ((request.tools?.length ?? 0) > 0) use('tools', 'tools');
  if (request.parallelToolCalls === true) use('parallelToolCalls', 'parallelToolCalls');
  if (request.outputSchema !== undefined) use('structuredOutput', 'outputSchema');
  if (wantsReasoning(request.reasoning)) use('reasoning', 'reasoning');
  request.transcript.forEach((item, index) => {
    if (item.kind === 'system' || item.kind === 'developer' || item.kind === 'context') {
      use('systemPrompt', `transcript[${index}] (${item.kind})`);
    }
    addPartNeeds(item.parts, index, undefined, use);
  });
  return uses;
}

/** What of a request decides the capabilities it needs (a routed request before its model is bound, too). */
export type CapabilityInput = Pick<CanonicalRequest, 'transcript'> & Partial<CanonicalRequest>;

/** The capabilities a request needs, derived from its content and options. */
export function requiredCapabilities(request: CapabilityInput): Set<CapabilityName> {
  return new Set(capabilityUses(request).keys());
}

/**
 * The needs of `parts` (of transcript item `itemIndex`, or of a tool result's parts at `path`).
 * A path is written only for a part that needs something: text, reasoning and tool parts (nearly
 * all of a long conversation) cost no string.
 */
function addPartNeeds(
  parts: readonly Part[],
  itemIndex: number,
  path: string | undefined,
  use: (name: CapabilityName, path: string) => void,
): void {
  parts.forEach((part, index) => {
    if (
      part.type !== 'media' &&
      part.type !== 'file' &&
      !(part.type === 'tool-result' && part.output.type === 'parts')
    )
      return;
    const at = `${path ?? `transcript[${itemIndex}].parts`}[${index}]`;
    if (part.type === 'media') {
      if (part.modality === 'image') use('images', at);
      else if (part.modality === 'audio') use('audio', at);
      else if (part.modality === 'video') use('video', at);
    } else if (part.type === 'file') {
      if (part.mimeType === 'application/pdf') use('pdf', at);
      else if (part.mimeType.startsWith('image/')) use('images', at);
    } else if (part.type === 'tool-result' && part.output.type === 'parts') {
      addPartNeeds(part.output.parts, itemIndex, `${at}.output.parts`, use);
    }
  });
}

/** The media-type list of `capabilities` that governs a media or file part, and its name. */
export function mediaTypeRule(
  part: { type: 'media' | 'file'; mimeType: string; modality?: string },
  capabilities: Capabilities,
): { kind: 'image' | 'audio' | 'document'; accepted: readonly string[] } | undefined {
  const mimeType = normalizeMediaType(part.mimeType);
  if (part.type === 'media') {
    if (part.modality === 'image') return { kind: 'image', accepted: capabilities.imageMediaTypes };
    if (part.modality === 'audio') return { kind: 'audio', accepted: capabilities.audioMediaTypes };
    return undefined;
  }
  if (mimeType.startsWith('image/')) return { kind: 'image', accepted: capabilities.imageMediaTypes };
  return { kind: 'document', accepted: capabilities.documentMediaTypes };
}

/** `Image/PNG; charset=x` → `image/png`. */
export function normalizeMediaType(mimeType: string): string {
  const semicolon = mimeType.indexOf(';');
  return (semicolon === -1 ? mimeType : mimeType.slice(0, semicolon)).trim().toLowerCase();
}

/** True when `mimeType` is in `accepted` (globs allowed); an empty list accepts everything. */
export function acceptsMediaType(accepted: readonly string[], mimeType: string): boolean {
  if (accepted.length === 0) return true;
  const normalized = normalizeMediaType(mimeType);
  for (const pattern of accepted) if (matchesGlob(pattern, normalized)) return true;
  return false;
}
