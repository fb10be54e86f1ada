/**
 * Tool names every provider takes: OpenAI and Anthropic refuse anything outside
 * `[a-zA-Z0-9_-]{1,64}` (so `.` and `:`, which Gemini and MCP servers allow), Gemini a name that
 * starts with a digit. A name outside the intersection is given a safe one, deterministically (its
 * allowed characters kept, a digest of the original appended), so it is the same on every turn.
 */
import { hashId } from './tool-id-map.ts';

/** What every provider takes: a letter or `_` first, then `[a-zA-Z0-9_-]`, 64 characters at most. */
export const safeToolNamePattern = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

/** `name` when every provider takes it, else its safe form (deterministic). */
export function safeToolName(name: string): string {
  if (safeToolNamePattern.test(name)) return name;
  // Only the kept head is rewritten (a 32 MiB name took seconds); the digest covers the whole name.
  const kept = name.slice(0, 55).replace(/[^a-zA-Z0-9_-]/g, '_');
  const head = /^[a-zA-Z_]/.test(kept) ? kept : `t_${kept}`;
  return `${head.slice(0, 55)}_${hashId(name, 8)}`;
}
