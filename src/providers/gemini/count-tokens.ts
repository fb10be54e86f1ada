/**
 * Gemini's token counting (`POST models/{model}:countTokens`, free): the generation's body wrapped
 * as `generateContentRequest` (with its `model`), so its system instruction and tools count too.
 */
import { isJsonObject } from '../../core/json.ts';
import type { ProviderContext, WireRequest } from '../common/definition.ts';

/** The generation's path (`/models/{m}:generateContent`) with the count method in its place. */
export function countPath(path: string): string {
  return path.replace(/:[A-Za-z]+(\?.*)?$/, ':countTokens');
}

/** The generation's `:generateContent` request → the `:countTokens` request. */
export function buildCountRequest(wire: WireRequest, context: ProviderContext): WireRequest {
  const model = context.model.includes('/') ? context.model : `models/${context.model}`;
  return { ...wire, path: countPath(wire.path), body: { generateContentRequest: { model, ...wire.body } } };
}

/** `{ "totalTokens": n, … }` → n. */
export function parseTokenCount(body: unknown): number | undefined {
  const tokens = isJsonObject(body) ? body.totalTokens : undefined;
  return typeof tokens === 'number' ? tokens : undefined;
}
