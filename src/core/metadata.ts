/** The namespaced metadata map (`provider.field` keys) with a deterministic serialized key order. */
import type { JsonValue } from './json.ts';

/** Extension data keyed `namespace.field` (e.g. `anthropic.stop_sequence`). Never needed for correctness. */
export type MetadataMap = Record<string, JsonValue>;

/** Returns a copy of `metadata` with keys in code-point order, so JSON output is deterministic. */
export function sortMetadata(metadata: MetadataMap): MetadataMap {
  const keys = Object.keys(metadata).sort();
  const sorted: MetadataMap = {};
  for (const key of keys) sorted[key] = metadata[key] as JsonValue;
  return sorted;
}

/**
 * Response metadata key of the stop sequence Switchyard cut the reply at, for a provider that could
 * not be sent it (`StreamBuilder.stopAt`), or that a host reported in a field of its own (Bedrock's
 * `additionalModelResponseFields.stop_sequence`); Anthropic's own is `anthropic.stop_sequence`.
 */
export const stopSequenceKey = 'switchyard.stop_sequence';

/**
 * Request metadata key of a text part the caller's prompt-cache breakpoint follows (its value the
 * TTL: `5m` or `1h`): an Anthropic client's `cache_control` on a system block before the last, so
 * the cached prefix ends before the blocks that change per request. The Anthropic adapter sends
 * the system prompt as blocks with the marker there; other providers cache by prefix without one.
 */
export const cacheBreakpointKey = 'switchyard.cache_breakpoint';

/**
 * Item metadata key of a user turn's participant name (a Chat client's `name`), so turns of two
 * named users stay apart: an OpenAI Chat host gets it as the message's `name`; every other provider,
 * which has no such field, gets it before the turn's text (`alice: …`, `projectTranscript`).
 */
export const participantNameKey = 'switchyard.name';

/**
 * Request metadata key of an image part's resolution (`low`, `high` or `original`; `auto`, the
 * default, is not kept): an OpenAI client's `image_url.detail` / `input_image.detail`. OpenAI Chat
 * and Responses upstreams are sent it as `detail`, Gemini 3 as the part's `mediaResolution` (`low`
 * and `high`); other providers have no such setting.
 */
export const imageDetailKey = 'switchyard.image_detail';

/**
 * Request metadata keys of a document (a file part) the model is to cite: its `context` (text about
 * the document, not cited itself) and whether citations are asked of it (`true`; absent: not asked).
 * An Anthropic client's document `context` and `citations: {enabled: true}`: Claude gets them back
 * on the document (Anthropic, Vertex, Bedrock InvokeModel; Bedrock Converse's `context` and
 * `citations.enabled`); other providers have no such fields. Its `title` is the part's `filename`.
 */
export const documentContextKey = 'switchyard.document_context';
export const documentCitationsKey = 'switchyard.document_citations';

/** Metadata key under which text parts carry Anthropic citations (the provider's and the gateway's codec's). */
export const anthropicCitationsKey = 'anthropic.citations';

/**
 * Metadata key under which text parts carry Bedrock Converse citations (`{title, sourceContent,
 * location}`, AWS's Citation), the adapter's; the Anthropic codec converts them (`codecs/citations.ts`).
 */
export const bedrockCitationsKey = 'bedrock.citations';

/**
 * Metadata key of a text part that is an Anthropic client's `search_result` block (a RAG result:
 * `source`, `title`, text `content`, `citations`), the block kept whole: a Claude upstream gets
 * the block back (Claude cites it); any other reads the part's text, the block written out
 * (`Search result: <title>`, `Source: <source>`, then its text).
 */
export const anthropicSearchResultKey = 'anthropic.search_result';

/**
 * Metadata key of a tool call's `caller` (Anthropic's programmatic tool calling), sent back with the
 * call; a direct call (`{type:'direct'}`, or none) carries none: {@link anthropicCallerMetadata}.
 */
export const anthropicCallerKey = 'anthropic.caller';

/** The metadata of a `tool_use` block's `caller`: none for a direct call (absent, null or `{type:'direct'}`). */
export function anthropicCallerMetadata(caller: unknown): MetadataMap | undefined {
  if (caller === undefined || caller === null) return undefined;
  if (
    typeof caller === 'object' &&
    !Array.isArray(caller) &&
    (caller as { type?: unknown }).type === 'direct'
  )
    return undefined;
  return { [anthropicCallerKey]: caller as JsonValue };
}

/** True when `key` has the `namespace.field` shape metadata keys must have. */
export function isMetadataKey(key: string): boolean {
  const dot = key.indexOf('.');
  return dot > 0 && dot < key.length - 1;
}

/**
 * Request metadata key of the `displayName` of a media part in a Gemini client's multimodal function
 * response (`functionResponse.parts[].inlineData.displayName`), which the response object refers to
 * (`{"$ref": "<displayName>"}`): a Gemini 3 upstream gets it back on the same part; other providers
 * have no such field.
 */
export const geminiDisplayNameKey = 'gemini.displayName';

/**
 * Request metadata key (value `true`) on a video a Gemini client sent as `fileData` without a
 * `mimeType` (a YouTube URL, as Google's video guide sends it): its `mimeType` `video/*` is a
 * placeholder, and a Gemini upstream gets the part without one, as the client wrote it.
 */
export const geminiNoMimeTypeKey = 'gemini.noMimeType';

/**
 * Request metadata key (value `true`) on the structured part of a tool result that is a Gemini
 * client's `functionResponse.response` object as written, beside media: a Gemini upstream gets it
 * back as the `response` itself. Any other single structured value goes under `output` (or
 * `error`), so an object of the caller's that has an `error` key is not read as a failed call.
 */
export const geminiResponseObjectKey = 'gemini.responseObject';

/**
 * Response metadata key of a Gemini candidate's Google Search grounding (`groundingMetadata`), set by
 * the Gemini adapters and read by the Chat codec (`url_citation`s).
 */
export const geminiGroundingKey = 'gemini.groundingMetadata';

/**
 * Response metadata key of where each wire part of a non-streamed Gemini candidate starts in the
 * reply's text (characters; index = the part's `partIndex`), so grounding segments measured from
 * the start of their part can be placed. Set only when the candidate has several parts.
 */
export const geminiPartStartsKey = 'gemini.partStarts';

/**
 * The candidate fields a Gemini upstream's reply keeps as response metadata, each under
 * `gemini.<field>` (set by the Gemini reader), and which the Gemini codec writes back on the
 * candidate it encodes, so a Gemini client of a Gemini upstream gets them as sent.
 */
export const geminiCandidateFields = [
  'groundingMetadata',
  'citationMetadata',
  'urlContextMetadata',
  'safetyRatings',
  'finishMessage',
  'avgLogprobs',
] as const;

/** Response metadata key of a Gemini upstream's `promptFeedback` when it blocked the prompt. */
export const geminiPromptFeedbackKey = 'gemini.promptFeedback';
