/** Conversation ids: ULIDs (sortable by creation time, safe in file names and URLs). */
import { ulid } from 'ulid';

/** A new conversation id. */
export function createConversationId(): string {
  return ulid();
}
