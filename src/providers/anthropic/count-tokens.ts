/**
 * Anthropic's token counting (`POST /v1/messages/count_tokens`, free): the Messages body the
 * generation would send, without the fields that endpoint refuses (`max_tokens`, `stream`,
 * sampling, stop sequences, metadata).
 */
import { isJsonObject, type JsonObject, pickFields } from '../../core/json.ts';
import type { ProviderContext, WireRequest } from '../common/definition.ts';

/** The body fields `count_tokens` takes (its reference; beta ones included: it refuses any other). */
const countedFields: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'thinking',
  'output_config',
  'output_format',
  'cache_control',
  'speed',
  'mcp_servers',
  'context_management',
]);

/** The body's fields `count_tokens` takes, in their order. */
export function countedBody(body: JsonObject): JsonObject {
  return pickFields(body, countedFields);
}

/** The generation's `/messages` request → the `/messages/count_tokens` request (same headers). */
export function buildCountRequest(wire: WireRequest, _context: ProviderContext): WireRequest {
  return { ...wire, path: `${wire.path}/count_tokens`, body: countedBody(wire.body) };
}

/** `{ "input_tokens": n }` → n. */
export function parseTokenCount(body: unknown): number | undefined {
  const tokens = isJsonObject(body) ? body.input_tokens : undefined;
  return typeof tokens === 'number' ? tokens : undefined;
}
