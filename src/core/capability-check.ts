/**
 * The pre-flight check of a request against a model's capabilities: one rule per capability, each
 * failing with a classified error (a `providerCode` per rule) before any byte reaches the wire.
 */
import { ContextOverflowError } from './errors/context-overflow-error.ts';
import { InvalidRequestError } from './errors/invalid-request-error.ts';
import {
  acceptsMediaType,
  type Capabilities,
  capabilityUses,
  mediaTypeRule,
  normalizeMediaType,
} from './capabilities.ts';
import type { CanonicalRequest } from './request.ts';
import type { Part } from './transcript.ts';

/** Who is being called: named in every message. */
export interface CheckContext {
  provider: string;
  model: string;
}

/**
 * How far a local input estimate must exceed the context window before the call fails locally
 * with `ContextOverflowError`: 1.5×. The estimators are proven within ±10% on recorded counts
 * (`test/conformance/token-accuracy.test.ts`) and compatible hosts use four characters a token, so
 * an estimate 50% over the window cannot come from estimate error on text; closer calls go to the
 * provider, whose own overflow answer is classified `context_overflow` too.
 */
export const contextOverflowFactor = 1.5;

/**
 * Throws before any HTTP call when the request needs what the model lacks:
 * - a capability (images, audio, video, PDF, tools, parallel tool calls, structured output,
 *   reasoning, a system prompt): `InvalidRequestError` `unsupported_capability`, naming each and
 *   where the request uses it;
 * - `maxOutputTokens` not a positive integer: `invalid_max_output_tokens`; above the model's output
 *   limit (when known, > 0): `max_output_tokens_exceeded`;
 * - a media or file part of a type the model does not take: `unsupported_media_type`, naming the
 *   part's path and type (lists that are empty are not checked).
 */
export function assertCapabilities(
  request: CanonicalRequest,
  capabilities: Capabilities,
  context: CheckContext,
): void {
  assertSupported(request, capabilities, context);
  assertLimits(request, capabilities, context);
}

function failCheck(
  request: CanonicalRequest,
  context: CheckContext,
  providerCode: string,
  message: string,
): never {
  throw new InvalidRequestError({
    message: `${context.provider}: model ${context.model} ${message}`,
    providerCode,
    provider: context.provider,
    requestId: request.requestId,
  });
}

/**
 * The capability half of {@link assertCapabilities}: every capability the request uses is declared
 * (`unsupported_capability`). The router makes the same decision per candidate from the same facts,
 * so an adapter called by the router skips it (`providers/common/preflight.ts`).
 */
export function assertSupported(
  request: CanonicalRequest,
  capabilities: Capabilities,
  context: CheckContext,
): void {
  let missing: string[] | undefined;
  for (const [name, path] of capabilityUses(request)) {
    if (!capabilities[name]) (missing ??= []).push(`${name} (${path})`);
  }
  if (missing !== undefined)
    failCheck(request, context, 'unsupported_capability', `does not support ${missing.join(', ')}`);
}

/** The request half of {@link assertCapabilities}: the output limit and each media part's type. */
export function assertLimits(
  request: CanonicalRequest,
  capabilities: Capabilities,
  context: CheckContext,
): void {
  const limit = request.maxOutputTokens;
  if (!(limit > 0) || !Number.isInteger(limit)) {
    failCheck(
      request,
      context,
      'invalid_max_output_tokens',
      `needs maxOutputTokens to be a positive integer, got ${limit}`,
    );
  }
  if (capabilities.maxOutputTokens > 0 && limit > capabilities.maxOutputTokens) {
    failCheck(
      request,
      context,
      'max_output_tokens_exceeded',
      `takes at most ${capabilities.maxOutputTokens} output tokens, got maxOutputTokens ${limit}`,
    );
  }
  const refused = refusedMediaType(request, capabilities);
  if (refused !== undefined) {
    failCheck(
      request,
      context,
      'unsupported_media_type',
      refused.byUrl === true
        ? `takes documents inline only (base64), not by URL (${refused.path})`
        : `does not take ${refused.kind} type ${refused.mimeType} (${refused.path}); it takes ${refused.accepted.join(', ')}`,
    );
  }
}

interface RefusedMedia {
  path: string;
  /** A document given by URL to a model that takes documents inline only. */
  byUrl?: true;
  mimeType: string;
  kind: string;
  accepted: readonly string[];
}

/** The first media or file part whose type the model does not take. */
function refusedMediaType(request: CanonicalRequest, capabilities: Capabilities): RefusedMedia | undefined {
  for (let index = 0; index < request.transcript.length; index++) {
    const item = request.transcript[index]!;
    const found = refusedInParts(item.parts, `transcript[${index}].parts`, capabilities);
    if (found !== undefined) return found;
  }
  return undefined;
}

