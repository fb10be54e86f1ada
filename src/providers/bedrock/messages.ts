/** Converts a canonical transcript into Converse `system` blocks and alternating `messages`. */
import { InvalidRequestError } from '../../core/errors/invalid-request-error.ts';
import type { JsonValue } from '../../core/json.ts';
import { documentCitationsKey, documentContextKey } from '../../core/metadata.ts';
import type {
  DataRef,
  FilePart,
  Item,
  MediaPart,
  Part,
  ReasoningPart,
  ToolResultPart,
} from '../../core/transcript.ts';
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
import type { WireContentBlock, WireMessage, WireSource } from './api.ts';
import { baseModelId, documentFormats, imageFormats } from './capabilities.ts';
import { toolIdRule } from './tool-ids.ts';
import { unreadUriReason, uriScheme } from '../common/media-urls.ts';
import { pushAll } from '../../core/arrays.ts';
import { cacheBreakpointKey } from '../../core/metadata.ts';
import { isBlank, refuseEmptyUserTurns, refuseLostLastTurn } from '../common/empty-turns.ts';

/** Content the Converse API cannot take: the part is dropped with the one projection WARN. */
class Unsupported extends Error {
  override name = 'Unsupported';
}

function orDropped(part: Part, context: ProviderContext, convert: () => WireContentBlock) {
  try {
    return convert();
  } catch (error) {
    if (error instanceof Unsupported) return warnDroppedPart(context, part, error.message);
    throw error;
  }
}

/** Bytes as base64: base64 and bytes inline, base64 `data:` URIs inline, `s3://` URIs as S3 locations. */
function convertSource(data: DataRef, what: string, context: ProviderContext): WireSource {
  switch (data.type) {
    case 'base64':
      return { bytes: data.data };
    case 'bytes':
      return {
        bytes: Buffer.from(data.bytes.buffer, data.bytes.byteOffset, data.bytes.byteLength).toString(
          'base64',
        ),
      };
    case 'uri': {
      const scheme = uriScheme(data.uri);
      if (scheme === 's3') return { s3Location: { uri: data.uri } };
      if (scheme === 'data') {
        const comma = data.uri.indexOf(',');
        if (comma < 0 || !/;base64$/i.test(data.uri.slice(0, comma)))
          throw new InvalidRequestError({
            message: `bedrock: ${what} is a data: URI that is not base64-encoded`,
            provider: context.provider,
            requestId: context.requestId,
          });
        return { bytes: data.uri.slice(comma + 1) };
      }
      // An http(s) URL is not fetched, by Converse nor by the gateway: the part is left out.
      throw new Unsupported(unreadUriReason(what, scheme, 'Converse takes bytes and s3:// locations only'));
    }
    case 'handle':
      throw new Unsupported(`${what} is an artifact handle, which no adapter can resolve`);
  }
}

function convertImage(part: MediaPart | FilePart, context: ProviderContext): WireContentBlock | undefined {
  const format = Object.hasOwn(imageFormats, part.mimeType) ? imageFormats[part.mimeType] : undefined;
  return orDropped(part, context, () => {
    if (format === undefined)
      throw new Unsupported(`images of type ${part.mimeType} are not taken by Converse`);
    return { image: { format, source: convertSource(part.data, 'an image', context) } };
  });
}

/**
 * A document file's extension — one of Converse's document formats (`documentFormats`), and `htm`
 * — the only ending a name loses.
 */
const documentExtension = new RegExp(
  `\\.(?:${[...new Set(Object.values(documentFormats)), 'htm'].join('|')})$`,
  'i',
);

/**
 * Document names, unique in the request: Converse refuses two documents of one name anywhere in it
 * (tool results included: "Messages can't contain duplicate document names"), and the history is
 * sent again each turn, so one repeated file would fail every later turn. A name keeps letters,
 * digits, single spaces, hyphens, parentheses and brackets (Converse's rule): the file's name
 * without a document extension (`.pdf`, `.docx`, `.md`…: a title's `v2.0 (final)` keeps its tail,
 * its dot a space), else `document-N` numbered across the request; a name already given gets
 * ` (2)`, ` (3)`…. Given in transcript order, a document keeps its name from one turn to the next.
 */

class DocumentNames {
  private readonly given = new Set<string>();
  private untitled = 0;

  of(part: FilePart): string {
    const cleaned = (part.filename ?? '')
      .replace(documentExtension, '')
      .replace(/[^A-Za-z0-9\s\-()[\]]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 190);
    let name = cleaned === '' ? `document-${++this.untitled}` : cleaned;
    for (let copy = 2; this.given.has(name); copy++)
      name = cleaned === '' ? `document-${++this.untitled}` : `${cleaned} (${copy})`;
    this.given.add(name);
    return name;
  }
}

