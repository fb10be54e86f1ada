/** Prompt-cache points (`{cachePoint:{type:'default'}}`): where they go, never more than Bedrock's limit of 4. */
import type { PromptCacheRequest } from '../../core/request.ts';
import type { ProviderContext } from '../common/definition.ts';
import { allowedTtl, maxCacheBreakpoints, type CacheTtl } from '../anthropic/cache.ts';
import type { WireCachePoint, WireRequestBody } from './api.ts';
import { baseModelId, takesHourCache } from './capabilities.ts';
import type { SystemRun } from './messages.ts';

/** The most cache points one Converse request may carry (AWS: 4, across system, messages and tools, as Anthropic's). */
export const maxCachePoints = maxCacheBreakpoints;

type SystemBlocks = NonNullable<WireRequestBody['system']>;

/** A cache point of `ttl`: 5 minutes is the default one (no `ttl`), as other clients send it. */
function cachePointOf(ttl: CacheTtl): WireCachePoint {
  return ttl === '1h' ? { cachePoint: { type: 'default', ttl: '1h' } } : { cachePoint: { type: 'default' } };
}

function isCachePoint(block: object): boolean {
  return 'cachePoint' in block;
}

function ttlOf(block: object): CacheTtl {
  return (block as Partial<WireCachePoint>).cachePoint?.ttl === '1h' ? '1h' : '5m';
}

/** The TTL a model may take for a requested one: 5 minutes where it takes no 1-hour point, with a WARN. */
function modelTtl(requested: CacheTtl, context: ProviderContext): CacheTtl {
  if (requested === '5m' || takesHourCache(context.model)) return requested;
  context.warn('adjusted the cache ttl', {
    requested,
    sent: '5m',
    reason: 'the model takes no 1-hour cache point on Bedrock',
  });
  return '5m';
}

/**
 * The system blocks: the instructions joined into one, or — when the caller put prompt-cache
 * breakpoints in them and the model caches — one block per run with a cache point after each
 * marked one, so the cached prefix ends where the caller put it and not after the text that changes
 * per request. At most 4: the latest are kept (each caches a longer prefix), with a WARN. A 1-hour
 * breakpoint sends `ttl: '1h'` where the model takes it (`takesHourCache`; else 5 minutes, with a
 * WARN), and 5 minutes after a 5-minute one (Bedrock refuses a longer TTL after a shorter one).
 */
export function convertSystem(runs: SystemRun[], context: ProviderContext): SystemBlocks | undefined {
  const joined = runs.map((run) => run.text).join('\n\n');
  if (joined.trim() === '') return undefined;
  const marked = runs.filter((run) => run.breakpoint !== undefined);
  if (marked.length === 0 || !context.capabilities.promptCaching) return [{ text: joined }];
  const kept = new Set(marked.slice(-maxCachePoints));
  const hour = marked.some((run) => run.breakpoint === '1h') ? modelTtl('1h', context) : '5m';
  let adjusted = marked.length > kept.size;
  let fiveMinutes = false;
  const blocks: SystemBlocks = [];
  let texts: string[] = [];
  for (const run of runs) {
    texts.push(run.text);
    if (run.breakpoint !== undefined && !kept.has(run)) continue;
    blocks.push({ text: texts.join('\n\n') });
    texts = [];
    if (!kept.has(run)) continue;
    const ttl = run.breakpoint === '1h' && !fiveMinutes ? hour : '5m';
    if (run.breakpoint === '1h' && fiveMinutes) adjusted = true;
    if (ttl === '5m') fiveMinutes = true;
    blocks.push(cachePointOf(ttl));
  }
  if (adjusted)
    context.warn('adjusted the cache markers', {
      reason: `the system prompt's markers: Bedrock takes at most ${maxCachePoints} cache points, none of 1 hour after one of 5 minutes`,
      markers: marked.length,
    });
  if (texts.length > 0) blocks.push({ text: texts.join('\n\n') });
  return blocks;
}

