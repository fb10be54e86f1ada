/** Capability declarations of Responses hosts: the same resolver as Chat Completions hosts. */
import type { Capabilities } from '../../core/capabilities.ts';
import { type HostCapabilities, resolveHostCapabilities } from '../openai/host-capabilities.ts';

export type { HostCapabilities } from '../openai/host-capabilities.ts';

/**
 * The Responses protocol carries images and PDFs but no audio or video input (the adapter has no
 * `input_audio` item), whatever a model row shared with Chat Completions says; a trailing assistant
 * message is an earlier turn, never continued.
 */
function protocolLimits(resolved: Capabilities): void {
  resolved.audio = false;
  resolved.video = false;
  resolved.audioMediaTypes = [];
  resolved.assistantPrefill = false;
}

/** The capability function of a Responses host (see `resolveHostCapabilities`). */
export function createCapabilityResolver(host: HostCapabilities): (model: string) => Capabilities {
  return resolveHostCapabilities(host, protocolLimits);
}
