/** Converts canonical content parts (text, media, files, tool results) into Anthropic content blocks. */
import { InvalidRequestError } from '../../core/errors/invalid-request-error.ts';
import { isJsonObject, type JsonValue } from '../../core/json.ts';
import type { DataRef, FilePart, MediaPart, Part, TextPart, ToolResultPart } from '../../core/transcript.ts';
import type { ProviderContext } from '../common/definition.ts';
import { providerToolId, warnDroppedPart } from '../common/projection.ts';
import { imageMediaTypes } from './capabilities.ts';
import type {
  WireDocumentBlock,
  WireImageBlock,
  WireSource,
  WireTextBlock,
  WireToolResultBlock,
  WireVerbatimBlock,
} from './api.ts';
import { toolIdRule } from './tool-ids.ts';
import { isWebScheme, unreadUriReason, uriScheme } from '../common/media-urls.ts';

/** Metadata keys of Anthropic citations and of a tool call's `caller`: one place, shared with the gateway's codec. */
import {
  anthropicCallerKey,
  anthropicCitationsKey,
  anthropicSearchResultKey,
  documentCitationsKey,
  documentContextKey,
} from '../../core/metadata.ts';

export const citationsKey = anthropicCitationsKey;
export const callerKey = anthropicCallerKey;

/** Blocks a tool result's content may hold. */
export type ToolResultContentBlock = WireTextBlock | WireImageBlock | WireDocumentBlock | WireVerbatimBlock;

function invalid(message: string, context: ProviderContext): InvalidRequestError {
  return new InvalidRequestError({
    message: `anthropic: ${message}`,
    provider: 'anthropic',
    requestId: context.requestId,
  });
}

/** Whether text is empty or whitespace only; whitespace-only text is reported as dropped. */
function blankText(text: string, part: Part, context: ProviderContext): boolean {
  if (text.trim() !== '') return false;
  if (text !== '') warnDroppedPart(context, part, 'text content blocks must contain non-whitespace text');
  return true;
}

function base64Of(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * A `data:<media type>[;…];base64,<data>` URI as a base64 source, with the URI's media type (the
 * part's when the URI names none). Data URIs that are not base64 are refused.
 */
function convertDataUri(
  uri: string,
  mediaType: string,
  what: string,
  context: ProviderContext,
): Extract<WireSource, { type: 'base64' }> {
  const comma = uri.indexOf(',');
  const parameters = uri.slice('data:'.length, comma).split(';');
  if (comma < 0 || parameters.length < 2 || parameters.at(-1)?.trim().toLowerCase() !== 'base64') {
    throw invalid(`${what} is a data: URI that is not base64-encoded; send it as base64 or bytes`, context);
  }
  const uriType = (parameters[0] as string).trim().toLowerCase();
  return { type: 'base64', media_type: uriType === '' ? mediaType : uriType, data: uri.slice(comma + 1) };
}

/**
 * A URI: http(s) URLs are fetched by the API (not by Claude on Vertex or Bedrock InvokeModel,
 * `context.urlSources`: there the part is left out, as toward Converse), data URIs are sent inline, other schemes are refused.
 */
function convertUri(uri: string, mediaType: string, what: string, context: ProviderContext): WireSource {
  // Only the scheme is named in errors: the rest of a URI may carry tokens or personal data.
  const scheme = uriScheme(uri);
  if (isWebScheme(scheme) && context.urlSources === false)
    throw new Unsupported(
      unreadUriReason(
        what,
        scheme,
        'Claude on Vertex or Bedrock fetches no URL (send it as base64 or bytes)',
      ),
    );
  if (isWebScheme(scheme)) return { type: 'url', url: uri };
  if (scheme === 'data') return convertDataUri(uri, mediaType, what, context);
  throw new Unsupported(
    unreadUriReason(
      what,
      scheme,
      'the Messages API fetches http and https URLs only (send other data as base64 or bytes)',
    ),
  );
}

/**
 * The wire source of binary data: base64 stays base64, bytes are encoded, http(s) URIs become URL
 * sources and base64 `data:` URIs base64 sources; handles and other URIs throw `Unsupported` (the
 * part is dropped with a WARN); a `data:` URI that is not base64 is an InvalidRequestError.
 */
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
      return convertUri(data.uri, mediaType, what, context);
    case 'handle':
      throw handleUnsupported(what);
  }
}

/**
 * The source of an image. Inline images must be one of the API's media types (`imageMediaTypes`):
 * others are an InvalidRequestError naming the type. URL images are typed by the API when fetched.
 */
function convertImageSource(
  data: DataRef,
  mediaType: string,
  what: string,
  context: ProviderContext,
): WireSource {
  const source = convertSource(data, mediaType, what, context);
  if (source.type === 'base64' && !(imageMediaTypes as readonly string[]).includes(source.media_type)) {
    throw new Unsupported(
      `${what} has media type ${source.media_type}, which the Messages API does not take (it takes ${imageMediaTypes.join(', ')})`,
    );
  }
  return source;
}

/**
 * Content the Messages API cannot take (an artifact handle, a URL it will not fetch, an image type
 * it refuses): thrown inside a conversion, caught by the part's converter, which drops the part
 * with the one projection WARN (`warnDroppedPart`).
 */
class Unsupported extends Error {
  override name = 'Unsupported';
}

