/** Honest capability declarations: a baseline, OpenAI's model families, and per-model-glob overrides. */
import { applyModelRows, type Capabilities } from '../../core/capabilities.ts';
import { type HostCapabilities, resolveHostCapabilities } from '../openai/host-capabilities.ts';
import type { ChatQuirks } from './quirks.ts';

export { matchesAnyGlob, matchesGlob, openaiModelCapabilities } from '../openai/capabilities.ts';
export { baselineCapabilities, type HostCapabilities } from '../openai/host-capabilities.ts';

/** User-side capability overrides (every adapter takes them; the shared runtime applies them). */
export type { CapabilityOverrides } from '../../core/capabilities.ts';

/**
 * Returns the capability function of a Chat Completions host ({@link resolveHostCapabilities}):
 * its quirks' table plus a JSON host definition's own `capabilities` / `models`; structured output
 * is off when the host has no `response_format` for it.
 */
export function createCapabilityResolver(
  quirks: ChatQuirks,
  host: Partial<HostCapabilities> = {},
): (model: string) => Capabilities {
  return resolveHostCapabilities({ ...quirks, catalog: host.catalog }, (resolved, model) => {
    Object.assign(resolved, host.capabilities);
    applyModelRows(resolved, host.models, model);
    if (quirks.structuredOutput === 'none') resolved.structuredOutput = false;
    // `convertFile` sends a PDF inline only, whatever a host declares: a file URL is refused before
    // the call, never dropped.
    resolved.documentUrls = false;
    // A trailing assistant message is sent as an earlier turn (no host's `prefix` flag is sent).
    resolved.assistantPrefill = false;
  });
}
