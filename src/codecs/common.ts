/** Helpers every codec shares: canonical parts from wire media, tool-result text, part grouping. */
import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.ts';
import type { ToolChoice, ToolSpec } from '../core/tools.ts';
import type { Item, Part, ToolOutput } from '../core/transcript.ts';
import { imageDetailKey, type MetadataMap } from '../core/metadata.ts';
import { checkTranscript } from '../core/transcript-invariants.ts';
import type { Usage } from '../core/usage.ts';
import type { FinishReason } from '../core/finish-reason.ts';
import type { CanonicalResponse } from '../core/request.ts';
import type { EncodeContext } from './types.ts';
import { RequestFieldError, shown } from './fields.ts';
import { pushAll } from '../core/arrays.ts';

/**
 * Where the client sent a tool call or result a codec decoded (for {@link checkToolPairs}): a
 * private symbol on the part, not a WeakMap (a WeakMap entry per tool part made decoding a long
 * tool conversation 4–7× slower); symbol keys never reach JSON or a provider.
 */
const sentField = Symbol('switchyard.sentField');

/** Notes `field` (the call's id, the result's call id) as where the client sent `part`; returns `part`. */
export function sentAt<Sent extends Part>(part: Sent, field: string): Sent {
  (part as Sent & { [sentField]?: string })[sentField] = field;
  return part;
}

/**
 * A user turn's parts, an empty turn (no parts, or empty text only) kept as one empty text part
 * noted as sent at `field`: never left out, which would change the request (a trailing one would
 * make the assistant message before it a prefill). A turn of whitespace-only text keeps its text,
 * each part noted as sent at `field` too. A provider that refuses empty (or blank) messages fails
 * the call naming it (`providers/common/empty-turns.ts`), in the client's terms; the others send it.
 */
export function userTurnParts(parts: Part[], field: string): Part[] {
  if (parts.some((part) => part.type !== 'text' || part.text.trim() !== '')) return parts;
  if (parts.every((part) => part.type === 'text' && part.text === ''))
    return [sentAt({ type: 'text', text: '' }, field)];
  return parts.map((part) => sentAt(part, field));
}

/** {@link sentAt} for a media or file part (a refusal of its type names the client's field); other parts unchanged. */
export function sentMedia(part: Part, field: string): Part {
  return part.type === 'media' || part.type === 'file' ? sentAt(part, field) : part;
}

/** Where the client sent `part` (a tool call or result, a media or file part, an empty user turn's text), when a codec noted it. */
export function sentFieldOf(part: Part | undefined): string | undefined {
  return (part as { [sentField]?: string } | undefined)?.[sentField];
}

/**
 * The front door's tool pairing rules (ids unique and non-empty, every result answering an earlier
 * call, every call answered), run on a whole request's transcript so that a refusal names the
 * client's own field (`messages.3.tool_call_id`) rather than a canonical path. Parts the client did
 * not send (a stored `previous_response_id` transcript) are named by `root`.
 */
export function checkToolPairs(transcript: Item[], root: string): void {
  const [violation] = checkTranscript(transcript);
  if (violation === undefined) return;
  const part = transcript[violation.itemIndex]?.parts[violation.partIndex];
  const field = (part as { [sentField]?: string } | undefined)?.[sentField] ?? root;
  throw new RequestFieldError(field, `${field}: ${violation.message}`);
}

/** A media or file part from a MIME type and base64 data or a URL. */
export function binaryPart(
  mimeType: string,
  source: { base64: string } | { uri: string },
  filename?: string,
): Part {
  const data =
    'base64' in source
      ? { type: 'base64' as const, data: source.base64 }
      : { type: 'uri' as const, uri: source.uri };
  const modality = mimeType.split('/')[0];
  if (modality === 'image' || modality === 'audio' || modality === 'video')
    return { type: 'media', modality, mimeType, data };
  return filename === undefined
    ? { type: 'file', mimeType, data }
    : { type: 'file', mimeType, data, filename };
}