function refusedInParts(
  parts: readonly Part[],
  path: string,
  capabilities: Capabilities,
): RefusedMedia | undefined {
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index]!;
    if (part.type === 'media' || part.type === 'file') {
      const rule = mediaTypeRule(part, capabilities);
      if (rule !== undefined && !acceptsMediaType(rule.accepted, part.mimeType)) {
        const mimeType = normalizeMediaType(part.mimeType);
        return { path: `${path}[${index}]`, mimeType, kind: rule.kind, accepted: rule.accepted };
      }
      if (part.type === 'file' && part.data.type === 'uri' && capabilities.documentUrls === false) {
        const where = `${path}[${index}]`;
        return { path: where, mimeType: part.mimeType, kind: 'document', accepted: [], byUrl: true };
      }
    } else if (part.type === 'tool-result' && part.output.type === 'parts') {
      const found = refusedInParts(part.output.parts, `${path}[${index}].output.parts`, capabilities);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** How an Anthropic beta flag that opens the long context window begins (`context-1m-2025-08-07`). */
const longContextBeta = 'context-1m-';

/**
 * Whether an adapter of `providerType` sends a gateway client's own beta flags
 * (`providerOptions.anthropic.clientBetas`): the Anthropic API's own adapter only, never Claude on
 * Bedrock or Vertex (`RequestSettings.clientBetas` in `providers/anthropic/request.ts`). Asked with
 * the adapter's type (the router) or its provider's own name (the adapter: `anthropic` for one
 * named `work-claude`), never the name it is configured under.
 */
export function sendsClientBetas(providerType: string): boolean {
  return providerType === 'anthropic';
}

/**
 * Whether `request` sends the long-context beta flag: in `providerOptions.anthropic` (`betas`, or
 * `clientBetas`, a gateway client's own, when the adapter sends those: {@link sendsClientBetas}),
 * where the Anthropic adapter reads its flags — for an adapter named otherwise, once its own name's
 * options are merged in (`ownProviderOptions`; the router's `windowOf`).
 */
export function asksLongContext(
  request: Pick<CanonicalRequest, 'providerOptions'>,
  clientBetas: boolean,
): boolean {
  const options = request.providerOptions?.anthropic;
  if (options === undefined) return false;
  return [options.betas, clientBetas ? options.clientBetas : undefined].some(
    (flags) =>
      Array.isArray(flags) &&
      flags.some((flag) => typeof flag === 'string' && flag.startsWith(longContextBeta)),
  );
}

/**
 * The input window `request` has on a model: its `longContextWindow` when the request sends the
 * flag that opens it ({@link asksLongContext}) and it is the larger, else its `contextWindow`.
 * `clientBetas`: whether the model's adapter sends a client's own flags ({@link sendsClientBetas});
 * toward Claude on Bedrock or Vertex a client's `context-1m-*` opens nothing (never sent, the
 * upstream would refuse the longer prompt).
 */
export function contextWindowOf(
  capabilities: Pick<Capabilities, 'contextWindow' | 'longContextWindow'>,
  request: Pick<CanonicalRequest, 'providerOptions'>,
  clientBetas: boolean,
): number {
  const long = capabilities.longContextWindow;
  return long !== undefined && long > capabilities.contextWindow && asksLongContext(request, clientBetas)
    ? long
    : capabilities.contextWindow;
}

/**
 * The one context-window rule (the adapter's pre-flight and the router's candidate check both use
 * it): the input estimate when it is over `contextOverflowFactor` × `window`, else undefined (a
 * window of 0 is unknown: never over). `estimate` is only called when `upperBound` (a cheap bound
 * no estimator exceeds) could overflow, so ordinary requests never pay for an estimate (nor load a
 * tokenizer). Both are asked only whether they are above the threshold they are given: each may
 * stop once past it and return a number above it.
 */
export function overflowEstimate(
  window: number,
  upperBound: (stopAbove: number) => number,
  estimate: (stopAbove: number) => number,
): number | undefined {
  if (!(window > 0)) return undefined;
  const threshold = window * contextOverflowFactor;
  if (upperBound(threshold) <= threshold) return undefined;
  const tokens = estimate(threshold);
  return tokens <= threshold ? undefined : tokens;
}

/**
 * Throws `ContextOverflowError` (code `context_window_exceeded`) when the local input estimate is
 * over `contextOverflowFactor` × `window`, the request's ({@link contextWindowOf}; {@link overflowEstimate}).
 */
export function assertContextWindow(
  window: number,
  context: CheckContext & { requestId?: string },
  upperBound: (stopAbove: number) => number,
  estimate: (stopAbove: number) => number,
): void {
  const tokens = overflowEstimate(window, upperBound, estimate);
  if (tokens === undefined) return;
  throw new ContextOverflowError({
    message: `${context.provider}: model ${context.model} has a context window of ${window} tokens; the input is estimated at ${tokens} tokens (checked locally, before any HTTP call)`,
    providerCode: 'context_window_exceeded',
    provider: context.provider,
    requestId: context.requestId,
  });
}
