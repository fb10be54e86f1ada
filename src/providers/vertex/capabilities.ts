/**
 * What each Vertex model supports, by its publisher (`publishers.ts`): the Gemini rows for Google's
 * models and the Anthropic rows for Claude, with Vertex's catalog limits; the Chat Completions
 * publishers' (Mistral AI, the MaaS open models) from their quirks' tables.
 */
import type { Capabilities } from '../../core/capabilities.ts';
import { applyCatalog, catalogEntry } from '../../core/catalog.ts';
import { LruCache } from '../../core/lru.ts';
import { anthropicCapabilities } from '../anthropic/capabilities.ts';
import { catalog } from '../catalog/vertex.generated.ts';
import { capabilitiesFor as geminiCapabilities } from '../gemini/capabilities.ts';
import { capabilitiesFor as chatCapabilities } from './chat-completions.ts';
import { resolveModel, type VertexModel } from './publishers.ts';

/**
 * Declared per publisher, then narrowed to what Vertex serves through this adapter: no
 * `cachedContents` on Vertex here (the Gemini cache path names AI Studio resources), and Claude on
 * Vertex takes no URL document sources, no Files API and no server-side tools beyond Google's
 * own, so its media are base64 only (the pre-flight check still admits URL media: Vertex fetches
 * none, so the request leaves them out with a WARN, as toward Bedrock: `request.ts`).
 */
function declared(model: VertexModel): Capabilities {
  const { protocol } = model.publisher;
  if (protocol === 'openai-chat') return chatCapabilities(model);
  const resolved =
    protocol === 'anthropic-messages'
      ? { ...anthropicCapabilities(model.name.replace('@', '-')) }
      : { ...geminiCapabilities(model.name), promptCaching: false };
  applyCatalog(resolved, catalogEntry(catalog, model.name));
  return resolved;
}

/** Resolved capabilities by wire name (names come from callers: the cache is bounded). */
const cache = new LruCache<string, Capabilities>(512);

/**
 * Capabilities of a Vertex model name (`gemini-2.5-flash`, `claude-sonnet-4-5@20250929`,
 * `meta/llama-3.3-70b-instruct-maas`). A name outside the grammar, or of a publisher the adapter does
 * not serve, is an `InvalidRequestError` (the first thing a call asks, so it is refused before the wire).
 */
export function capabilitiesFor(model: string): Capabilities {
  const known = cache.get(model);
  if (known !== undefined) return known;
  const resolved = declared(resolveModel(model));
  cache.set(model, resolved);
  return resolved;
}
