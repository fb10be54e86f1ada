/** Capability declarations of Responses hosts: the same resolver as Chat Completions hosts. */
import type { Capabilities } from '../../core/capabilities.ts';
import {
  type CapabilityOverrides,
  type HostCapabilities,
  resolveHostCapabilities,
} from '../openai-chat/capabilities.ts';

export type { HostCapabilities } from '../openai-chat/capabilities.ts';

/** The capability function of a Responses host (see `resolveHostCapabilities`). */
export function createCapabilityResolver(
  host: HostCapabilities,
  overrides: CapabilityOverrides = {},
): (model: string) => Capabilities {
  return resolveHostCapabilities(host, overrides);
}
