/** The canonical transcript → Chat Completions `messages` (instructions, user, assistant, tool roles). */
import { participantNameKey } from '../../core/metadata.ts';
import { argumentsJson } from '../../core/tool-arguments.ts';
import type { ToolIdRule } from '../../core/tool-id-map.ts';
import type { JsonObject } from '../../core/json.ts';
import type { Item, Part, ReasoningPart, ToolResultPart } from '../../core/transcript.ts';
import type { ProviderContext } from '../common/definition.ts';
import { joinToolResultTexts } from '../common/tool-result-text.ts';
import {
  isInstructionItem,
  joinInstructions,
  leadingInstructions,
  type ProjectionRules,
  projectTranscript,
  warnDroppedPart,
  providerToolId,
  sameProviderRules,
  warnMovedInstructions,
} from '../common/projection.ts';
import type { ChatContentPart, ChatMessage, ChatToolCall, ReasoningDetail } from './api.ts';
import { matchesAnyGlob } from './capabilities.ts';
import { convertFile, convertMedia } from './content.ts';
import type { ChatQuirks } from './quirks.ts';
import { toolIdRules } from './tool-ids.ts';

/** The state of one conversion. */
interface Conversion {
  context: ProviderContext;
  quirks: ChatQuirks;
  rule: ToolIdRule;
  messages: ChatMessage[];
  /** Images and files out of tool results, sent in a user message after the tool messages. */
  attachments: ChatContentPart[];
  /** Assistant text parts another part stood before (in the transcript as given): a new paragraph. */
  paragraphs: Set<Part>;
}

function drop(conversion: Conversion, part: Part, reason: string): void {
  warnDroppedPart(conversion.context, part, reason);
}

/**
 * Reasoning and custom parts go back only to the provider that produced them; for a model without
 * tool support (Perplexity Sonar, a local model marked `tools: false`), past tool calls and results
 * are dropped too.
 */
function projectionRules(context: ProviderContext, tools: boolean): ProjectionRules {
  // A user turn's participant name goes as the message's `name` (`convertUser`).
  const base = { ...sameProviderRules(context), keepsNames: true };
  if (tools) return base;
  const isToolPart = (part: Part) => part.type === 'tool-call' || part.type === 'tool-result';
  return {
    accepts: (part, item) => !isToolPart(part) && base.accepts(part, item),
    reason: (part) => (isToolPart(part) ? 'the model has no tool support' : base.reason(part)),
    keepsNames: true,
  };
}

/**
 * The role of the leading instruction message for this model: `user` for models that take neither
 * `developer` nor `system` (`quirks.instructionsAsUserModels`), else `developer` or `system`.
 */
export function instructionRole(quirks: ChatQuirks, model: string): 'system' | 'developer' | 'user' {
  if (matchesAnyGlob(quirks.instructionsAsUserModels, model)) return 'user';
  return matchesAnyGlob(quirks.developerRoleModels, model) ? 'developer' : quirks.instructionRole;
}

/**
 * Converts a transcript. Reasoning and custom parts from other providers are dropped with a WARN
 * (`projectTranscript`); the host's own reasoning is replayed per `quirks.reasoningReplay`; with
 * `tools: false` (the model has no tool support) past tool calls and results are dropped with a
 * WARN too. System, developer and context items are joined (blank lines, docs/contract.md §4.1.2) into ONE
 * leading `system` / `developer` message (a `user` one for models without either role), with
 * `appendix` (e.g. a JSON-schema instruction) added: those that lead the conversation, and, on a
 * host without `quirks.instructionsInPlace`, the later ones too (with a WARN each); on a host with
 * it, a later one stays in place as a message of that role. Tool results become `role: tool` messages; their images and PDFs, which tool
 * messages cannot carry, follow in one user message after the run of tool messages.
 */
export function convertMessages(
  transcript: readonly Item[],
  context: ProviderContext,
  quirks: ChatQuirks,
  options: { appendix?: string; tools?: boolean } = {},
): ChatMessage[] {
  const { appendix, tools = true } = options;
  const items = projectTranscript(transcript, projectionRules(context, tools), context);
  const conversion: Conversion = {
    context,
    quirks,
    rule: toolIdRules[quirks.toolIdRule],
    messages: [],
    attachments: [],
    paragraphs: paragraphStarts(transcript),
  };
  const role = instructionRole(quirks, context.model);
  // Instructions after the conversation began stay in place where the host takes them there.
  const lead = quirks.instructionsInPlace ? leadingInstructions(items) : items.length;
  if (!quirks.instructionsInPlace) warnMovedInstructions(transcript, context);
  const instructions = [joinInstructions(items.slice(0, lead)), appendix ?? '']
    .filter((text) => text !== '')
    .join('\n\n');
  if (instructions !== '') conversion.messages.push({ role, content: instructions });
  items.forEach((item, index) => {
    if (isInstructionItem(item)) {
      warnNonText(conversion, item);
      const text = index < lead ? '' : joinInstructions([item]);
      if (text !== '') push(conversion, { role, content: text });
    } else if (item.kind === 'assistant') convertAssistant(conversion, item);
    else if (item.kind === 'tool') convertToolItem(conversion, item);
    else convertUser(conversion, item);
  });
  flushAttachments(conversion);
  return conversion.messages;
}