/** Parses a `data:<mime>;base64,<data>` URL; other URLs are kept as URIs. */
export function partFromUrl(url: string, path: string, fallbackMime = 'image/*'): Part {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (match !== null) return binaryPart(match[1]!, { base64: match[2]! });
  if (!/^https?:\/\//.test(url)) throw new RequestFieldError(path, `${path} must be an http(s) or data URL`);
  return binaryPart(fallbackMime === 'image/*' ? guessImageMime(url) : fallbackMime, { uri: url });
}

/** An image URL's media type from its extension (png, gif, webp); anything else is `image/jpeg`. */
export function guessImageMime(url: string): string {
  const extension = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase();
  if (extension === 'png') return 'image/png';
  if (extension === 'gif') return 'image/gif';
  if (extension === 'webp') return 'image/webp';
  return 'image/jpeg';
}

/** The image `detail` values of the OpenAI APIs (Chat's `image_url.detail`, Responses' `input_image.detail`). */
const imageDetails = new Set(['auto', 'low', 'high', 'original']);

/**
 * `part` with the client's image `detail` (at `path`) kept in its metadata ({@link imageDetailKey});
 * `auto` (the default) and no value leave it as it is. Another value is refused, as OpenAI refuses it.
 */
export function withImageDetail(part: Part, detail: unknown, path: string): Part {
  if (detail === undefined || detail === null || detail === 'auto') return part;
  if (typeof detail !== 'string' || !imageDetails.has(detail))
    throw new RequestFieldError(path, `${path} must be auto, low, high or original`);
  if (part.type !== 'media' || part.modality !== 'image') return part;
  part.metadata = { ...part.metadata, [imageDetailKey]: detail };
  return part;
}

/**
 * A tool output from text and parts: plain text when it is one text (or none); several texts stay
 * apart (Codex's code mode sends each `text()` of a script as its own item: joined with nothing,
 * the upstream read them run together).
 */
export function toolOutput(parts: Part[]): ToolOutput {
  if (parts.length === 0) return { type: 'text', text: '' };
  const [first] = parts;
  if (parts.length === 1 && first!.type === 'text') return { type: 'text', text: first!.text };
  return { type: 'parts', parts };
}

/** Appends parts to the transcript, merging into the last item when it has the same kind. */
export function pushParts(transcript: Item[], kind: Item['kind'], parts: Part[]): void {
  if (parts.length === 0) return;
  const last = transcript.at(-1);
  if (last !== undefined && last.kind === kind && kind !== 'system') pushAll(last.parts, parts);
  else transcript.push({ kind, parts });
}

/** A named tool choice. */
export function namedTool(name: unknown, path: string): ToolChoice {
  if (typeof name !== 'string' || name === '') throw new RequestFieldError(path, `${path} must name a tool`);
  return { type: 'tool', name };
}

/**
 * A decoded tool choice, checked against the request's tools: asking for a call (`required`, or a
 * named tool) with no tools, or naming a tool that is not among them, is refused by `field` — an
 * upstream would refuse it too, or the choice would be dropped and the answer change.
 */
export function checkedToolChoice(
  choice: ToolChoice,
  tools: readonly ToolSpec[] | undefined,
  field: string,
): ToolChoice {
  if (choice === 'auto' || choice === 'none') return choice;
  if (tools === undefined || tools.length === 0)
    throw new RequestFieldError(
      field,
      `${field} asks for a tool call but the request has no function tools the gateway can offer`,
    );
  if (choice !== 'required' && !tools.some((tool) => tool.name === choice.name))
    throw new RequestFieldError(
      field,
      `${field} names the tool '${shown(choice.name)}', which is not in the request's tools`,
    );
  return choice;
}

/** Total prompt tokens for protocols that count cached tokens inside the prompt. */
export function inclusiveInput(usage: Usage): number {
  return usage.input + usage.cacheRead + usage.cacheWrite;
}

/**
 * Splits `text` into pieces of `size` code points (never inside a surrogate pair); empty text gives
 * no piece. The emulator chunks its scripted deltas with it.
 */
export function chunkText(text: string, size = 8): string[] {
  const characters = Array.from(text);
  const step = Math.max(1, Math.floor(size));
  const pieces: string[] = [];
  for (let index = 0; index < characters.length; index += step) {
    pieces.push(characters.slice(index, index + step).join(''));
  }
  return pieces;
}

/** Tracks the JSON text streamed for each tool call so the end can fill in what never arrived. */
export class ArgumentTracker {
  private readonly sent = new Map<string, string>();

  add(id: string, delta: string): void {
    this.sent.set(id, (this.sent.get(id) ?? '') + delta);
  }

  /** What is still to send at the end of the call: the whole input when nothing usable was streamed. */
  remainder(id: string, input: JsonObject): string {
    const sent = this.sent.get(id) ?? '';
    this.sent.delete(id);
    if (sent === '') return JSON.stringify(input);
    return '';
  }
}

/**
 * A protocol's finish-reason field for a response: the context's override; else the upstream's own
 * reason when it is one of this protocol's values (`wire`: an Anthropic upstream's `pause_turn` to an
 * Anthropic client); else the canonical reason's (`table`).
 */
export function wireFinishReason(
  response: Pick<CanonicalResponse, 'finishReason' | 'rawFinishReason'>,
  context: EncodeContext,
  table: Readonly<Record<FinishReason, string>>,
  wire: ReadonlySet<string>,
): string {
  const raw = response.rawFinishReason;
  return context.finishReason ?? (raw !== undefined && wire.has(raw) ? raw : table[response.finishReason]);
}

/** A reply part the protocol cannot carry: reported to `context.leftOut`, and nothing to encode. */
export function leaveOut(part: Part, context: EncodeContext): undefined {
  context.leftOut?.(part.type === 'custom' ? `custom:${part.kind}` : part.type);
  return undefined;
}

/**
 * Whether a text part is the model's refusal as an OpenAI upstream marked it (Chat's `refusal`
 * field, a Responses `refusal` part: metadata `<adapter>.refusal: true`).
 */
export function isRefusalText(metadata: MetadataMap | undefined): boolean {
  if (metadata === undefined) return false;
  for (const key in metadata) if (key.endsWith('.refusal') && metadata[key] === true) return true;
  return false;
}

/**
 * The finish reason an OpenAI client is told: `completed` for the model's refusal as OpenAI gives
 * it — a refusal part ({@link isRefusalText}) in a reply the upstream ended normally (Chat's
 * `stop`, Responses' `completed`), which the adapters report as a content filter — since OpenAI
 * answers its own refusal as a completed reply whose `refusal` field or part says it; else the
 * canonical reason. A genuine content filter (`content_filter`, another provider's refusal) stays one.
 */
export function openAiFinishReason(
  response: Pick<CanonicalResponse, 'finishReason' | 'rawFinishReason' | 'content'>,
): FinishReason {
  const { finishReason, rawFinishReason: raw } = response;
  const refused =
    finishReason === 'content-filter' &&
    (raw === 'stop' || raw === 'completed') &&
    response.content.some((part) => part.type === 'text' && isRefusalText(part.metadata));
  return refused ? 'completed' : finishReason;
}

/**
 * The annotations an OpenAI Responses upstream attached to a text part (`url_citation`,
 * `file_citation`, …: metadata `<adapter>.annotations`), as it wrote them; empty without any.
 */
export function textAnnotations(metadata: MetadataMap | undefined): JsonValue[] {
  if (metadata === undefined) return [];
  for (const key in metadata) {
    const value = metadata[key];
    // Objects only: an upstream's stray values are no annotations.
    if (key.endsWith('.annotations') && Array.isArray(value)) return value.filter(isJsonObject);
  }
  return [];
}

/**
 * The wait headers of an error reply: `retry-after` in whole seconds (rounded up: the standard
 * header takes no fraction) and `retry-after-ms`, the precise wait, which the OpenAI and Anthropic
 * SDKs read first; without it an upstream's 200 ms became a client's full second.
 */
export function retryAfterHeaders(seconds: number | undefined): Record<string, string> {
  if (seconds === undefined) return {};
  return { 'retry-after': String(Math.ceil(seconds)), 'retry-after-ms': String(Math.ceil(seconds * 1000)) };
}
