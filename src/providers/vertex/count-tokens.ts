/**
 * Vertex token counting: Gemini models at `…/publishers/google/models/{m}:countTokens` (free), the
 * generation's body with the fields that endpoint takes. Other publishers' models (Claude, Mistral
 * AI, the MaaS open models) are not counted here: their requests are estimated locally.
 */
import { isJsonObject, pickFields } from '../../core/json.ts';
import type { ProviderContext, WireRequest } from '../common/definition.ts';
import { countPath } from '../gemini/count-tokens.ts';
import { resolveModel } from './publishers.ts';

/** The body fields Vertex's `countTokens` takes. */
const countedFields: ReadonlySet<string> = new Set([
  'contents',
  'systemInstruction',
  'tools',
  'generationConfig',
]);

/** A Gemini model's `:generateContent` request → its `:countTokens` request; `undefined` for other publishers. */
export function buildCountRequest(wire: WireRequest, context: ProviderContext): WireRequest | undefined {
  if (resolveModel(context.model, context.provider).publisher.protocol !== 'gemini') return undefined;
  return { ...wire, path: countPath(wire.path), body: pickFields(wire.body, countedFields) };
}

/** `{ "totalTokens": n, … }` → n. */
export function parseTokenCount(body: unknown): number | undefined {
  const tokens = isJsonObject(body) ? body.totalTokens : undefined;
  return typeof tokens === 'number' ? tokens : undefined;
}
