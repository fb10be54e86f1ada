/** The canonical transcript → Responses `instructions` and `input` items. */
import { documentFilename, isTextDocument, warnDocumentContext } from '../common/text-documents.ts';
import { argumentsJson } from '../../core/tool-arguments.ts';
import { freeformText } from '../../core/tools.ts';
import type { JsonObject } from '../../core/json.ts';
import { imageDetailKey } from '../../core/metadata.ts';
import type { Item, Part, ReasoningPart, ToolOutput, ToolResultPart } from '../../core/transcript.ts';
import { base64Of, dataUrlOf } from '../openai/data-url.ts';
import type { ProviderContext } from '../common/definition.ts';
import { joinToolResultTexts } from '../common/tool-result-text.ts';
import {
  isInstructionItem,
  joinInstructions,
  leadingInstructions,
  projectTranscript,
  providerToolId,
  sameProviderRules,
  warnDroppedPart,
} from '../common/projection.ts';
import type { InputContent, InputItem } from './api.ts';
import { sixtyFourCharactersToolId } from './tool-ids.ts';
import { clientCallItem, clientCallItems, clientOutputItem } from './client-calls.ts';

/** The metadata key that marks a tool call read from this provider's `custom_tool_call` item. */
export function customCallKey(provider: string): string {
  return `${provider}.custom_tool_call`;
}

/** Where a part sits in the transcript, for WARN entries. */
interface PartLocation {
  itemIndex: number;
  partIndex: number;
}

/** The state of one conversion. */
interface Conversion {
  context: ProviderContext;
  /** `store: false`: reasoning can only go back with its `encrypted_content`. */
  stateless: boolean;
  input: InputItem[];
  /** The assistant message being filled (consecutive text parts of one output item). */
  message: { item: Extract<InputItem, { type: 'message' }>; id: string | undefined } | undefined;
  /**
   * Canonical ids of calls that go as `custom_tool_call` (their results as
   * `custom_tool_call_output`): calls to the request's freeform tools, and this provider's own
   * custom calls ({@link customCallKey}) as they are met; undefined where the host takes none.
   */
  customCalls: Set<string> | undefined;
  /** The verbatim items of this provider's client-executed calls (`client-calls.ts`), by canonical call id. */
  clientCalls: ReadonlyMap<string, JsonObject>;
}

/**
 * The one projection WARN (`warnDroppedPart`): its location fields come from the caller's transcript,
 * recorded by `projectTranscript`, so `_location` (indices after projection) is not logged.
 */
function drop(conversion: Conversion, _location: PartLocation, part: Part, reason: string): void {
  warnDroppedPart(conversion.context, part, reason);
}

