/** Token usage in disjoint buckets, and cost. */

/**
 * Token counts in disjoint buckets: a token is counted in exactly one of `input`, `cacheRead`,
 * `cacheWrite` (the input side) and `output` (the output side). `reasoning` is the part of `output`
 * that was reasoning, not an extra bucket. Providers that report cached tokens inside their prompt
 * count are converted with {@link usageFromInclusive}.
 */
export interface Usage {
  /** Input tokens read neither from nor into a cache. */
  input: number;
  /** Input tokens served from the prompt cache. */
  cacheRead: number;
  /** Input tokens written into the prompt cache. */
  cacheWrite: number;
  /** Of `cacheWrite`, how many were written with a 1-hour lifetime (priced higher), when the provider says. */
  cacheWrite1h?: number;
  /** Output tokens, reasoning included. */
  output: number;
  /** Of `output`, how many were reasoning. */
  reasoning: number;
  /**
   * Of the input (`input` + `cacheRead` + `cacheWrite`), how many the provider's own tool use added
   * to the prompt (Gemini's `toolUsePromptTokenCount`: search results, fetched pages), when the
   * provider says; absent when none. A part of the input, never added to it.
   */
  toolUsePrompt?: number;
  /**
   * Web searches the provider ran on its side and bills per search, not per token (Anthropic's
   * `usage.server_tool_use.web_search_requests`, OpenAI Responses' completed `web_search_call`
   * items); absent when none. Priced at the model's `web_searches_kcount` where it has one.
   */
  webSearches?: number;
  /**
   * Of `input` (uncached), how many tokens were audio, when the provider says (OpenAI Chat's
   * `prompt_tokens_details.audio_tokens`, Gemini's `AUDIO` prompt modality); absent when none. A
   * part of `input`, never added to it: priced at the model's audio input rate where it has one.
   */
  audioInput?: number;
  /** Of `cacheRead`, how many tokens were audio (Gemini's `cacheTokensDetails`); absent when none. */
  audioCacheRead?: number;
  /**
   * Of `output`, how many tokens were audio (OpenAI Chat's `completion_tokens_details.audio_tokens`,
   * Gemini's `AUDIO` candidates modality); absent when none. A part of `output`, never added to it.
   */
  audioOutput?: number;
  /**
   * The service tier the provider says served the call, as it names it (Anthropic's
   * `usage.service_tier`: `standard`, `priority`, `batch`; OpenAI's `service_tier`: `default`,
   * `flex`, `priority`, `scale`; Vertex's `trafficType` as `standard`, `flex`, `priority` or its
   * own name lower-cased; Bedrock's `serviceTier.type`; the Gemini API's `x-gemini-service-tier`
   * header); absent when the provider says nothing (or
   * only echoes the request's `auto`). A fact of one call: sums of usages carry none. Priced by
   * {@link isStandardServiceTier}: another tier is costed at the standard rate and its cost says so
   * (`Cost.unpricedServiceTier`).
   */
  serviceTier?: string;
  /** Optional cost, computed from a versioned price table. */
  cost?: Cost;
  /**
   * Usage of OTHER models the same response billed (an Anthropic advisor on `claude-opus-*` under
   * a Sonnet executor, the model a `fallback_message` replaced), by canonical id. The top-level
   * buckets are what the provider bills for the response's own model; each entry here is priced
   * at its own model's rate, and `cost` is the sum of all of them. Absent when one model served.
   */
  byModel?: Record<string, ModelUsage>;
}

/** One model's share of a multi-model response: the same disjoint buckets, and its cost. */
export type ModelUsage = Omit<Usage, 'byModel'>;

/** The audio parts of the buckets (`audioInput` of `input`, `audioCacheRead` of `cacheRead`, `audioOutput` of `output`). */
const audioParts = ['audioInput', 'audioCacheRead', 'audioOutput'] as const;

/**
 * The token buckets (and web searches) of `left` and `right` added (a bucket `right` lacks counts
 * 0); cost and `byModel` are not carried: the one bucket sum every usage addition builds on.
 */
export function sumBuckets(left: ModelUsage, right: Partial<ModelUsage>): ModelUsage {
  const sum: ModelUsage = {
    input: left.input + (right.input ?? 0),
    cacheRead: left.cacheRead + (right.cacheRead ?? 0),
    cacheWrite: left.cacheWrite + (right.cacheWrite ?? 0),
    output: left.output + (right.output ?? 0),
    reasoning: left.reasoning + (right.reasoning ?? 0),
  };
  const cacheWrite1h = (left.cacheWrite1h ?? 0) + (right.cacheWrite1h ?? 0);
  if (cacheWrite1h > 0) sum.cacheWrite1h = cacheWrite1h;
  const toolUsePrompt = (left.toolUsePrompt ?? 0) + (right.toolUsePrompt ?? 0);
  if (toolUsePrompt > 0) sum.toolUsePrompt = toolUsePrompt;
  const webSearches = (left.webSearches ?? 0) + (right.webSearches ?? 0);
  if (webSearches > 0) sum.webSearches = webSearches;
  for (const part of audioParts) {
    const total = (left[part] ?? 0) + (right[part] ?? 0);
    if (total > 0) sum[part] = total;
  }
  return sum;
}

