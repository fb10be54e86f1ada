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
 * Adds cache points for a cache request, in this order while fewer than 4 are in the body: after
 * the system blocks (unless the caller's breakpoints placed some there), after the tools, and at
 * the end of the last user message. AWS's prompt-caching table takes tool cache points from Claude
 * only (Amazon Nova: system and messages), so other families get none after their tools. Arrays
 * that may be the caller's (`providerOptions.bedrock`) are copied, not written into.
 */
export function applyCachePoints(body: WireRequestBody, model: string): void {
  let count = countCachePoints(body);
  if (body.system !== undefined && !body.system.some(isCachePoint) && count < maxCachePoints) {
    body.system = [...body.system, { ...cachePoint }];
    count++;
  }
  const toolsCacheable = baseModelId(model).startsWith('anthropic.');
  if (body.toolConfig !== undefined && toolsCacheable && count < maxCachePoints) {
    body.toolConfig = { ...body.toolConfig, tools: [...body.toolConfig.tools, { ...cachePoint }] };
    count++;
  }
  const lastUser = body.messages.findLastIndex((message) => message.role === 'user');
  const message = body.messages[lastUser];
  if (message === undefined || count >= maxCachePoints) return;
  body.messages = body.messages.with(lastUser, {
    ...message,
    content: [...message.content, { ...cachePoint }],
  });
}