/** The cache points already in the body: the caller's breakpoints, custom blocks, `providerOptions.bedrock` fields. */
export function countCachePoints(body: WireRequestBody): number {
  const blocks: object[] = [...(body.system ?? []), ...(body.toolConfig?.tools ?? [])];
  for (const message of body.messages) blocks.push(...message.content);
  return blocks.filter(isCachePoint).length;
}

/** The TTLs of the cache points in `blocks`, in order. */
function pointTtls(blocks: readonly object[]): CacheTtl[] {
  return blocks.filter(isCachePoint).map(ttlOf);
}

/**
 * Adds cache points for a cache request, while fewer than 4 are in the body: after the system
 * blocks (unless the caller's breakpoints placed some there), after the tools — only when the
 * system carries none, as the prompt reads tools → system → messages and a system cache point
 * caches the tools with it — and at the end of the last user message. AWS's prompt-caching table
 * takes tool cache points from Claude only (Amazon Nova: system and messages), so other families
 * get none after their tools. A point the limit of 4 leaves out is reported with a WARN. New points
 * take the requested TTL (`1h` where the model takes it, see `modelTtl`) unless the points around
 * them force another, as Bedrock refuses a longer TTL after a shorter one (`allowedTtl`, with a
 * WARN). Arrays that may be the caller's (`providerOptions.bedrock`) are copied, not written into.
 */
export function applyCachePoints(
  body: WireRequestBody,
  cache: PromptCacheRequest,
  context: ProviderContext,
): void {
  let count = countCachePoints(body);
  const requested = modelTtl(cache.ttl === '1h' ? '1h' : '5m', context);
  let warned = false;
  const point = (position: number): WireCachePoint => {
    const ttls = [
      ...pointTtls(body.toolConfig?.tools ?? []),
      ...pointTtls(body.system ?? []),
      ...pointTtls(body.messages.flatMap((message) => message.content)),
    ];
    const ttl = allowedTtl(requested, ttls, position);
    if (ttl !== requested && !warned) {
      warned = true;
      context.warn('adjusted the cache ttl', {
        requested,
        sent: ttl,
        reason: 'cache points already in the request; Bedrock refuses a longer TTL after a shorter one',
      });
    }
    count++;
    return cachePointOf(ttl);
  };
  const dropped: string[] = [];
  const room = (where: string): boolean => {
    if (count < maxCachePoints) return true;
    dropped.push(where);
    return false;
  };
  const toolTtls = () => pointTtls(body.toolConfig?.tools ?? []).length;
  if (body.system !== undefined && !body.system.some(isCachePoint) && room('system'))
    body.system = [...body.system, point(toolTtls() + pointTtls(body.system).length)];
  const systemCached = body.system?.some(isCachePoint) === true;
  const toolsCacheable = baseModelId(context.model).startsWith('anthropic.');
  const tools = body.toolConfig?.tools;
  if (tools !== undefined && toolsCacheable && !systemCached && !tools.some(isCachePoint) && room('tools'))
    body.toolConfig = { ...body.toolConfig!, tools: [...tools, point(toolTtls())] };
  const lastUser = body.messages.findLastIndex((message) => message.role === 'user');
  const message = body.messages[lastUser];
  if (message !== undefined && !isCachePoint(message.content.at(-1) ?? {}) && room('the last user message')) {
    const before = body.messages.slice(0, lastUser + 1).flatMap((earlier) => earlier.content);
    const position = toolTtls() + pointTtls(body.system ?? []).length + pointTtls(before).length;
    body.messages = body.messages.with(lastUser, {
      ...message,
      content: [...message.content, { ...point(position) }],
    });
  }
  if (dropped.length > 0)
    context.warn('adjusted the cache markers', {
      reason: `Bedrock takes at most ${maxCachePoints} cache points: none after ${dropped.join(', ')}`,
      dropped,
    });
}
