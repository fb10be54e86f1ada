/**
 * OpenAI's Responses token counting (`POST /v1/responses/input_tokens`, free): the Responses body
 * the generation would send, without the fields that endpoint refuses (`stream`, `store`,
 * `max_output_tokens`, sampling, `include`, …).
 */
import { isJsonObject, pickFields } from '../../core/json.ts';
import type { ProviderContext, WireRequest } from '../common/definition.ts';

/** The body fields `input_tokens` takes (its reference). */
const countedFields: ReadonlySet<string> = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'previous_response_id',
  'conversation',
  'reasoning',
  'text',
  'truncation',
]);

/** The generation's `/responses` request → the `/responses/input_tokens` request (a query string kept). */
export function buildCountRequest(wire: WireRequest, _context: ProviderContext): WireRequest {
  const query = wire.path.indexOf('?');
  const path =
    query === -1
      ? `${wire.path}/input_tokens`
      : `${wire.path.slice(0, query)}/input_tokens${wire.path.slice(query)}`;
  return { ...wire, path, body: pickFields(wire.body, countedFields) };
}

/** `{ "object": "response.input_tokens", "input_tokens": n }` → n. */
export function parseTokenCount(body: unknown): number | undefined {
  const tokens = isJsonObject(body) ? body.input_tokens : undefined;
  return typeof tokens === 'number' ? tokens : undefined;
}
