/** A whole `chat.completion` body → builder calls (the same reader as the stream, fed one message). */
import type { StreamBuilder } from '../../core/stream-builder.ts';
import type { ProviderContext } from '../shared/definition.ts';
import type { WireCompletion } from './api.ts';
import type { ChatQuirks } from './quirks.ts';
import { ChatReader } from './reader.ts';

export { convertUsage, type FinishContext, mapFinishReason } from './mapping.ts';

/**
 * Translates a complete response. An `error` object in a 200 body fails with the classified error;
 * a body with no choice fails as a retryable server error (`invalid_response`). Only the first
 * choice is read (Switchyard never asks for `n > 1`).
 */
export function parseResponse(
  body: unknown,
  context: ProviderContext,
  builder: StreamBuilder,
  quirks: ChatQuirks,
): void {
  const reader = new ChatReader(context, builder, quirks);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    context.fail({ code: 'invalid_response', message: 'the response body is not a JSON object' });
  }
  const completion = body as WireCompletion;
  if (quirks.inBandErrors && completion.error !== undefined && completion.error !== null) {
    reader.fail(completion.error);
  }
  const choice = Array.isArray(completion.choices) ? completion.choices[0] : undefined;
  if (choice === undefined || choice === null) {
    context.fail({ code: 'invalid_response', message: 'the response has no choices' });
  }
  reader.read(completion, choice);
  reader.complete();
}
