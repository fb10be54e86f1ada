/** Converts a canonical transcript into Anthropic's top-level `system` and alternating `messages`. */
import type { JsonObject } from '../../core/json.ts';
import { anthropicToolId } from '../../core/tool-id-map.ts';
import type { CustomPart, Item, Part, ReasoningPart, ToolCallPart } from '../../core/transcript.ts';
import type { ProviderContext } from '../shared/definition.ts';
import {
  isInstructionItem,
  joinInstructions,
  projectTranscript,
  providerToolId,
  sameProviderRules,
} from '../shared/projection.ts';
import type {
  WireContentBlock,
  WireMessage,
  WireRedactedThinkingBlock,
  WireThinkingBlock,
  WireToolUseBlock,
  WireVerbatimBlock,
} from './api.ts';
import { callerKey, convertFile, convertMedia, convertText, convertToolResult } from './content.ts';

/** Reasoning goes back only when Anthropic signed it; custom parts only when Anthropic made them. */
const projectionRules = sameProviderRules('anthropic', { reasoningNeedsSignature: true });

function dropped(context: ProviderContext, part: Part, reason: string): undefined {
  context.warn('dropped a part the provider cannot take', { blockType: part.type, reason });
  return undefined;
}

/** Signed thinking goes back verbatim; redacted thinking as `redacted_thinking` with its data. */
function convertReasoning(part: ReasoningPart): WireThinkingBlock | WireRedactedThinkingBlock {
  if (part.redacted === true && part.data !== undefined)
    return { type: 'redacted_thinking', data: part.data };
  return { type: 'thinking', thinking: part.text, signature: part.signature ?? '' };
}

function convertToolCall(part: ToolCallPart, context: ProviderContext): WireToolUseBlock {
  const block: WireToolUseBlock = {
    type: 'tool_use',
    id: providerToolId(context, part.id, anthropicToolId),
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
      return part.text === '' ? undefined : convertText(part);
    case 'structured':
      return { type: 'text', text: JSON.stringify(part.value) };
    case 'reasoning':
      return assistant
        ? convertReasoning(part)
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

/** The converted transcript: the joined instructions and the alternating messages. */
export interface ConvertedMessages {
  system: string;
  messages: WireMessage[];
}

/**
 * Converts the transcript. Reasoning from other providers (or unsigned) and other providers' custom
 * parts are dropped with a WARN first (`projectTranscript`). System, developer and context items are
 * joined into `system`; tool items become user messages of `tool_result` blocks; consecutive
 * messages of one role are merged, tool results first. Empty messages are left out.
 */
export function convertMessages(items: readonly Item[], context: ProviderContext): ConvertedMessages {
  const projected = projectTranscript(items, projectionRules, context);
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
    if (previous?.role === role) previous.content.push(...content);
    else messages.push({ role, content });
  }
  for (const message of messages) {
    if (message.role === 'user') message.content = toolResultsFirst(message.content);
  }
  return { system: joinInstructions(projected), messages };
}
