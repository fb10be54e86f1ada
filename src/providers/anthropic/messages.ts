/** Converts a canonical transcript into Anthropic's top-level `system` and alternating `messages`. */
import type { JsonObject } from '../../core/json.ts';
import type { CustomPart, Item, Part, ReasoningPart, TextPart, ToolCallPart } from '../../core/transcript.ts';
import type { ProviderContext } from '../common/definition.ts';
import {
  isInstructionItem,
  joinInstructions,
  projectTranscript,
  providerToolId,
  sameProviderRules,
  warnDroppedPart,
  warnMovedInstructions,
} from '../common/projection.ts';
import type {
  WireContentBlock,
  WireMessage,
  WireRedactedThinkingBlock,
  WireTextBlock,
  WireThinkingBlock,
  WireToolUseBlock,
  WireVerbatimBlock,
} from './api.ts';
import { callerKey, convertFile, convertMedia, convertText, convertToolResult } from './content.ts';
import { toolIdRule } from './tool-ids.ts';
import { pushAll } from '../../core/arrays.ts';
import { cacheBreakpointKey } from '../../core/metadata.ts';
import { convertCacheControl, maxCacheBreakpoints } from './cache.ts';
import { isBlank, refuseEmptyUserTurns, refuseLostLastTurn } from '../common/empty-turns.ts';

/**
 * Reasoning goes back only when this adapter's provider signed it; custom parts only when it made
 * them. The tag is the call's provenance (`anthropic`, or `vertex/anthropic` / `bedrock/anthropic`
 * for Claude on a cloud host serving several families), so a transport's own Claude reasoning
 * round-trips and any other (another provider's, another family's on the same host) is dropped.
 */
function projectionRules(context: ProviderContext) {
  return sameProviderRules(context, { reasoningNeedsSignature: true });
}

function dropped(context: ProviderContext, part: Part, reason: string): undefined {
  return warnDroppedPart(context, part, reason);
}

/**
 * Signed thinking goes back verbatim. Thinking with `data` goes back as `redacted_thinking` when it
 * is redacted or unsigned (the API refuses a `thinking` block without its signature, so
 * `signature: ''` is never sent); reasoning with neither is dropped with a WARN.
 */
function convertReasoning(
  part: ReasoningPart,
  context: ProviderContext,
): WireThinkingBlock | WireRedactedThinkingBlock | undefined {
  const signature = part.signature === '' ? undefined : part.signature;
  if (part.data !== undefined && part.data !== '' && (part.redacted === true || signature === undefined))
    return { type: 'redacted_thinking', data: part.data };
  if (signature !== undefined) return { type: 'thinking', thinking: part.text, signature };
  return dropped(context, part, 'reasoning without the signature the provider requires');
}

function convertToolCall(part: ToolCallPart, context: ProviderContext): WireToolUseBlock {
  const block: WireToolUseBlock = {
    type: 'tool_use',
    id: providerToolId(context, part.id, toolIdRule),
    name: part.name,
    input: part.input,
  };
  const caller = part.metadata?.[callerKey];
  if (caller !== undefined) block.caller = caller;
  return block;
}

/** A custom part Anthropic produced: its `data` is the original wire block, sent back unchanged. */
function convertCustom(part: CustomPart, context: ProviderContext): WireVerbatimBlock | undefined {
  const data = part.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data) || typeof data.type !== 'string') {
    return dropped(context, part, `custom ${part.kind} part has no Anthropic content block in its data`);
  }
  // A shallow copy: cache breakpoints must never be written into the caller's transcript.
  return { ...(data as JsonObject) } as WireVerbatimBlock;
}

function convertPart(part: Part, item: Item, context: ProviderContext): WireContentBlock | undefined {
  const assistant = item.kind === 'assistant';
  switch (part.type) {
    case 'text':
      return convertText(part, context);
    case 'structured':
      return { type: 'text', text: JSON.stringify(part.value) };
    case 'reasoning':
      return assistant
        ? convertReasoning(part, context)
        : dropped(context, part, 'reasoning outside an assistant item');
    case 'tool-call':
      return assistant
        ? convertToolCall(part, context)
        : dropped(context, part, 'tool call outside an assistant item');
    case 'tool-result':
      return assistant
        ? dropped(context, part, 'tool result inside an assistant item')
        : convertToolResult(part, context);
    case 'media':
      return assistant
        ? dropped(context, part, 'assistant messages cannot hold media')
        : convertMedia(part, context);
    case 'file':
      return assistant
        ? dropped(context, part, 'assistant messages cannot hold files')
        : convertFile(part, context);
    case 'custom':
      return convertCustom(part, context);
  }
}

/** Moves `tool_result` blocks to the front of a user message, as the API requires; keeps order otherwise. */
function toolResultsFirst(content: WireContentBlock[]): WireContentBlock[] {
  const results = content.filter((block) => block.type === 'tool_result');
  if (results.length === 0 || results.length === content.length) return content;
  return [...results, ...content.filter((block) => block.type !== 'tool_result')];
}