/** The Responses item id a part was read from (`<provider>.item_id`), only for this adapter's own parts. */
export function itemIdOf(part: Part, provider: string): string | undefined {
  let id = part.metadata?.[`${provider}.item_id`];
  if (id === undefined && part.type === 'custom' && part.provider === provider) {
    const data = part.data;
    if (typeof data === 'object' && data !== null && !Array.isArray(data)) id = data.id;
  }
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * Converts the transcript. Instructions (system, developer, context) that lead the conversation are
 * joined into `instructions`, later ones stay in place as `system` / `developer` messages;
 * everything else becomes input items: user messages (`input_text`, `input_image`, `input_file`),
 * assistant messages (`output_text`, with their item id when this provider produced them),
 * `function_call` / `function_call_output` items (call ids through the session's tool-id map),
 * this provider's reasoning items verbatim (id, summary, `encrypted_content`) and its built-in tool
 * items (custom parts) verbatim. Foreign reasoning and custom parts are dropped with a WARN. A
 * reasoning item is sent only when it can be: with an id, with `encrypted_content` when nothing is
 * stored, and followed by the item it produced (OpenAI rejects a reasoning item without it).
 */
export function convertInput(
  transcript: readonly Item[],
  context: ProviderContext,
  options: {
    stateless: boolean;
    indexOffset?: number;
    customCalls?: Set<string> | undefined;
    /** The whole transcript's client-executed calls (default: those of `transcript`). */
    clientCalls?: ReadonlyMap<string, JsonObject>;
    /** The conversation began before `transcript` (a stored prefix holds a turn): no instruction leads it. */
    begun?: boolean;
  },
): { instructions: string; input: InputItem[] } {
  const items = projectTranscript(transcript, sameProviderRules(context), context);
  const conversion: Conversion = {
    context,
    stateless: options.stateless,
    input: [],
    message: undefined,
    customCalls: options.customCalls,
    clientCalls: options.clientCalls ?? clientCallItems(transcript, context.provider),
  };
  const offset = options.indexOffset ?? 0;
  const lead = options.begun === true ? 0 : leadingInstructions(items);
  items.forEach((item, index) => {
    const itemIndex = index + offset;
    conversion.message = undefined;
    if (isInstructionItem(item)) {
      item.parts.forEach((part, partIndex) => {
        if (part.type !== 'text')
          drop(conversion, { itemIndex, partIndex }, part, 'instructions carry text only');
      });
      if (index >= lead) convertLateInstruction(conversion, item);
    } else if (item.kind === 'assistant') convertAssistant(conversion, item, itemIndex);
    else convertUserOrTool(conversion, item, itemIndex);
  });
  return { instructions: joinInstructions(items.slice(0, lead)), input: conversion.input };
}

/**
 * An instruction after the conversation began: in place, as a `system` (system item) or `developer`
 * (developer, context item) message, as the API takes them anywhere in `input`.
 */
function convertLateInstruction(conversion: Conversion, item: Item): void {
  const text = joinInstructions([item]);
  if (text === '') return;
  const role = item.kind === 'system' ? 'system' : 'developer';
  conversion.input.push({ type: 'message', role, content: [{ type: 'input_text', text }] });
}

function convertUserOrTool(conversion: Conversion, item: Item, itemIndex: number): void {
  let content: InputContent[] = [];
  const flush = () => {
    if (content.length > 0) conversion.input.push({ type: 'message', role: 'user', content });
    content = [];
  };
  item.parts.forEach((part, partIndex) => {
    const location = { itemIndex, partIndex };
    if (part.type === 'tool-result') {
      flush();
      conversion.input.push(convertToolResult(conversion, part, location));
      return;
    }
    if (part.type === 'custom' && isItemObject(part.data)) {
      // This provider's own input items (an `mcp_approval_response`, a custom tool's output) go verbatim.
      flush();
      conversion.input.push(part.data);
      return;
    }
    const converted = convertUserPart(conversion, part, location);
    if (converted !== undefined) content.push(converted);
  });
  flush();
}

function isItemObject(data: unknown): data is JsonObject {
  return typeof data === 'object' && data !== null && !Array.isArray(data) && 'type' in data;
}

function convertUserPart(
  conversion: Conversion,
  part: Part,
  location: PartLocation,
): InputContent | undefined {
  switch (part.type) {
    case 'text':
      return { type: 'input_text', text: part.text };
    case 'structured':
      return { type: 'input_text', text: JSON.stringify(part.value) };
    case 'media': {
      if (part.modality !== 'image') {
        drop(conversion, location, part, `${part.modality} input is not supported by the responses api`);
        return undefined;
      }
      const url = dataUrlOf(part.data, part.mimeType);
      if (url === undefined) drop(conversion, location, part, 'an image handle cannot be resolved');
      if (url === undefined) return undefined;
      // The client's resolution (`imageDetailKey`), else the API's default.
      const detail = part.metadata?.[imageDetailKey];
      return { type: 'input_image', image_url: url, detail: typeof detail === 'string' ? detail : 'auto' };
    }
    case 'file':
      return convertFile(conversion, part, location);
    default:
      drop(conversion, location, part, `a ${part.type} part cannot stand in a user message`);
      return undefined;
  }
}

/**
 * A PDF or text document as an `input_file` (a URL as `file_url`, inline data as a `data:` URL):
 * the Responses API takes text files (it extracts their text; `.csv` and `.tsv` get its spreadsheet
 * reading), and tells a file's type by its name, so a text document's name gets its extension.
 */
function convertFile(
  conversion: Conversion,
  part: Extract<Part, { type: 'file' }>,
  location: PartLocation,
): InputContent | undefined {
  const text = isTextDocument(part);
  if (part.mimeType !== 'application/pdf' && !text) {
    drop(conversion, location, part, `${part.mimeType} files are not supported by the responses api`);
    return undefined;
  }
  if (part.data.type === 'uri') return { type: 'input_file', file_url: part.data.uri };
  const data = base64Of(part.data);
  if (data === undefined) {
    drop(conversion, location, part, 'a file handle cannot be resolved');
    return undefined;
  }
  warnDocumentContext(conversion.context, part);
  const mimeType = text ? part.mimeType : 'application/pdf';
  return {
    type: 'input_file',
    filename: documentFilename(part),
    file_data: `data:${mimeType};base64,${data}`,
  };
}

/**
 * A `function_call_output`. The protocol has no error flag: an error result is prefixed `Error: `,
 * as Chat Completions' is, so the model still reads that the call failed.
 */
function convertToolResult(conversion: Conversion, part: ToolResultPart, location: PartLocation): InputItem {
  const callId = providerToolId(conversion.context, part.callId, sixtyFourCharactersToolId);
  const output = convertOutput(conversion, part.output, location);
  const call = conversion.clientCalls.get(part.callId);
  if (call !== undefined) {
    // The answer to a client-executed built-in call: its own output item (client-calls.ts).
    const text =
      typeof output === 'string'
        ? output
        : joinToolResultTexts(output.flatMap((entry) => (entry.type === 'input_text' ? [entry.text] : [])));
    return clientOutputItem(call, callId, part, text, conversion.context.provider);
  }
  return {
    type:
      conversion.customCalls?.has(part.callId) === true ? 'custom_tool_call_output' : 'function_call_output',
    call_id: callId,
    output: !part.isError
      ? output
      : typeof output === 'string'
        ? `Error: ${output}`
        : [{ type: 'input_text', text: 'Error:' }, ...output],
  };
}

function convertOutput(
  conversion: Conversion,
  output: ToolOutput,
  location: PartLocation,
): string | InputContent[] {
  if (output.type === 'text') return output.text;
  if (output.type === 'json') return JSON.stringify(output.value);
  const content: InputContent[] = [];
  for (const part of output.parts) {
    const converted = convertUserPart(conversion, part, location);
    if (converted !== undefined) content.push(converted);
  }
  if (content.every((entry) => entry.type === 'input_text')) {
    return joinToolResultTexts(content.map((entry) => (entry as { text: string }).text));
  }
  return content;
}

/**
 * An assistant item. When a reasoning part cannot go, the item it produced goes without its id:
 * OpenAI rejects a `msg_` / `fc_` item sent by id without its `reasoning` item.
 */
function convertAssistant(conversion: Conversion, item: Item, itemIndex: number): void {
  const { provider } = conversion.context;
  const { customCalls } = conversion;
  const customKey = customCalls === undefined ? undefined : customCallKey(provider);
  let orphaned = false;
  const idOf = (part: Part) => {
    const id = orphaned ? undefined : itemIdOf(part, provider);
    orphaned = false;
    return id;
  };
  item.parts.forEach((part, partIndex) => {
    const location = { itemIndex, partIndex };
    if (part.type === 'text' || part.type === 'structured') {
      const text = part.type === 'text' ? part.text : JSON.stringify(part.value);
      addAssistantText(conversion, text, idOf(part));
      return;
    }
    conversion.message = undefined;
    if (part.type === 'reasoning') {
      const reasoning = convertReasoning(conversion, part, item.parts[partIndex + 1], location);
      if (reasoning !== undefined) conversion.input.push(reasoning);
      orphaned = reasoning === undefined;
    } else if (part.type === 'tool-call') {
      const callId = providerToolId(conversion.context, part.id, sixtyFourCharactersToolId);
      const verbatim = conversion.clientCalls.has(part.id) ? clientCallItem(part, provider) : undefined;
      if (verbatim !== undefined) {
        // A client-executed built-in call goes back as the item the provider wrote (client-calls.ts).
        conversion.input.push(replayedCall(verbatim, callId, orphaned));
        orphaned = false;
        return;
      }
      // This provider's own custom call stays one, declared this turn or not (OpenAI checks ids).
      if (customKey !== undefined && part.metadata?.[customKey] === true) customCalls!.add(part.id);
      const call: InputItem =
        customCalls?.has(part.id) === true
          ? { type: 'custom_tool_call', call_id: callId, name: part.name, input: freeformText(part) }
          : { type: 'function_call', call_id: callId, name: part.name, arguments: argumentsJson(part) };
      const id = idOf(part);
      if (id !== undefined) call.id = id;
      conversion.input.push(call);
    } else if (part.type === 'custom') {
      orphaned = false;
      if (isItemObject(part.data)) conversion.input.push(part.data);
      else drop(conversion, location, part, 'custom data is not an item object');
    } else drop(conversion, location, part, `an assistant message cannot carry a ${part.type} part`);
  });
}

/**
 * A client-executed call's item as the provider wrote it; its `call_id` the session's (the same
 * unless the call was renamed) and without its `id` when its reasoning item could not go (`orphaned`).
 */
function replayedCall(item: JsonObject, callId: string, orphaned: boolean): JsonObject {
  const replayed = item.call_id === callId ? item : { ...item, call_id: callId };
  if (!orphaned || replayed.id === undefined) return replayed;
  const { id: _, ...rest } = replayed;
  return rest;
}

/** Text of one output message: consecutive parts of the same item id share one message item. */
function addAssistantText(conversion: Conversion, text: string, id: string | undefined): void {
  const current = conversion.message;
  if (current !== undefined && current.id === id) {
    current.item.content.push({ type: 'output_text', text, annotations: [] });
    return;
  }
  const item: Extract<InputItem, { type: 'message' }> = {
    type: 'message',
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations: [] }],
  };
  if (id !== undefined) {
    item.id = id;
    item.status = 'completed';
  }
  conversion.input.push(item);
  conversion.message = { item, id };
}