function warnNonText(conversion: Conversion, item: Item): void {
  item.parts.forEach((part) => {
    if (part.type !== 'text') drop(conversion, part, 'instructions carry text only');
  });
}

function flushAttachments(conversion: Conversion): void {
  if (conversion.attachments.length === 0) return;
  conversion.messages.push({ role: 'user', content: conversion.attachments });
  conversion.attachments = [];
}

function push(conversion: Conversion, message: ChatMessage): void {
  flushAttachments(conversion);
  conversion.messages.push(message);
}

function convertUser(conversion: Conversion, item: Item): void {
  const content: ChatContentPart[] = [];
  item.parts.forEach((part) => {
    const converted = convertUserPart(conversion, part);
    if (converted !== undefined) content.push(converted);
  });
  if (content.length === 0) return;
  const only = content.length === 1 ? content[0] : undefined;
  const text = only?.type === 'text' && typeof only.text === 'string' ? only.text : undefined;
  const message: ChatMessage = { role: 'user', content: text ?? content };
  const name = item.metadata?.[participantNameKey];
  if (typeof name === 'string' && name !== '') message.name = name;
  push(conversion, message);
}

function convertUserPart(conversion: Conversion, part: Part): ChatContentPart | undefined {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'structured':
      return { type: 'text', text: JSON.stringify(part.value) };
    case 'media':
      return convertMedia(part, conversion.context);
    case 'file':
      return convertFile(part, conversion.context);
    case 'tool-result':
      // Results filed under a user item (Anthropic-style) still become tool messages.
      convertToolResult(conversion, part);
      return undefined;
    case 'custom':
      return customContent(conversion, part.data, part);
    default:
      drop(conversion, part, `a ${part.type} part cannot stand in a user message`);
      return undefined;
  }
}

function customContent(conversion: Conversion, data: unknown, part: Part): ChatContentPart | undefined {
  if (typeof data === 'object' && data !== null && !Array.isArray(data)) return data as JsonObject;
  drop(conversion, part, 'custom data is not a content object');
  return undefined;
}

function convertAssistant(conversion: Conversion, item: Item): void {
  const content: ChatContentPart[] = [];
  // Consecutive text parts are one continuous text, as Gemini and Anthropic read them (a streamed
  // Gemini reply kept one part per chunk, an Anthropic answer split into blocks around its
  // citations): joined with nothing between. Texts another part stood between — a server tool's
  // call and result, dropped here, or reasoning — are separate paragraphs.
  let texts: string | undefined;
  const toolCalls: ChatToolCall[] = [];
  const reasoning: ReasoningPart[] = [];
  let hasCustom = false;
  item.parts.forEach((part) => {
    if (part.type === 'text' || part.type === 'structured') {
      const text = part.type === 'text' ? part.text : JSON.stringify(part.value);
      if (texts === undefined) texts = text;
      else texts += conversion.paragraphs.has(part) ? `\n\n${text}` : text;
      content.push({ type: 'text', text });
    } else if (part.type === 'reasoning') reasoning.push(part);
    else if (part.type === 'tool-call') {
      const id = providerToolId(conversion.context, part.id, conversion.rule);
      const call = { name: part.name, arguments: argumentsJson(part) };
      toolCalls.push({ id, type: 'function', function: call });
    } else if (part.type === 'custom') {
      const converted = customContent(conversion, part.data, part);
      if (converted !== undefined) {
        content.push(converted);
        hasCustom = true;
      }
    } else drop(conversion, part, `an assistant message cannot carry a ${part.type} part`);
  });
  if (content.length === 0 && toolCalls.length === 0) return;
  // Text only: one string; with the host's own custom items: an array.
  const message: ChatMessage = { role: 'assistant', content: hasCustom ? content : (texts ?? null) };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  replayReasoning(conversion, message, reasoning, toolCalls.length > 0);
  push(conversion, message);
}