/** Adds per-model usages model by model, bucket by bucket (costs are recomputed by the pricer). */
export function addModelUsages(
  left: Record<string, ModelUsage> | undefined,
  right: Record<string, ModelUsage> | undefined,
): Record<string, ModelUsage> | undefined {
  if (right === undefined) return left;
  if (left === undefined) return right;
  const sum: Record<string, ModelUsage> = { ...left };
  for (const [model, usage] of Object.entries(right)) {
    const known = sum[model];
    if (known === undefined) {
      sum[model] = usage;
      continue;
    }
    sum[model] = sumBuckets(known, usage);
  }
  return sum;
}

/** A monetary cost. */
export interface Cost {
  amount: number;
  /** ISO 4217 code, e.g. `USD`. */
  currency: string;
  /** The price-table version the amount was computed from. */
  pricingVersion?: string;
  /**
   * Of `amount`, what the usage's web searches cost (`webSearches` × the price per 1,000 / 1,000);
   * absent when no search was priced. The rest of `amount` is tokens.
   */
  webSearchFees?: number;
  /**
   * The usage's `serviceTier` when the price table has no price for that tier (no maintained source
   * prices OpenAI's `flex`/`priority`, Anthropic's `batch`/`priority`…): `amount` is the model's
   * standard rate, an estimate — too high for a discounted tier, too low for a dearer one. Absent
   * when the call was standard or said nothing of its tier.
   */
  unpricedServiceTier?: string;
}

/** The names providers give their standard (undiscounted, unprioritised) tier, lower-cased. */
const standardTiers = new Set(['standard', 'default', 'on_demand']);

/** Whether `tier` is a provider's standard tier (`standard`, `default`, Groq's `on_demand`), case aside. */
export function isStandardServiceTier(tier: string): boolean {
  return standardTiers.has(tier.toLowerCase());
}

/**
 * The one rule for a service tier a provider reports: a short name (letters, digits, `_`, `-`,
 * `.`, at most 64 characters); anything else, and `auto` (the request's own value echoed back, no
 * tier served), is absent.
 */
export function serviceTierName(value: unknown): string | undefined {
  return typeof value === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(value) && value.toLowerCase() !== 'auto'
    ? value
    : undefined;
}

/**
 * `usage.serviceTier` in the vocabulary of a client protocol whose standard tier is named
 * `standardName` (OpenAI's `default`, Anthropic's `standard`): a standard tier under that name,
 * another lower-cased as reported, and `standardName` when the upstream said nothing (each protocol
 * documents its standard tier as the default).
 */
export function clientServiceTier(usage: Pick<Usage, 'serviceTier'>, standardName: string): string {
  const tier = usage.serviceTier;
  return tier === undefined || isStandardServiceTier(tier) ? standardName : tier.toLowerCase();
}

/** A usage with every bucket at zero. */
export function emptyUsage(): Usage {
  return { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 };
}

/**
 * The one rule for a token count a provider reports: a number from zero to 2^53 − 1, rounded to the
 * nearest integer; anything else (negative, `NaN`, `Infinity`, `1e308`, not a number) is absent
 * (`undefined`). Past `Number.MAX_SAFE_INTEGER` a count is no count (sums of two would be `Infinity`).
 */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && value >= 0 && value <= Number.MAX_SAFE_INTEGER
    ? Math.round(value)
    : undefined;
}

/**
 * The most server-side searches one reply is believed to have run (Anthropic's own cap per request,
 * `max_uses`, is chosen by the caller; no real reply comes near this): a count above it is no count,
 * so a broken or hostile upstream cannot bill a key's budget without bound.
 */
export const maxSearchesPerReply = 10_000;

/** A provider's count of the server-side searches a reply ran: {@link tokenCount}, at most {@link maxSearchesPerReply}. */
export function searchCount(value: unknown): number | undefined {
  const count = tokenCount(value);
  return count !== undefined && count <= maxSearchesPerReply ? count : undefined;
}

/** Total input tokens across the three input buckets. */
export function totalInputTokens(usage: Usage): number {
  return usage.input + usage.cacheRead + usage.cacheWrite;
}

/**
 * Converts counts from a provider whose prompt count *includes* cached tokens (OpenAI, Gemini) into
 * disjoint buckets. Each count goes through {@link tokenCount} (rounded; negative or non-finite is
 * absent, i.e. 0); cached and cache-write counts are parts of the prompt, so never more than it
 * (inconsistent provider data).
 */
export function usageFromInclusive(counts: {
  prompt: number;
  cached?: number;
  cacheWrite?: number;
  output: number;
  reasoning?: number;
}): Usage {
  const prompt = tokenCount(counts.prompt) ?? 0;
  // Parts of the prompt count: never more than it (a host that says 50 cached of 10 prompt tokens
  // would otherwise bill, and report to clients, a prompt of 50).
  const cacheRead = Math.min(tokenCount(counts.cached) ?? 0, prompt);
  const cacheWrite = Math.min(tokenCount(counts.cacheWrite) ?? 0, prompt - cacheRead);
  return {
    input: prompt - cacheRead - cacheWrite,
    cacheRead,
    cacheWrite,
    output: tokenCount(counts.output) ?? 0,
    reasoning: tokenCount(counts.reasoning) ?? 0,
  };
}

/**
 * Every token a usage billed: its own buckets and those of the other models in `byModel` (an
 * advisor's, a model failure failed over from). What a token budget or a token counter counts.
 */
export function billedTokens(usage: Usage): ModelUsage {
  let sum = sumBuckets(usage, {});
  if (usage.byModel !== undefined)
    for (const part of Object.values(usage.byModel)) sum = sumBuckets(sum, part);
  return sum;
}
