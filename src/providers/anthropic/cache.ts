/** Prompt-cache breakpoints: where `cache_control` goes, never more than the API's limit of 4. */
import type { PromptCacheRequest } from '../../core/request.ts';
import type { ProviderContext } from '../common/definition.ts';
import type { WireCacheControl, WireContentBlock, WireMessage, WireTextBlock, WireTool } from './api.ts';
import { pushAll } from '../../core/arrays.ts';

/** The most `cache_control` markers one request may carry. */
export const maxCacheBreakpoints = 4;

/** How long a cache entry lives: `5m` (the default, a marker without `ttl`) or `1h`. */
export type CacheTtl = '5m' | '1h';

/** The marker for a cache request: `{type:'ephemeral'}`, with `ttl:'1h'` for the one-hour cache. */
export function convertCacheControl(cache: PromptCacheRequest): WireCacheControl {
  return cache.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}

/** The parts of a request body that can carry breakpoints. */
export interface CacheableBody {
  system?: string | WireTextBlock[];
  tools?: Array<WireTool | Record<string, unknown>>;
  messages: WireMessage[];
  /** Automatic caching: one marker the API places on the last cacheable block. */
  cache_control?: unknown;
}

type Marked = { cache_control?: unknown };

function hasMarker(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const marker = (value as Marked).cache_control;
  return marker !== undefined && marker !== null;
}

function ttlOf(value: unknown): CacheTtl | undefined {
  if (!hasMarker(value)) return undefined;
  const marker = (value as Marked).cache_control;
  return typeof marker === 'object' && (marker as { ttl?: unknown }).ttl === '1h' ? '1h' : '5m';
}

/**
 * Every block that can carry a marker, in the order the API reads the prompt: tools, system blocks,
 * then message blocks (a tool result's inner blocks before the result itself).
 */
function cacheableBlocks(body: CacheableBody): unknown[] {
  const blocks: unknown[] = [...(body.tools ?? [])];
  if (Array.isArray(body.system)) pushAll(blocks, body.system);
  for (const message of body.messages) {
    for (const block of message.content) {
      if (block.type === 'tool_result' && Array.isArray(block.content)) pushAll(blocks, block.content);
      blocks.push(block);
    }
  }
  return blocks;
}

/** The TTLs of the markers in the body, in prompt order; a top-level marker comes last. */
function markerTtls(body: CacheableBody): Array<CacheTtl | undefined> {
  const ttls = cacheableBlocks(body).map(ttlOf);
  ttls.push(ttlOf(body));
  return ttls;
}

/**
 * Counts the markers already in the body: verbatim blocks and tools may bring their own, and
 * `providerOptions.anthropic.body` may add a top-level `cache_control` (automatic caching).
 */
export function countCacheBreakpoints(body: CacheableBody): number {
  return markerTtls(body).filter((ttl) => ttl !== undefined).length;
}

/**
 * The TTL a new marker at `position` (an index into the prompt-ordered markers) may take. The API
 * refuses a 1-hour marker after a 5-minute one, so the requested TTL is lowered to 5m when a
 * 5-minute marker precedes the position, and raised to 1h when a 1-hour marker follows it (that
 * marker caches the prefix for an hour anyway). When the existing markers are out of order already,
 * the requested TTL is kept (the API will say what is wrong).
 */
export function allowedTtl(
  requested: CacheTtl,
  ttls: Array<CacheTtl | undefined>,
  position: number,
): CacheTtl {
  const ceiling = ttls.slice(0, position).includes('5m') ? '5m' : '1h';
  const floor = ttls.slice(position).includes('1h') ? '1h' : '5m';
  if (ceiling === '5m' && floor === '1h') return requested;
  return requested === '1h' ? ceiling : floor;
}

function lastUserBlockIndex(messages: WireMessage[]): [number, number] | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as WireMessage;
    if (message.role === 'user' && message.content.length > 0) return [index, message.content.length - 1];
  }
  return undefined;
}

/** The last tool that may carry a marker: tools loaded on demand (`defer_loading`) may not. */
function lastCacheableToolIndex(tools: ReadonlyArray<WireTool | Record<string, unknown>>): number {
  return tools.findLastIndex((tool) => (tool as { defer_loading?: unknown }).defer_loading !== true);
}

/** A builder of markers that remembers the requested TTL and reports each adjustment once. */
function markerFactory(cache: PromptCacheRequest, warn: ProviderContext['warn'] | undefined) {
  const requested: CacheTtl = cache.ttl === '1h' ? '1h' : '5m';
  let warned = false;
  return (ttls: Array<CacheTtl | undefined>, position: number): WireCacheControl => {
    const ttl = allowedTtl(requested, ttls, position);
    if (ttl !== requested && !warned && warn !== undefined) {
      warned = true;
      warn('adjusted the cache ttl', {
        requested,
        sent: ttl,
        reason: 'markers already in the request; the API refuses a 1h marker after a 5m one',
      });
    }
    return convertCacheControl({ ttl });
  };
}

/**
 * Places breakpoints for a cache request, in prefix order: the last tool without `defer_loading`
 * (the API refuses markers on deferred tools), the system prompt (made an array of one text block
 * so the marker can ride on it), and the last block of the last user message. Markers already
 * present — on verbatim blocks and tools, or a top-level `cache_control` — count toward the limit
 * of 4; breakpoints that would exceed it are left out, the latest first. New markers take the
 * requested TTL unless the markers already present force another (see `allowedTtl`; `warn`, when
 * given, reports that). Markers are written onto copies: the caller's tools, blocks and arrays are
 * never modified. Returns the number of markers the body then carries.
 */
export function applyCacheBreakpoints(
  body: CacheableBody,
  cache: PromptCacheRequest,
  warn?: ProviderContext['warn'],
): number {
  const marker = markerFactory(cache, warn);
  let count = countCacheBreakpoints(body);
  const tools = body.tools ?? [];
  const toolIndex = lastCacheableToolIndex(tools);
  const tool = tools[toolIndex];
  if (tool !== undefined && !hasMarker(tool) && count < maxCacheBreakpoints) {
    body.tools = tools.with(toolIndex, { ...tool, cache_control: marker(markerTtls(body), toolIndex) });
    count++;
  }
  if (typeof body.system === 'string' && body.system !== '' && count < maxCacheBreakpoints) {
    const control = marker(markerTtls(body), tools.length);
    body.system = [{ type: 'text', text: body.system, cache_control: control }];
    count++;
  }
  const found = lastUserBlockIndex(body.messages);
  if (found === undefined || count >= maxCacheBreakpoints) return count;
  const [messageIndex, blockIndex] = found;
  const message = body.messages[messageIndex] as WireMessage;
  const block = message.content[blockIndex] as WireContentBlock;
  if (hasMarker(block)) return count;
  const ttls = markerTtls(body);
  const position = cacheableBlocks(body).lastIndexOf(block);
  const content = message.content.with(blockIndex, { ...block, cache_control: marker(ttls, position) });
  body.messages = body.messages.with(messageIndex, { ...message, content });
  return count + 1;
}
