/**
 * A reply's citations in the canonical flat form (`{type: 'url_citation', start_index, end_index,
 * url, title}`, see `core/annotations.ts`) from every upstream, for the OpenAI codecs: a text
 * part's own (a Responses upstream's annotations, an Anthropic upstream's web search citations)
 * and the response's (a Chat upstream's that came after their text had ended, a Gemini upstream's
 * grounding), so a Chat client and a Responses client are told the same sources.
 */
import { isJsonObject, type JsonValue } from '../core/json.ts';
import { anthropicCitationsKey, geminiGroundingKey, type MetadataMap } from '../core/metadata.ts';
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