function warnInstructionParts(item: Item, context: ProviderContext): void {
  for (const part of item.parts) {
    if (part.type !== 'text')
      dropped(context, part, `${item.kind} items are hoisted into the system prompt, which takes text only`);
  }
}

/**
 * The API refuses a final assistant message (a prefill) ending in whitespace: its trailing text is
 * trimmed, and a text block left empty is dropped (with the message, when nothing else remains).
 */
function trimFinalAssistant(messages: WireMessage[]): void {
  const last = messages.at(-1);
  if (last?.role !== 'assistant') return;
  for (let block = last.content.at(-1); block?.type === 'text'; block = last.content.at(-1)) {
    const original: unknown = (block as WireTextBlock).text;
    if (typeof original !== 'string') return;
    const text = original.trimEnd();
    if (text !== '') {
      last.content[last.content.length - 1] = { ...(block as WireTextBlock), text };
      return;
    }
    last.content.pop();
  }
  if (last.content.length === 0) messages.pop();
}

/** The converted transcript: the joined instructions and the alternating messages. */
export interface ConvertedMessages {
  /** Empty when there is none; blocks when the caller placed cache breakpoints in it (`systemOf`). */
  system: string | WireTextBlock[];
  messages: WireMessage[];
}

/**
 * Converts the transcript. Reasoning from other providers (or unsigned) and other providers' custom
 * parts are dropped with a WARN first (`projectTranscript`). System, developer and context items are
 * joined into `system` (one after the conversation began with the WARN `warnMovedInstructions`);
 * tool items become user messages of `tool_result` blocks; consecutive
 * messages of one role are merged, tool results first. Empty and whitespace-only text is skipped
 * (whitespace with a WARN), empty messages are left out, and a final assistant message loses its
 * trailing whitespace. A user turn of blank text only that would be a message of its own (no user
 * or tool item beside it to merge with) is refused (`refuseEmptyUserTurns`): left out, it would
 * change the request.
 */
export function convertMessages(items: readonly Item[], context: ProviderContext): ConvertedMessages {
  const projected = projectTranscript(items, projectionRules(context), context);
  refuseEmptyUserTurns(items, projected, context, isBlank, 'anthropic');
  warnMovedInstructions(items, context);
  const messages: WireMessage[] = [];
  for (const item of projected) {
    if (isInstructionItem(item)) {
      warnInstructionParts(item, context);
      continue;
    }
    const role = item.kind === 'assistant' ? 'assistant' : 'user';
    const content: WireContentBlock[] = [];
    for (const part of item.parts) {
      const block = convertPart(part, item, context);
      if (block !== undefined) content.push(block);
    }
    if (content.length === 0) continue;
    const previous = messages.at(-1);
    if (previous?.role === role) pushAll(previous.content, content);
    else messages.push({ role, content });
  }
  for (const message of messages) {
    if (message.role === 'user') message.content = toolResultsFirst(message.content);
  }
  trimFinalAssistant(messages);
  refuseLostLastTurn(items, projected, messages.at(-1)?.role, context, 'anthropic');
  return { system: systemOf(projected, context), messages };
}

/**
 * The system prompt: the instructions joined, or — when the caller placed a prompt-cache breakpoint
 * inside them (`cacheBreakpointKey` on a part: an Anthropic client's `cache_control` on a system
 * block before the last) — one text block per part, the marker on each marked one, so the cached
 * prefix ends where the caller put it and not after the part that changes per request.
 */
function systemOf(items: readonly Item[], context: ProviderContext): string | WireTextBlock[] {
  const parts = items.filter(isInstructionItem).flatMap((item) => item.parts);
  if (!parts.some((part) => part.type === 'text' && part.metadata?.[cacheBreakpointKey] !== undefined))
    return joinInstructions(items);
  const texts: TextPart[] = [];
  for (const part of parts) if (part.type === 'text' && part.text !== '') texts.push(part);
  // The API takes at most 4 markers, and no 1-hour one after a 5-minute one: the latest 4 are kept
  // (each caches a longer prefix), a 1-hour one after a 5-minute one is sent as 5 minutes.
  const marked = texts.filter((part) => part.metadata?.[cacheBreakpointKey] !== undefined);
  const kept = new Set(marked.slice(-maxCacheBreakpoints));
  let fiveMinutes = false;
  let adjusted = marked.length > kept.size;
  const blocks = texts.map((part): WireTextBlock => {
    if (!kept.has(part)) return { type: 'text', text: part.text };
    let ttl = part.metadata?.[cacheBreakpointKey] === '1h' ? '1h' : '5m';
    if (ttl === '1h' && fiveMinutes) {
      ttl = '5m';
      adjusted = true;
    }
    if (ttl === '5m') fiveMinutes = true;
    return {
      type: 'text',
      text: part.text,
      cache_control: convertCacheControl(ttl === '1h' ? { ttl: '1h' } : {}),
    };
  });
  if (adjusted)
    context.warn('adjusted the cache markers', {
      reason: `the system prompt's markers: at most ${maxCacheBreakpoints}, none of 1 hour after one of 5 minutes`,
      markers: marked.length,
    });
  return blocks;
}