function handleUnsupported(what: string): Unsupported {
  return new Unsupported(
    `${what} is an artifact handle, which no adapter can resolve; resolve handles to base64, bytes or a URL before the call`,
  );
}

/** Runs a part conversion; content the API cannot take drops the part with a WARN. */
function orDropped<Block>(part: Part, context: ProviderContext, convert: () => Block): Block | undefined {
  try {
    return convert();
  } catch (error) {
    if (error instanceof Unsupported) return warnDroppedPart(context, part, error.message);
    throw error;
  }
}

/**
 * A client's `search_result` block kept whole on its text part (`anthropicSearchResultKey`): sent
 * back as the block (a copy: cache breakpoints are never written into the caller's transcript).
 */
function searchResultBlock(part: TextPart): WireVerbatimBlock | undefined {
  const block = part.metadata?.[anthropicSearchResultKey];
  return isJsonObject(block) && block.type === 'search_result'
    ? ({ ...block } as WireVerbatimBlock)
    : undefined;
}

/**
 * A text block with its citations (a kept `search_result` block as itself). Empty and whitespace-only text is refused by the API: it gives
 * `undefined` (whitespace, which is content, with a WARN).
 */
export function convertText(
  part: TextPart,
  context: ProviderContext,
): WireTextBlock | WireVerbatimBlock | undefined {
  const searchResult = searchResultBlock(part);
  if (searchResult !== undefined) return searchResult;
  if (blankText(part.text, part, context)) return undefined;
  const block: WireTextBlock = { type: 'text', text: part.text };
  const citations = part.metadata?.[citationsKey];
  if (Array.isArray(citations) && citations.length > 0) block.citations = citations;
  return block;
}

/** An image block; other media (audio, video, binary) have no Messages API equivalent. */
export function convertMedia(part: MediaPart, context: ProviderContext): WireImageBlock | undefined {
  if (part.modality !== 'image') {
    return warnDroppedPart(
      context,
      part,
      `${part.modality} media (${part.mimeType}) is not supported by the Messages API`,
    );
  }
  return orDropped(part, context, () => ({
    type: 'image' as const,
    source: convertImageSource(part.data, part.mimeType, 'an image', context),
  }));
}

function textOf(part: FilePart, context: ProviderContext): string {
  switch (part.data.type) {
    case 'base64':
      return Buffer.from(part.data.data, 'base64').toString('utf8');
    case 'bytes':
      return new TextDecoder().decode(part.data.bytes);
    case 'uri':
      if (/^data:/i.test(part.data.uri)) {
        const source = convertDataUri(part.data.uri, part.mimeType, 'a text file', context);
        return Buffer.from(source.data, 'base64').toString('utf8');
      }
      throw new Unsupported(
        `text file ${part.filename ?? part.mimeType} is a URL; the Messages API only takes text documents inline`,
      );
    case 'handle':
      throw handleUnsupported('a text file');
  }
}

/**
 * A file: PDF → `document` (base64 or URL source), `text/*` → `document` with a text source, an
 * image file → `image`. Other types are dropped with a WARN (docs/contract.md §4.4).
 */
export function convertFile(
  part: FilePart,
  context: ProviderContext,
): WireDocumentBlock | WireImageBlock | undefined {
  return orDropped(part, context, () => convertFileBlock(part, context));
}

function convertFileBlock(
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
    return { type: 'image', source: convertImageSource(part.data, part.mimeType, 'an image file', context) };
  } else {
    return warnDroppedPart(
      context,
      part,
      `files of type ${part.mimeType} are not supported by the Messages API`,
    );
  }
  if (part.filename !== undefined) block.title = part.filename;
  const documentContext = part.metadata?.[documentContextKey];
  if (typeof documentContext === 'string' && documentContext !== '') block.context = documentContext;
  if (part.metadata?.[documentCitationsKey] === true) block.citations = { enabled: true };
  return block;
}

function stringify(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function convertResultPart(part: Part, context: ProviderContext): ToolResultContentBlock | undefined {
  switch (part.type) {
    case 'text':
      return (
        searchResultBlock(part) ??
        (blankText(part.text, part, context) ? undefined : { type: 'text', text: part.text })
      );
    case 'structured':
      return { type: 'text', text: JSON.stringify(part.value) };
    case 'media':
      return convertMedia(part, context);
    case 'file':
      return convertFile(part, context);
    default:
      return warnDroppedPart(context, part, `a ${part.type} part cannot be part of an Anthropic tool_result`);
  }
}

/**
 * A `tool_result` block: text as a string, JSON stringified, parts as text/image/document blocks;
 * empty or whitespace-only text sends no content; `is_error` only when true. The id is the provider
 * id of the canonical call id.
 */
export function convertToolResult(part: ToolResultPart, context: ProviderContext): WireToolResultBlock {
  const block: WireToolResultBlock = {
    type: 'tool_result',
    tool_use_id: providerToolId(context, part.callId, toolIdRule),
  };
  const output = part.output;
  if (output.type === 'text' || output.type === 'json') {
    const text = output.type === 'text' ? output.text : stringify(output.value);
    if (!blankText(text, part, context)) block.content = text;
  } else {
    const content = output.parts
      .map((inner) => convertResultPart(inner, context))
      .filter((inner): inner is ToolResultContentBlock => inner !== undefined);
    if (content.length > 0) block.content = content;
  }
  if (part.isError) block.is_error = true;
  return block;
}