function convertFile(
  part: FilePart,
  context: ProviderContext,
  names: DocumentNames,
): WireContentBlock | undefined {
  if (part.mimeType.startsWith('image/')) return convertImage(part, context);
  const format = Object.hasOwn(documentFormats, part.mimeType) ? documentFormats[part.mimeType] : undefined;
  return orDropped(part, context, () => {
    if (format === undefined)
      throw new Unsupported(`files of type ${part.mimeType} are not taken by Converse`);
    const source = convertSource(part.data, 'a document', context);
    return { document: withCitationFields({ format, name: names.of(part), source }, part, context) };
  });
}

type WireDocument = NonNullable<WireContentBlock['document']>;

/**
 * A Claude model's document with the client's `context` and citation setting (an Anthropic client's
 * document `context` and `citations: {enabled: true}`: `documentContextKey`, `documentCitationsKey`),
 * Converse's own fields for them; other families, for which AWS documents no document citations,
 * get the document alone.
 */
function withCitationFields(document: WireDocument, part: FilePart, context: ProviderContext): WireDocument {
  if (!baseModelId(context.model).startsWith('anthropic.')) return document;
  const documentContext = part.metadata?.[documentContextKey];
  if (typeof documentContext === 'string' && documentContext !== '') document.context = documentContext;
  if (part.metadata?.[documentCitationsKey] === true) document.citations = { enabled: true };
  return document;
}

/** Signed reasoning as `reasoningText`, redacted reasoning as `redactedContent`; unsigned is dropped. */
function convertReasoning(part: ReasoningPart, context: ProviderContext): WireContentBlock | undefined {
  if (part.data !== undefined && part.data !== '' && (part.redacted === true || part.signature === undefined))
    return { reasoningContent: { redactedContent: part.data } };
  if (part.signature !== undefined && part.signature !== '')
    return { reasoningContent: { reasoningText: { text: part.text, signature: part.signature } } };
  return warnDroppedPart(context, part, 'reasoning without the signature the provider requires');
}

/**
 * Whether the model takes a toolResult's `status` and its image and document blocks. Converse's
 * reference says `status` and `image` are for Amazon Nova and Anthropic Claude only (ToolResultBlock,
 * ToolResultContentBlock); it says nothing of `document`, which is kept to the same two families,
 * as before this rule every family had it dropped.
 */
function takesRichToolResults(context: ProviderContext): boolean {
  const id = baseModelId(context.model);
  return id.startsWith('anthropic.') || id.startsWith('amazon.nova');
}

/** One ToolResultContentBlock: text and json for every model; image and document where {@link takesRichToolResults}. */
function resultContent(
  part: Part,
  context: ProviderContext,
  names: DocumentNames,
  rich: boolean,
): Record<string, JsonValue> | undefined {
  if (part.type === 'text') return part.text.trim() === '' ? undefined : { text: part.text };
  if (part.type === 'structured') return { json: part.value };
  if (rich && part.type === 'media' && part.modality === 'image')
    return convertImage(part, context) as Record<string, JsonValue> | undefined;
  if (rich && part.type === 'file')
    return convertFile(part, context, names) as Record<string, JsonValue> | undefined;
  return warnDroppedPart(
    context,
    part,
    `a ${part.type} part cannot be part of this model's Converse toolResult`,
  );
}

function convertToolResult(
  part: ToolResultPart,
  context: ProviderContext,
  names: DocumentNames,
): WireContentBlock {
  const output = part.output;
  const rich = takesRichToolResults(context);
  let content: Array<Record<string, JsonValue>>;
  if (output.type === 'text') content = [{ text: output.text === '' ? ' ' : output.text }];
  else if (output.type === 'json')
    content = [
      typeof output.value === 'object' && output.value !== null && !Array.isArray(output.value)
        ? { json: output.value }
        : { text: JSON.stringify(output.value) },
    ];
  else
    content = output.parts.flatMap((inner) => {
      const converted = resultContent(inner, context, names, rich);
      return converted === undefined ? [] : [converted as Record<string, JsonValue>];
    });
  if (content.length === 0) content = [{ text: ' ' }];
  const toolResult: NonNullable<WireContentBlock['toolResult']> = {
    toolUseId: providerToolId(context, part.callId, toolIdRule),
    content,
  };
  // Other families have no `status`: the error is said in the text, as for Chat Completions.
  if (part.isError && rich) toolResult.status = 'error';
  else if (part.isError) content.unshift({ text: 'Error:' });
  return { toolResult };
}

