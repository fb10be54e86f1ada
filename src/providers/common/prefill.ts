/**
 * A prefill toward a provider that cannot continue it (`Capabilities.assistantPrefill` false: OpenAI
 * Chat and Responses). A transcript ending with an assistant message asks the model to go on from
 * it (`{` so the reply continues as JSON); such a provider takes it as a finished earlier turn and
 * starts a new message, which the caller would join to its prefill (`{{"a":1}`). The call WARNs that
 * the message was sent as an earlier turn, and a reply whose text begins with the prefill has that
 * repeat cut (`StreamBuilder.stripRepeatedPrefix`), so prefill + reply reads as one message.
 */
import type { CanonicalRequest } from '../../core/request.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import type { ProviderContext } from './definition.ts';

/**
 * The text of the transcript's trailing assistant message, when it is one the model could go on
 * from: its text parts (reasoning aside), with no tool call; else undefined.
 */
export function prefillOf(request: Pick<CanonicalRequest, 'transcript'>): string | undefined {
  const last = request.transcript.at(-1);
  if (last?.kind !== 'assistant') return undefined;
  let text = '';
  for (const part of last.parts) {
    if (part.type === 'tool-call') return undefined;
    if (part.type === 'text') text += part.text;
  }
  return text === '' ? undefined : text;
}

/** The request path's check (`call-setup.ts`): a prefill the provider cannot continue is WARNed and remembered. */
export function checkPrefill(request: CanonicalRequest, context: ProviderContext): void {
  if (context.capabilities.assistantPrefill !== false) return;
  const prefill = prefillOf(request);
  if (prefill === undefined) return;
  context.warn('sent the trailing assistant message as an earlier turn: the provider cannot continue it', {
    model: context.model,
    itemIndex: request.transcript.length - 1,
    prefillChars: prefill.length,
  });
  context.prefill = prefill;
}

/** The reply readers' hook (`complete-call.ts`, `stream-call.ts`): a repeat of the call's prefill is cut. */
export function stripRepeatedPrefill(context: ProviderContext, builder: StreamBuilder): void {
  const prefill = context.prefill;
  if (prefill !== undefined) builder.stripRepeatedPrefix(prefill);
}
