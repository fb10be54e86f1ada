/** Prompt-cache points (`{cachePoint:{type:'default'}}`): where they go, never more than Bedrock's limit of 4. */
import type { ProviderContext } from '../common/definition.ts';
import { maxCacheBreakpoints } from '../anthropic/cache.ts';
import type { WireCachePoint, WireRequestBody } from './api.ts';
import { baseModelId } from './capabilities.ts';
import type { SystemRun } from './messages.ts';

/** The most cache points one Converse request may carry (AWS: 4, across system, messages and tools, as Anthropic's). */
export const maxCachePoints = maxCacheBreakpoints;

const cachePoint: WireCachePoint = { cachePoint: { type: 'default' } };

type SystemBlocks = NonNullable<WireRequestBody['system']>;

function isCachePoint(block: object): boolean {
  return 'cachePoint' in block;
}

/**
 * The system blocks: the instructions joined into one, or — when the caller put prompt-cache
 * breakpoints in them and the model caches — one block per run with a cache point after each
 * marked one, so the cached prefix ends where the caller put it and not after the text that changes
 * per request. At most 4: the latest are kept (each caches a longer prefix), with a WARN. Converse's
 * cache point has no TTL: a 1-hour breakpoint is sent as the default one.
 */
export function convertSystem(runs: SystemRun[], context: ProviderContext): SystemBlocks | undefined {
  const joined = runs.map((run) => run.text).join('\n\n');
  if (joined.trim() === '') return undefined;
  const marked = runs.filter((run) => run.breakpoint !== undefined);
  if (marked.length === 0 || !context.capabilities.promptCaching) return [{ text: joined }];
  const kept = new Set(marked.slice(-maxCachePoints));
  if (marked.length > kept.size)
    context.warn('adjusted the cache markers', {
      reason: `the system prompt's markers: Bedrock takes at most ${maxCachePoints} cache points`,
      markers: marked.length,
    });
  const blocks: SystemBlocks = [];
  let texts: string[] = [];
  for (const run of runs) {
    texts.push(run.text);
    if (run.breakpoint !== undefined && !kept.has(run)) continue;
    blocks.push({ text: texts.join('\n\n') });
    texts = [];
    if (kept.has(run)) blocks.push({ ...cachePoint });
  }
  if (texts.length > 0) blocks.push({ text: texts.join('\n\n') });
  return blocks;
}

/** The cache points already in the body: the caller's breakpoints, custom blocks, `providerOptions.bedrock` fields. */
export function countCachePoints(body: WireRequestBody): number {
  const blocks: object[] = [...(body.system ?? []), ...(body.toolConfig?.tools ?? [])];
  for (const message of body.messages) blocks.push(...message.content);
  return blocks.filter(isCachePoint).length;
}

/**
 * Adds cache points for a cache request, while fewer than 4 are in the body: after the system
 * blocks (unless the caller's breakpoints placed some there), after the tools — only when the
 * system carries none, as the prompt reads tools → system → messages and a system cache point
 * caches the tools with it — and at the end of the last user message. AWS's prompt-caching table
 * takes tool cache points from Claude only (Amazon Nova: system and messages), so other families
 * get none after their tools. A point the limit of 4 leaves out is reported with a WARN. Arrays
 * that may be the caller's (`providerOptions.bedrock`) are copied, not written into.
 */
export function applyCachePoints(body: WireRequestBody, context: ProviderContext): void {
  let count = countCachePoints(body);
  const dropped: string[] = [];
  const room = (where: string): boolean => {
    if (count < maxCachePoints) return true;
    dropped.push(where);
    return false;
  };
  if (body.system !== undefined && !body.system.some(isCachePoint) && room('system')) {
    body.system = [...body.system, { ...cachePoint }];
    count++;
  }
  const systemCached = body.system?.some(isCachePoint) === true;
  const toolsCacheable = baseModelId(context.model).startsWith('anthropic.');
  const tools = body.toolConfig?.tools;
  if (tools !== undefined && toolsCacheable && !systemCached && !tools.some(isCachePoint) && room('tools')) {
    body.toolConfig = { ...body.toolConfig!, tools: [...tools, { ...cachePoint }] };
    count++;
  }
  const lastUser = body.messages.findLastIndex((message) => message.role === 'user');
  const message = body.messages[lastUser];
  if (message !== undefined && !isCachePoint(message.content.at(-1) ?? {}) && room('the last user message'))
    body.messages = body.messages.with(lastUser, {
      ...message,
      content: [...message.content, { ...cachePoint }],
    });
  if (dropped.length > 0)
    context.warn('adjusted the cache markers', {
      reason: `Bedrock takes at most ${maxCachePoints} cache points: none after ${dropped.join(', ')}`,
      dropped,
    });
}