function convertPart(
  part: Part,
  item: Item,
  names: DocumentNames,
  context: ProviderContext,
): WireContentBlock | undefined {
  const assistant = item.kind === 'assistant';
  switch (part.type) {
    case 'text':
      return part.text.trim() === '' ? undefined : { text: part.text };
    case 'structured':
      return { text: JSON.stringify(part.value) };
    case 'reasoning':
      return assistant
        ? convertReasoning(part, context)
        : warnDroppedPart(context, part, 'reasoning outside an assistant item');
    case 'tool-call':
      return assistant
        ? {
            toolUse: {
              toolUseId: providerToolId(context, part.id, toolIdRule),
              name: part.name,
              input: part.input,
            },
          }
        : warnDroppedPart(context, part, 'tool call outside an assistant item');
    case 'tool-result':
      return assistant
        ? warnDroppedPart(context, part, 'tool result inside an assistant item')
        : convertToolResult(part, context, names);
    case 'media':
      if (assistant || part.modality !== 'image')
        return warnDroppedPart(
          context,
          part,
          `${part.modality} media in a ${item.kind} message is not taken by Converse`,
        );
      return convertImage(part, context);
    case 'file':
      return assistant
        ? warnDroppedPart(context, part, 'assistant messages cannot hold files')
        : convertFile(part, context, names);
    case 'custom':
      return typeof part.data === 'object' && part.data !== null && !Array.isArray(part.data)
        ? { ...(part.data as WireContentBlock) }
        : warnDroppedPart(context, part, 'custom part has no Converse content block in its data');
  }
}

/**
 * A run of the instructions' text: the parts up to one the caller put a prompt-cache breakpoint
 * after (`cacheBreakpointKey`: an Anthropic client's `cache_control` on a system block before the
 * last), joined; `breakpoint` is its TTL, or undefined for the run after the last breakpoint.
 */
export interface SystemRun {
  text: string;
  breakpoint?: '5m' | '1h';
}

/** The converted transcript: the joined instructions, the same as runs, and the alternating messages. */
export interface ConvertedMessages {
  system: string;
  systemRuns: SystemRun[];
  messages: WireMessage[];
}

/** The instructions' text parts as {@link SystemRun}s: one run without a breakpoint when the caller put none. */
function systemRunsOf(items: readonly Item[]): SystemRun[] {
  const runs: SystemRun[] = [];
  let texts: string[] = [];
  for (const item of items.filter(isInstructionItem))
    for (const part of item.parts) {
      if (part.type !== 'text') continue;
      if (part.text !== '') texts.push(part.text);
      const ttl = part.metadata?.[cacheBreakpointKey];
      if (ttl === undefined || texts.length === 0) continue;
      runs.push({ text: texts.join('\n\n'), breakpoint: ttl === '1h' ? '1h' : '5m' });
      texts = [];
    }
  if (texts.length > 0) runs.push({ text: texts.join('\n\n') });
  return runs;
}

/**
 * Converts the transcript: foreign or unsigned reasoning and foreign custom parts are dropped with
 * a WARN (`projectTranscript`); system, developer and context items are joined into `system` (one after the conversation began
 * with the WARN `warnMovedInstructions`); tool
 * items become user messages of `toolResult` blocks; consecutive messages of one role are merged
 * (Converse requires alternation); blank text is skipped; a final assistant message loses trailing
 * whitespace (Converse refuses it, like the Messages API).
 */
export function convertMessages(items: readonly Item[], context: ProviderContext): ConvertedMessages {
  const projected = projectTranscript(items, sameProviderRules(context), context);
  refuseEmptyUserTurns(items, projected, context, isBlank, 'bedrock');
  warnMovedInstructions(items, context);
  const messages: WireMessage[] = [];
  const names = new DocumentNames();
  for (const item of projected) {
    if (isInstructionItem(item)) continue;
    const role = item.kind === 'assistant' ? 'assistant' : 'user';
    const content: WireContentBlock[] = [];
    for (const part of item.parts) {
      const block = convertPart(part, item, names, context);
      if (block !== undefined) content.push(block);
    }
    if (content.length === 0) continue;
    const previous = messages.at(-1);
    if (previous?.role === role) pushAll(previous.content, content);
    else messages.push({ role, content });
  }
  const last = messages.at(-1);
  const lastBlock = last?.role === 'assistant' ? last.content.at(-1) : undefined;
  if (lastBlock?.text !== undefined) {
    lastBlock.text = lastBlock.text.trimEnd();
    if (lastBlock.text === '') last!.content.pop();
    if (last!.content.length === 0) messages.pop();
  }
  refuseLostLastTurn(items, projected, messages.at(-1)?.role, context, 'bedrock');
  return { system: joinInstructions(projected), systemRuns: systemRunsOf(projected), messages };
}
