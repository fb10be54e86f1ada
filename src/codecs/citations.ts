/**
 * Citations across codecs. A reply's citations in the canonical flat form (`{type: 'url_citation', start_index, end_index,
 * url, title}`, see `core/annotations.ts`) from every upstream, for the OpenAI codecs: a text
 * part's own (a Responses upstream's annotations, an Anthropic upstream's web search citations)
 * and the response's (a Chat upstream's that came after their text had ended, a Gemini upstream's
 * grounding), so a Chat client and a Responses client are told the same sources; and a text
 * part's citations in Claude's form for the Anthropic codec ({@link anthropicCitations}).
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.ts';
import {
  anthropicCitationsKey,
  bedrockCitationsKey,
  geminiGroundingKey,
  type MetadataMap,
} from '../core/metadata.ts';
import type { CanonicalResponse } from '../core/request.ts';
import { isRefusalText, textAnnotations } from './common.ts';
import { groundingCitations } from './grounding.ts';
import { pushAll } from '../core/arrays.ts';

/**
 * The annotations of one text part (`length` characters), offsets within it: its upstream's own,
 * then an Anthropic upstream's web search citations (`web_search_result_location`: a URL and title
 * for the text block it cites, so the whole part; each URL once, as Anthropic cites one source
 * several times in a block). Anthropic's document citations have no URL and are left out.
 */
export function partAnnotations(metadata: MetadataMap | undefined, length: number): JsonValue[] {
  const own = textAnnotations(metadata);
  const citations = metadata?.[anthropicCitationsKey];
  if (!Array.isArray(citations) || length === 0) return own;
  const cited = new Set<string>();
  for (const citation of citations) {
    if (!isJsonObject(citation) || citation.type !== 'web_search_result_location') continue;
    const { url, title } = citation;
    if (typeof url !== 'string' || cited.has(url)) continue;
    cited.add(url);
    own.push({
      type: 'url_citation',
      start_index: 0,
      end_index: length,
      url,
      title: typeof title === 'string' ? title : '',
    });
  }
  return own;
}

/**
 * The response's annotations, offsets in the whole message text (`text`, else every non-refusal
 * text part joined, {@link messageText}, made only for a grounding): a Chat upstream's late ones,
 * then a Gemini upstream's grounding.
 */
export function responseAnnotations(
  response: Pick<CanonicalResponse, 'content' | 'metadata'>,
  text?: string,
): JsonValue[] {
  const { metadata } = response;
  const annotations = textAnnotations(metadata);
  if (metadata?.[geminiGroundingKey] !== undefined)
    pushAll(annotations, groundingCitations(metadata, text ?? messageText(response)));
  return annotations;
}

/** The message text the response's annotations count in: its text parts but its refusals, joined. */
export function messageText(response: Pick<CanonicalResponse, 'content'>): string {
  let text = '';
  for (const part of response.content)
    if (part.type === 'text' && !isRefusalText(part.metadata)) text += part.text;
  return text;
}

/** Converse citation locations → Anthropic citation types and their start/end field names. */
const converseLocations = {
  documentChar: ['char_location', 'start_char_index', 'end_char_index'],
  documentPage: ['page_location', 'start_page_number', 'end_page_number'],
  documentChunk: ['content_block_location', 'start_block_index', 'end_block_index'],
} as const;

/**
 * A Bedrock Converse citation (`{title, sourceContent: [{text}], location: {documentChar |
 * documentPage | documentChunk: {documentIndex, start, end}}}`) as Claude's Messages API writes it
 * (`char_location`, `page_location`, `content_block_location`, with `cited_text`, `document_index`,
 * `document_title`), or undefined for a location Claude's document citations have no form for
 * (`web`, search results).
 */
function anthropicCitationOf(citation: JsonValue): JsonObject | undefined {
  if (!isJsonObject(citation) || !isJsonObject(citation.location)) return undefined;
  for (const [key, [type, startKey, endKey]] of Object.entries(converseLocations)) {
    const location = citation.location[key];
    if (!isJsonObject(location)) continue;
    const { documentIndex, start, end } = location;
    if (typeof documentIndex !== 'number' || typeof start !== 'number' || typeof end !== 'number')
      return undefined;
    const source = Array.isArray(citation.sourceContent) ? citation.sourceContent : [];
    let cited = '';
    for (const piece of source)
      if (isJsonObject(piece) && typeof piece.text === 'string') cited += piece.text;
    return {
      type,
      cited_text: cited,
      document_index: documentIndex,
      document_title: typeof citation.title === 'string' ? citation.title : null,
      [startKey]: start,
      [endKey]: end,
    };
  }
  return undefined;
}

/**
 * A text part's citations in Claude's Messages form, for the Anthropic codec: an Anthropic
 * upstream's (`anthropic.citations`: Claude direct, on Vertex, Bedrock InvokeModel) as it wrote
 * them, else Bedrock Converse's (`bedrock.citations`) converted (document locations only; see
 * {@link anthropicCitationOf}); empty without any. OpenAI's `url_citation`s are not converted (an
 * Anthropic citation quotes its source, which they do not give).
 */
export function anthropicCitations(metadata: MetadataMap | undefined): JsonObject[] {
  const own = metadata?.[anthropicCitationsKey];
  if (Array.isArray(own)) return own.filter(isJsonObject);
  const converse = metadata?.[bedrockCitationsKey];
  if (!Array.isArray(converse)) return [];
  const citations: JsonObject[] = [];
  for (const citation of converse) {
    const converted = anthropicCitationOf(citation);
    if (converted !== undefined) citations.push(converted);
  }
  return citations;
}
