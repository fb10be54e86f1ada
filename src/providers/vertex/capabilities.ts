/** What each Vertex model supports: the Gemini rows for Google's models, the Anthropic rows for Claude, with Vertex's catalog limits. */
import type { Capabilities } from '../../core/capabilities.ts';
import { withCatalog } from '../../core/catalog.ts';
import { anthropicCapabilities } from '../anthropic/capabilities.ts';
import { catalog } from '../catalog/vertex.generated.ts';
import { capabilitiesFor as geminiCapabilities } from '../gemini/capabilities.ts';
import { publisherOf } from './model-id.ts';

/**
 * Declared per publisher, then narrowed to what Vertex serves through this adapter: no
 * `cachedContents` on Vertex here (the Gemini cache path names AI Studio resources), and Claude on
 * Vertex takes no URL document sources, no Files API and no server-side tools beyond Google's
 * own, so its media are base64 only (the pre-flight check still admits URL images: Vertex fetches
 * none, so a URL image fails on the wire, as on the API).
 */
function declared(model: string): Capabilities {
  if (publisherOf(model) === 'anthropic') return { ...anthropicCapabilities(model.replace('@', '-')) };
  return { ...geminiCapabilities(model), promptCaching: false };
}

/** Capabilities of a Vertex model name (`gemini-2.5-flash`, `claude-sonnet-4-5@20250929`). */
export const capabilitiesFor: (model: string) => Capabilities = withCatalog(declared, catalog);
