/**
 * Empty user turns toward a provider that refuses messages without content (Anthropic and Bedrock
 * Converse: "all messages must have non-empty content except for the optional final assistant
 * message"; Gemini: "empty text parameter"). Leaving such a turn out would change the request — a
 * trailing one would make the assistant message before it a prefill, an earlier one would join the
 * assistant turns around it — so the call fails before anything is sent, naming the turn.
 */
import { InvalidRequestError } from '../../core/errors/invalid-request-error.ts';
import type { Item } from '../../core/transcript.ts';
import type { ProviderContext } from './definition.ts';

/** What the provider counts as no content: empty text, and for some whitespace-only text too. */
export type EmptyText = (text: string) => boolean;

/** Text that is empty. */
export const isEmpty: EmptyText = (text) => text === '';

/** Text that is empty or whitespace only (Anthropic and Converse refuse both). */
export const isBlank: EmptyText = (text) => text.trim() === '';

/**
 * Throws an invalid-request error for the first user item that holds text parts only, all of them
 * empty by `empty`. The message names it as `(transcript[i].parts[0])`, which the gateway turns into
 * the client's own field (`messages.2.content`). Items with anything else (media, tool results) are
 * left to the provider's own rules.
 */
export function refuseEmptyUserTurns(
  items: readonly Item[],
  context: ProviderContext,
  empty: EmptyText,
  label: string,
): void {
  const index = items.findIndex(
    (item) =>
      item.kind === 'user' &&
      item.parts.length > 0 &&
      item.parts.every((part) => part.type === 'text' && empty(part.text)),
  );
  if (index < 0) return;
  throw new InvalidRequestError({
    message: `${label}: the user turn (transcript[${index}].parts[0]) is empty, and the provider refuses a message without content: send text in it, or leave the turn out`,
    provider: context.provider,
    requestId: context.requestId,
  });
}
