/**
 * Vertex token counting (free): Gemini models at `…/publishers/google/models/{m}:countTokens`, the
 * generation's body with the fields that endpoint takes, answered `{ "totalTokens": n }`; Claude
 * models at `…/publishers/anthropic/models/count-tokens:rawPredict` (one endpoint, the model in the
 * body), the Anthropic count body (`count_tokens`' fields, no `anthropic_version`), answered
 * `{ "input_tokens": n }`. Both on the generation's host. Other publishers' models (Mistral AI,
 * the MaaS open models) are not counted here: their requests are estimated locally.
 */
import { isJsonObject, pickFields } from '../../core/json.ts';
import type { ProviderContext, WireRequest } from '../common/definition.ts';
import { countedBody } from '../anthropic/count-tokens.ts';
import { countPath } from '../gemini/count-tokens.ts';
import { resolveModel } from './publishers.ts';

/** The body fields Vertex's `countTokens` takes. */
const countedFields: ReadonlySet<string> = new Set([
  'contents',
  'systemInstruction',
  'tools',
  'generationConfig',
]);

/** A model's generation request → its count request; `undefined` for publishers without one here. */
export function buildCountRequest(wire: WireRequest, context: ProviderContext): WireRequest | undefined {
  const model = resolveModel(context.model, context.provider);
  const { protocol, id } = model.publisher;
  if (protocol === 'gemini')
    return { ...wire, path: countPath(wire.path), body: pickFields(wire.body, countedFields) };
  if (protocol !== 'anthropic-messages') return undefined;
  // Not `/publishers/anthropic/models/{m}:rawPredict`: one endpoint, named as a model, for all.
  const path = `/publishers/${id}/models/count-tokens:rawPredict`;
  return { ...wire, path, body: { model: model.name, ...countedBody(wire.body) } };
}

/** `{ "totalTokens": n, … }` (Gemini) or `{ "input_tokens": n }` (Claude) → n. */
export function parseTokenCount(body: unknown): number | undefined {
  const tokens = isJsonObject(body) ? (body.totalTokens ?? body.input_tokens) : undefined;
  return typeof tokens === 'number' ? tokens : undefined;
}
