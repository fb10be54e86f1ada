/** OpenAI's `prompt_cache_key`, as both of its protocols (Chat Completions, Responses) send it. */
import { createHash } from 'node:crypto';
import type { CanonicalRequest } from '../../core/request.ts';
import type { ProviderContext } from '../common/definition.ts';

/** The longest `prompt_cache_key` OpenAI takes (a longer one is a 400). */
const maxCacheKeyLength = 64;

/**
 * The `prompt_cache_key` of a cache request: the caller's key (hashed to 64 characters when longer,
 * the same key always giving the same value), else the session's id when the caller gave a session
 * (a conversation's calls share it), else none — a key made fresh for a one-off call would send
 * each call of a conversation to another cache.
 */
export function promptCacheKey(request: CanonicalRequest, context: ProviderContext): string | undefined {
  const { cache } = request;
  if (cache === undefined) return undefined;
  const key = cache.key ?? (context.sessionLess === true ? undefined : `switchyard-${context.session.id}`);
  if (key === undefined || key.length <= maxCacheKeyLength) return key;
  return `switchyard-${createHash('sha256')
    .update(key)
    .digest('hex')
    .slice(0, maxCacheKeyLength - 11)}`;
}