/** One of this provider's reasoning items, or undefined (with a WARN) when OpenAI would reject it. */
function convertReasoning(
  conversion: Conversion,
  part: ReasoningPart,
  next: Part | undefined,
  location: PartLocation,
): InputItem | undefined {
  const { provider } = conversion.context;
  const id = itemIdOf(part, provider);
  if (id === undefined) return dropReasoning(conversion, part, location, 'reasoning without its item id');
  if (conversion.stateless && part.data === undefined) {
    return dropReasoning(
      conversion,
      part,
      location,
      'reasoning without encrypted_content cannot be replayed when nothing is stored',
    );
  }
  if (next === undefined || next.type === 'reasoning') {
    return dropReasoning(conversion, part, location, 'reasoning without the item that followed it');
  }
  const summary = summaryOf(part, provider);
  const item: InputItem = { type: 'reasoning', id, summary };
  if (part.data !== undefined) item.encrypted_content = part.data;
  return item;
}

function dropReasoning(
  conversion: Conversion,
  part: Part,
  location: PartLocation,
  reason: string,
): undefined {
  drop(conversion, location, part, reason);
  return undefined;
}

/** The summary entries as received (`<provider>.summary`), else the text as one entry. */
function summaryOf(part: ReasoningPart, provider: string): Array<{ type: 'summary_text'; text: string }> {
  const verbatim = part.metadata?.[`${provider}.summary`];
  if (Array.isArray(verbatim) && verbatim.every((entry) => typeof entry === 'string')) {
    return verbatim.map((text) => ({ type: 'summary_text', text: text as string }));
  }
  return part.text === '' ? [] : [{ type: 'summary_text', text: part.text }];
}
