/** Prompt-cache breakpoints: where `cache_control` goes, never more than the API's limit of 4. */
import type { PromptCacheRequest } from '../../core/request.ts';
import type { WireCacheControl, WireContentBlock, WireMessage, WireTextBlock, WireTool } from './api.ts';

/** The most `cache_control` markers one request may carry. */
export const maxCacheBreakpoints = 4;

/** The marker for a cache request: `{type:'ephemeral'}`, with `ttl:'1h'` for the one-hour cache. */
export function convertCacheControl(cache: PromptCacheRequest): WireCacheControl {
  return cache.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}

/** The parts of a request body that can carry breakpoints. */
export interface CacheableBody {
  system?: string | WireTextBlock[];
  tools?: Array<WireTool | Record<string, unknown>>;
  messages: WireMessage[];
}

function hasMarker(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'cache_control' in value;
}

/** Counts the markers already in the body (verbatim blocks and tools may bring their own). */
export function countCacheBreakpoints(body: CacheableBody): number {
  let count = 0;
  if (Array.isArray(body.system)) for (const block of body.system) if (hasMarker(block)) count++;
  for (const tool of body.tools ?? []) if (hasMarker(tool)) count++;
  for (const message of body.messages) {
    for (const block of message.content) {
      if (hasMarker(block)) count++;
      if (block.type === 'tool_result' && Array.isArray(block.content))
        for (const inner of block.content) if (hasMarker(inner)) count++;
    }
  }
  return count;
}

function lastUserBlock(messages: WireMessage[]): WireContentBlock | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as WireMessage;
    if (message.role === 'user') return message.content.at(-1);
  }
  return undefined;
}

/**
 * Places breakpoints for a cache request, in prefix order: the last tool, the system prompt (made an
 * array of one text block so the marker can ride on it), and the last block of the last user
 * message. Markers already present count toward the limit; breakpoints that would exceed it are
 * left out, the latest first. Returns the number of markers the body then carries.
 */
export function applyCacheBreakpoints(body: CacheableBody, cache: PromptCacheRequest): number {
  const control = convertCacheControl(cache);
  let count = countCacheBreakpoints(body);
  const lastTool = body.tools?.at(-1);
  if (lastTool !== undefined && !hasMarker(lastTool) && count < maxCacheBreakpoints) {
    (lastTool as WireTool).cache_control = control;
    count++;
  }
  if (typeof body.system === 'string' && body.system !== '' && count < maxCacheBreakpoints) {
    body.system = [{ type: 'text', text: body.system, cache_control: control }];
    count++;
  }
  const block = lastUserBlock(body.messages);
  if (block !== undefined && !hasMarker(block) && count < maxCacheBreakpoints) {
    (block as { cache_control?: WireCacheControl }).cache_control = control;
    count++;
  }
  return count;
}
