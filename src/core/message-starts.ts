/**
 * Where a client's separate messages were folded into one transcript item: the codecs merge
 * consecutive messages of one role (two Chat `assistant` messages, two Responses `message` items,
 * two Gemini `model` contents), and the first part of each later one is marked here. An adapter
 * that joins an item's texts into one string (OpenAI Chat) keeps the boundary as a paragraph break,
 * where texts of one message (a reply split around its citations) join with nothing. A private
 * symbol on the part, as `sentAt`'s: it never reaches JSON or a provider.
 */
import type { Part } from './transcript.ts';

const messageStart = Symbol('switchyard.messageStart');

/** Marks `part` as the first of a client's message folded into the item before it. */
export function markMessageStart(part: Part): void {
  (part as Part & { [messageStart]?: true })[messageStart] = true;
}

/** Whether `part` begins a client's message folded into an earlier one's item ({@link markMessageStart}). */
export function startsMessage(part: Part): boolean {
  return (part as Part & { [messageStart]?: true })[messageStart] === true;
}
