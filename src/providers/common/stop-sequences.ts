/**
 * The stop sequences of a request as a provider takes them, and the rest emulated. A provider that
 * takes none (OpenAI Responses; the Chat models that reject `stop`: o3, o4, gpt-5), fewer than
 * asked (OpenAI Chat 4, Gemini 5) or not some (Claude: whitespace-only ones) is sent what it takes,
 * and the reply's text is cut before the first of the request's sequences it completes here
 * (`StreamBuilder.stopAt`): the answer the caller asked for, never one that runs past a sequence it
 * asked to stop at. The rest of a stream is still
 * read (nothing of it emitted) until the provider ends it: the provider generates and bills it, so
 * the usage is the provider's own count — cutting the read short left a reasoning model's thousands
 * of billed tokens to an estimate of the few cut ones, and a key's budget blind to them.
 */
import { InvalidRequestError } from '../../core/errors/index.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import { callOf, type ProviderContext } from './definition.ts';
import { refusalCodes } from './refusal-codes.ts';

/** Per call: the sequences its reply is cut at here. */
const emulated = new WeakMap<object, readonly string[]>();

/**
 * Most sequences, and most characters in one, cut at here: each text delta is searched for every
 * sequence, so a client's thousands of long sequences would cost every delta milliseconds. Past
 * either, a refusal naming it (the providers' own limits are lower still: OpenAI 4, Gemini 5).
 */
export const maxEmulatedStops = { count: 64, length: 256 } as const;

function emulate(stops: readonly string[], context: ProviderContext): void {
  const { count, length } = maxEmulatedStops;
  const longest = Math.max(...stops.slice(0, count + 1).map((stop) => stop.length));
  if (stops.length > count || longest > length)
    throw new InvalidRequestError({
      message: `${context.provider}: its stop sequences are applied by Switchyard for this model, at most ${count} of at most ${length} characters each; got ${stops.length > count ? `${stops.length} sequences` : `one of ${longest} characters`}`,
      provider: context.provider,
      requestId: context.requestId,
      providerCode: refusalCodes.tooManyStopSequences,
    });
  emulated.set(callOf(context), stops);
}

/**
 * `request.stopSequences` when there are any, at most `max` of them; with more, the first `max`
 * (the provider stops at those itself) and every one emulated. An empty one stops at nothing (as
 * `StreamBuilder.stopAt` takes it) and is left out, as for Claude: a provider is never sent `""`,
 * whose meaning its API leaves unsaid (Gemini's documents none), and it takes none of `max`.
 */
export function stopSequencesWithin(
  request: CanonicalRequest,
  max: number | undefined,
  context: ProviderContext,
): string[] | undefined {
  const given = request.stopSequences;
  if (given === undefined || given.length === 0) return undefined;
  const stops = given.includes('') ? given.filter((stop) => stop !== '') : given;
  if (stops.length === 0) return undefined;
  if (max === undefined || stops.length <= max) return stops;
  emulate(stops, context);
  return stops.slice(0, max);
}

/**
 * For Claude (the Messages API; on Bedrock and Vertex too), which refuses a stop sequence that is
 * empty or whitespace only (`each stop sequence must contain non-whitespace`) though other protocols
 * take them (a Chat client's `stop: "\n"`): the ones to send. An empty one stops at nothing and is
 * left out; a whitespace-only one is emulated (the reply cut at it here, finishing `stop-sequence`).
 */
export function stopSequencesWithText(
  request: CanonicalRequest,
  context: ProviderContext,
): string[] | undefined {
  const stops = request.stopSequences;
  if (stops === undefined || stops.length === 0) return undefined;
  const blank = stops.filter((stop) => stop !== '' && stop.trim() === '');
  if (blank.length > 0) emulate(blank, context);
  const sent = blank.length === 0 && !stops.includes('') ? stops : stops.filter((stop) => stop.trim() !== '');
  return sent.length > 0 ? sent : undefined;
}

/** For a provider (or model) that takes no stop sequences: every one of the request's emulated. */
export function emulateStopSequences(request: CanonicalRequest, context: ProviderContext): void {
  const stops = request.stopSequences;
  if (stops !== undefined && stops.length > 0) emulate(stops, context);
}

/** The reply readers' hook (`complete-call.ts`, `stream-call.ts`): the call's emulated sequences cut its text. */
export function holdStopSequences(context: ProviderContext, builder: StreamBuilder): void {
  const stops = emulated.get(callOf(context));
  if (stops !== undefined) builder.stopAt(stops);
}
