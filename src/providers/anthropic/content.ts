/** Converts canonical content parts (text, media, files, tool results) into Anthropic content blocks. */
import { InvalidRequestError } from '../../core/errors/invalid-request-error.ts';
import type { JsonValue } from '../../core/json.ts';
import { anthropicToolId } from '../../core/tool-id-map.ts';
import type { DataRef, FilePart, MediaPart, Part, TextPart, ToolResultPart } from '../../core/transcript.ts';
import type { ProviderContext } from '../shared/definition.ts';
import { providerToolId } from '../shared/projection.ts';
import type {
  WireDocumentBlock,
  WireImageBlock,
  WireSource,
  WireTextBlock,
  WireToolResultBlock,
} from './api.ts';

/** Metadata key under which text parts carry Anthropic citations (response and request). */
export const citationsKey = 'anthropic.citations';

/** Metadata key of a tool call's `caller` (programmatic tool calling), sent back with the call. */
export const callerKey = 'anthropic.caller';

/** Blocks a tool result's content may hold. */
export type ToolResultContentBlock = WireTextBlock | WireImageBlock | WireDocumentBlock;

function invalid(message: string, context: ProviderContext): InvalidRequestError {
  return new InvalidRequestError({
    message: `anthropic: ${message}`,
    provider: 'anthropic',
    requestId: context.requestId,
  });
}

function base64Of(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** The wire source of binary data: base64 stays base64, bytes are encoded, URIs become URL sources. */
export function convertSource(
  data: DataRef,
  mediaType: string,
  what: string,
  context: ProviderContext,
): WireSource {
  switch (data.type) {
    case 'base64':
      return { type: 'base64', media_type: mediaType, data: data.data };
    case 'bytes':
      return { type: 'base64', media_type: mediaType, data: base64Of(data.bytes) };
    case 'uri':
      return { type: 'url', url: data.uri };
    case 'handle':
      throw handleError(data.handle, what, context);
  }
}

function handleError(handle: string, what: string, context: ProviderContext): InvalidRequestError {
  return invalid(
    `${what} refers to artifact handle "${handle}", which the Messages API cannot read; ` +
      'resolve handles to base64, bytes or a URL before calling the adapter',
    context,
  );
}

/** A text block (empty text is refused by the API: the caller skips it); citations ride along. */
export function convertText(part: TextPart): WireTextBlock {
  const block: WireTextBlock = { type: 'text', text: part.text };
  const citations = part.metadata?.[citationsKey];
  if (Array.isArray(citations) && citations.length > 0) block.citations = citations;
  return block;
}

/** An image block; other media (audio, video, binary) have no Messages API equivalent. */
export function convertMedia(part: MediaPart, context: ProviderContext): WireImageBlock | undefined {
  if (part.modality !== 'image') {
    context.warn('dropped a part the provider cannot take', {
      blockType: 'media',
      reason: `${part.modality} media (${part.mimeType}) is not supported by the Messages API`,
    });
    return undefined;
  }
  return { type: 'image', source: convertSource(part.data, part.mimeType, 'an image', context) };
}

function textOf(part: FilePart, context: ProviderContext): string {
  switch (part.data.type) {
    case 'base64':
      return Buffer.from(part.data.data, 'base64').toString('utf8');
    case 'bytes':
      return new TextDecoder().decode(part.data.bytes);
    case 'uri':
      throw invalid(
        `text file ${part.filename ?? part.mimeType} is a URL; the Messages API only takes text documents inline`,
        context,
      );
    case 'handle':
      throw handleError(part.data.handle, 'a text file', context);
  }
}

/**
 * A file: PDF → `document` (base64 or URL source), `text/*` → `document` with a text source, an
 * image file → `image`. Other types are dropped with a WARN (contract §4.4).
 */
export function convertFile(
  part: FilePart,
  context: ProviderContext,
): WireDocumentBlock | WireImageBlock | undefined {
  let block: WireDocumentBlock | WireImageBlock;
  if (part.mimeType === 'application/pdf') {
    block = { type: 'document', source: convertSource(part.data, part.mimeType, 'a PDF document', context) };
  } else if (part.mimeType.startsWith('text/')) {
    block = {
      type: 'document',
      source: { type: 'text', media_type: 'text/plain', data: textOf(part, context) },
    };
  } else if (part.mimeType.startsWith('image/')) {
    return { type: 'image', source: convertSource(part.data, part.mimeType, 'an image file', context) };
  } else {
    context.warn('dropped a part the provider cannot take', {
      blockType: 'file',
      reason: `files of type ${part.mimeType} are not supported by the Messages API`,
    });
    return undefined;
  }
  if (part.filename !== undefined) block.title = part.filename;
  return block;
}

function stringify(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function convertResultPart(part: Part, context: ProviderContext): ToolResultContentBlock | undefined {
  switch (part.type) {
    case 'text':
      return part.text === '' ? undefined : { type: 'text', text: part.text };
    case 'structured':
      return { type: 'text', text: JSON.stringify(part.value) };
    case 'media':
      return convertMedia(part, context);
    case 'file':
      return convertFile(part, context);
    default:
      context.warn('dropped a part the provider cannot take', {
        blockType: part.type,
        reason: `a ${part.type} part cannot be part of an Anthropic tool_result`,
      });
      return undefined;
  }
}

/**
 * A `tool_result` block: text as a string, JSON stringified, parts as text/image/document blocks;
 * `is_error` only when true. The id is the provider id of the canonical call id.
 */
export function convertToolResult(part: ToolResultPart, context: ProviderContext): WireToolResultBlock {
  const block: WireToolResultBlock = {
    type: 'tool_result',
    tool_use_id: providerToolId(context, part.callId, anthropicToolId),
  };
  const output = part.output;
  if (output.type === 'text') {
    if (output.text !== '') block.content = output.text;
  } else if (output.type === 'json') {
    block.content = stringify(output.value);
  } else {
    const content = output.parts
      .map((inner) => convertResultPart(inner, context))
      .filter((inner): inner is ToolResultContentBlock => inner !== undefined);
    if (content.length > 0) block.content = content;
  }
  if (part.isError) block.is_error = true;
  return block;
}
