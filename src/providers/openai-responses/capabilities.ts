/** Capability declarations of Responses hosts: the Chat baseline, OpenAI's model rows, per-host and user overrides. */
import type { Capabilities } from '../../core/capabilities.ts';
import { baselineCapabilities, type CapabilityOverrides } from '../openai-chat/capabilities.ts';
import { matchesGlob, type ModelCapabilities } from '../openai/capabilities.ts';

/** One host's capability table: what every model has, then per-model globs (later keys win). */
export interface HostCapabilities {
  capabilities: Partial<Capabilities>;
  models: ModelCapabilities;
}

function applyModels(target: Capabilities, models: ModelCapabilities | undefined, model: string): void {
  if (models === undefined) return;
  for (const [pattern, overrides] of Object.entries(models)) {
    if (matchesGlob(pattern, model)) Object.assign(target, overrides);
  }
}

/**
 * The capability function of a Responses host: baseline ← host capabilities ← host model globs ←
 * user capabilities ← user model globs, cached per model.
 */
export function createCapabilityResolver(
  host: HostCapabilities,
  overrides: CapabilityOverrides = {},
): (model: string) => Capabilities {
  const cache = new Map<string, Capabilities>();
  return (model) => {
    const known = cache.get(model);
    if (known !== undefined) return known;
    const resolved: Capabilities = { ...baselineCapabilities, ...host.capabilities };
    applyModels(resolved, host.models, model);
    Object.assign(resolved, overrides.capabilities);
    applyModels(resolved, overrides.models, model);
    cache.set(model, resolved);
    return resolved;
  };
}
