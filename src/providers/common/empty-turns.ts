/**
 * Empty user turns toward a provider that refuses messages without content (Anthropic and Bedrock
 * Converse: "all messages must have non-empty content except for the optional final assistant
 * message"; Gemini: "empty text parameter"). Their converters leave empty text out and merge
 * consecutive user and tool items into one message, so an empty user item beside another with
 * content is simply part of that message. One that would stand alone cannot be sent, and leaving it
 * out would change the request — a trailing one would make the assistant message before it a
 * prefill, an earlier one would join the assistant turns around it — so the call fails before
 * anything is sent, naming the turn.
 */
import { InvalidRequestError } from '../../core/errors/invalid-request-error.ts';
import type { Item } from '../../core/transcript.ts';
import type { ProviderContext } from './definition.ts';
import { isInstructionItem } from './projection.ts';

/** What the provider counts as no content: empty text, and for some whitespace-only text too. */
export type EmptyText = (text: string) => boolean;

/** Text that is empty. */
export const isEmpty: EmptyText = (text) => text === '';

/** Text that is empty or whitespace only (Anthropic and Converse refuse both). */
export const isBlank: EmptyText = (text) => text.trim() === '';

/**
 * Throws an invalid-request error for the first user item of `projected` (the transcript as the
 * converter sends it) that holds text parts only, all of them empty by `empty`, and would be a
 * message of its own: the user and tool items it would be merged with (those between the assistant
 * items around it, instruction items skipped as the converters skip them) are all empty user
 * items too. The message names it as `(transcript[i].parts[0])`, `i` its place in `items`, which the
 * gateway turns into the client's own field (`messages.2.content`). Items with anything else (media,
 * tool results) are left to the provider's own rules.
 */
export function refuseEmptyUserTurns(
  items: readonly Item[],
  projected: readonly Item[],
  context: ProviderContext,
  empty: EmptyText,
  label: string,
): void {
  const isEmptyTurn = (item: Item) =>
    item.kind === 'user' &&
    item.parts.length > 0 &&
    item.parts.every((part) => part.type === 'text' && empty(part.text));
  let message: Item[] = [];
  const check = () => {
    const lone = message[0];
    if (lone !== undefined && message.every(isEmptyTurn)) refuse(items.indexOf(lone), context, label);
    message = [];
  };
  for (const item of projected) {
    if (isInstructionItem(item)) continue;
    if (item.kind === 'assistant') check();
    else message.push(item);
  }
  check();
}

/**
 * Throws when the converted request no longer ends where the transcript did: its last turn (after
 * instruction items) was the user's or tool results, but the converter left all of it out (empty
 * text, media the provider does not take, each with its WARN), so the request would end with the
 * assistant message before it — `sentLast` (the role of the last message converted) `assistant`: a
 * prefill nobody asked for — or, that turn being the only one, have no message at all (`sentLast`
 * undefined), which the provider refuses with nothing to say which part was the trouble.
 */
export function refuseLostLastTurn(
  items: readonly Item[],
  projected: readonly Item[],
  sentLast: 'user' | 'assistant' | undefined,
  context: ProviderContext,
  label: string,
): void {
  if (sentLast === 'user') return;
  const last = projected.findLast((item) => !isInstructionItem(item));
  if (last === undefined || last.kind === 'assistant') return;
  const index = items.indexOf(last);
  const where = index < 0 ? '' : ` (transcript[${index}].parts[0])`;
  const without =
    sentLast === undefined
      ? 'the request would have no message'
      : "the request would end with the assistant's message";
  throw new InvalidRequestError({
    message: `${label}: nothing of the last user turn${where} is something the provider takes (its parts were left out), and without it ${without}: send text in it`,
    provider: context.provider,
    requestId: context.requestId,
  });
}

function refuse(index: number, context: ProviderContext, label: string): never {
  const where = index < 0 ? '' : ` (transcript[${index}].parts[0])`;
  throw new InvalidRequestError({
    message: `${label}: the user turn${where} is empty, and the provider refuses a message without content: send text in it, or leave the turn out`,
    provider: context.provider,
    requestId: context.requestId,
  });
}