/**
 * The assistant text parts with another kind of part between them and an earlier text of their item,
 * found in the transcript as given: the projection may drop that other part (another provider's
 * server tool call), and the texts around it are still two paragraphs.
 */
function paragraphStarts(transcript: readonly Item[]): Set<Part> {
  const starts = new Set<Part>();
  for (const item of transcript) {
    if (item.kind !== 'assistant') continue;
    let seenText = false;
    let between = false;
    for (const part of item.parts) {
      if (part.type !== 'text' && part.type !== 'structured') {
        between = seenText;
        continue;
      }
      if (between) starts.add(part);
      seenText = true;
      between = false;
    }
  }
  return starts;
}

/**
 * Puts the host's own reasoning back on the assistant message, when the host's policy wants it.
 * Under `tool-turns`, a message with tool calls but no reasoning of the host's own (the calls of
 * another provider, continued here mid tool loop) gets `reasoningReplayPlaceholder`: thinking mode
 * refuses a tool-call message without the field (DeepSeek, Kimi).
 */
function replayReasoning(
  conversion: Conversion,
  message: ChatMessage,
  reasoning: ReasoningPart[],
  hasToolCalls: boolean,
): void {
  const { reasoningReplay, reasoningReplayField, reasoningReplayPlaceholder } = conversion.quirks;
  if (reasoningReplay === 'drop') return;
  if (reasoningReplay === 'tool-turns' && !hasToolCalls) return;
  if (reasoningReplayField !== 'reasoning_details') {
    const text = reasoning.map((part) => part.text).join('');
    if (reasoningReplay === 'tool-turns' && text === '')
      message[reasoningReplayField] = reasoningReplayPlaceholder;
    else if (reasoning.length > 0) message[reasoningReplayField] = text;
    return;
  }
  if (reasoning.length === 0) return;
  const provider = conversion.context.provider;
  message.reasoning_details = reasoning.flatMap((part) => {
    // Entries kept as received go back verbatim; older parts are rebuilt from their fields.
    const verbatim = part.metadata?.[`${provider}.reasoning_details`];
    if (Array.isArray(verbatim)) return verbatim as ReasoningDetail[];
    return [rebuildDetail(part, part.metadata?.[`${provider}.reasoning_format`])];
  });
}

/** One `reasoning_details` entry for a reasoning part that has no verbatim entries. */
function rebuildDetail(part: ReasoningPart, format: unknown): ReasoningDetail {
  const detail: ReasoningDetail =
    part.data !== undefined
      ? { type: 'reasoning.encrypted', data: part.data }
      : { type: 'reasoning.text', text: part.text };
  if (part.signature !== undefined) detail.signature = part.signature;
  if (typeof format === 'string') detail.format = format;
  return detail;
}

function convertToolItem(conversion: Conversion, item: Item): void {
  item.parts.forEach((part) => {
    if (part.type === 'tool-result') convertToolResult(conversion, part);
    else drop(conversion, part, 'a tool item carries tool results only');
  });
}

/**
 * One `role: tool` message: text as is, JSON stringified, parts as their text joined by newlines
 * (images and PDFs go to the follow-up user message). An error result is prefixed `Error: `, since
 * the wire has no error flag.
 */
function convertToolResult(conversion: Conversion, part: ToolResultPart): void {
  const id = providerToolId(conversion.context, part.callId, conversion.rule);
  let text: string;
  if (part.output.type === 'text') text = part.output.text;
  else if (part.output.type === 'json') text = JSON.stringify(part.output.value);
  else text = toolResultParts(conversion, part.output.parts, id);
  const message: ChatMessage = {
    role: 'tool',
    tool_call_id: id,
    content: part.isError ? `Error: ${text}` : text,
  };
  conversion.messages.push(message);
}

function toolResultParts(conversion: Conversion, parts: Part[], id: string): string {
  const texts: string[] = [];
  const attachments: ChatContentPart[] = [];
  for (const inner of parts) {
    if (inner.type === 'text') texts.push(inner.text);
    else if (inner.type === 'structured') texts.push(JSON.stringify(inner.value));
    else if (inner.type === 'media' || inner.type === 'file') {
      const converted =
        inner.type === 'media'
          ? convertMedia(inner, conversion.context)
          : convertFile(inner, conversion.context);
      if (converted !== undefined) attachments.push(converted);
    } else drop(conversion, inner, `a ${inner.type} part cannot stand in a tool result`);
  }
  if (attachments.length > 0) {
    conversion.attachments.push({ type: 'text', text: `Attachments of tool result ${id}:` }, ...attachments);
  }
  return joinToolResultTexts(texts);
}
