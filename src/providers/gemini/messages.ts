/** Canonical transcript → Gemini `contents` (+ the joined system instruction). */
import { documentHeader } from '../common/text-documents.ts';
import { InvalidRequestError } from '../../core/errors/invalid-request-error.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import {
  geminiDisplayNameKey,
  geminiNoMimeTypeKey,
  geminiResponseObjectKey,
  imageDetailKey,
  type MetadataMap,
} from '../../core/metadata.ts';
import type { DataRef, Item, Part, ToolCallPart, ToolResultPart } from '../../core/transcript.ts';
import type { ProviderContext } from '../common/definition.ts';
import { joinToolResultTexts } from '../common/tool-result-text.ts';
import {
  isInstructionItem,
  isOwnTag,
  joinInstructions,
  projectTranscript,
  providerToolId,
  sameProviderRules,
  warnDroppedPart,
  warnMovedInstructions,
} from '../common/projection.ts';
import type { GeminiContent, GeminiPart } from './api.ts';
import { pushAll } from '../../core/arrays.ts';
import { isEmpty, refuseEmptyUserTurns, refuseLostLastTurn } from '../common/empty-turns.ts';

/** Metadata key of a text (or media) part's `thoughtSignature`, kept so it can be sent back. */
export const signatureMetadataKey = 'gemini.thoughtSignature';

/**
 * Metadata key of where, in a text part, the signed wire part ended, when more text followed it
 * (Gemini 2.5 signs the first part of an answer). Absent: the signature goes with the whole text.
 */
export const signatureOffsetMetadataKey = 'gemini.thoughtSignatureOffset';

/**
 * Prefix of the provider ids this adapter mints for function calls Gemini sent without an `id`
 * (older models). Ids always go on the wire, on the call and on its response alike: Gemini 3 issues
 * an id with every call and expects it echoed on the `functionResponse`, and a matching pair lets
 * parallel calls to the same function be told apart.
 */
export const generatedIdPrefix = 'gemini-call-';

/**
 * The documented value for function calls that never had a signature (calls produced by another
 * provider, or by an older Gemini): https://ai.google.dev/gemini-api/docs/thought-signatures (FAQ).
 * It is a sentinel the API recognises, not a forged signature.
 */
export const unsignedCallSignature = 'skip_thought_signature_validator';

/** The converted transcript. */
export interface ConvertedMessages {
  /** The system, developer and context items joined with blank lines, or undefined. */
  systemInstruction: string | undefined;
  contents: GeminiContent[];
}

/**
 * Converts the transcript: instructions are joined into the system instruction (one after the
 * conversation began with the WARN `warnMovedInstructions`); user, assistant
 * (`model`) and tool turns become contents, consecutive same-role turns merged. Reasoning and custom
 * parts from other providers are dropped with a WARN (`projectTranscript`). A user turn of empty text
 * only that would be a content of its own is refused (`refuseEmptyUserTurns`), other empty text in
 * a user turn left out.
 */
export function convertMessages(items: readonly Item[], context: ProviderContext): ConvertedMessages {
  const projected = projectTranscript(items, sameProviderRules(context), context);
  refuseEmptyUserTurns(items, projected, context, isEmpty, 'gemini');
  warnMovedInstructions(items, context);
  const callNames = collectCallNames(projected);
  const contents: GeminiContent[] = [];
  let calls: readonly Part[] = [];
  projected.forEach((item) => {
    if (isInstructionItem(item)) {
      warnNonTextInstructions(item, context);
      return;
    }
    if (item.kind === 'assistant') calls = item.parts;
    const role = item.kind === 'assistant' ? 'model' : 'user';
    const parts: GeminiPart[] = [];
    (item.kind === 'tool' ? inCallOrder(item.parts, calls) : item.parts).forEach((part) => {
      // Empty text beside a user turn's other content says nothing, and Gemini refuses it.
      if (item.kind === 'user' && part.type === 'text' && part.text === '') return;
      const converted = convertPart(part, { context, callNames });
      if (converted !== undefined) pushAll(parts, converted);
    });
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last?.role === role) pushAll(last.parts, parts);
    else contents.push({ role, parts });
  });
  const sentLast = contents.at(-1)?.role;
  refuseLostLastTurn(
    items,
    projected,
    sentLast === 'model' ? 'assistant' : sentLast && 'user',
    context,
    'gemini',
  );
  if (signaturesEnforced(context.model)) signUnsignedCalls(contents);
  const systemInstruction = joinInstructions(projected);
  return { systemInstruction: systemInstruction === '' ? undefined : systemInstruction, contents };
}

/**
 * A tool turn's results in the order of the calls they answer (a client such as Claude Code sends
 * them in the order its tools finished): Gemini pairs a response with its call by position as well
 * as by id, and two parallel calls to one function (two `Read`s) could otherwise swap. Parts that
 * answer no call of the turn before keep their place after the rest.
 */
function inCallOrder(parts: readonly Part[], calls: readonly Part[]): readonly Part[] {
  if (parts.length < 2) return parts;
  const order = new Map<string, number>();
  calls.forEach((part, index) => {
    if (part.type === 'tool-call') order.set(part.id, index);
  });
  const rank = (part: Part) =>
    part.type === 'tool-result'
      ? (order.get(part.callId) ?? Number.MAX_SAFE_INTEGER)
      : Number.MAX_SAFE_INTEGER;
  return [...parts].sort((a, b) => rank(a) - rank(b));
}

interface PartSite {
  context: ProviderContext;
  callNames: Map<string, string>;
}

function convertPart(part: Part, site: PartSite): GeminiPart[] | undefined {
  switch (part.type) {
    case 'text':
      return convertText(part.text, part.metadata);
    case 'media':
    case 'file': {
      const data = convertData(part.mimeType, part.data, part.metadata);
      if (data === undefined) return dropped(part, site, 'a handle data reference must be resolved first');
      const level = mediaResolution(part.metadata, site.context.model);
      if (level !== undefined) data.mediaResolution = { level };
      const wire = withSignature(data, part.metadata?.[signatureMetadataKey]);
      // A document's title and context have no field in `inlineData`: a text part before it names it.
      const header = part.type === 'file' ? documentHeader(part) : undefined;
      return header === undefined ? [wire] : [{ text: header }, wire];
    }
    case 'structured':
      return [{ text: JSON.stringify(part.value) }];
    case 'reasoning':
      // Only Gemini reasoning gets here (projection); its thought text and signature go back as is.
      return [withSignature({ text: part.text, thought: true }, part.signature)];
    case 'tool-call':
      return [convertToolCall(part, site.context)];
    case 'tool-result':
      return convertToolResult(part, site);
    case 'custom':
      // A Gemini part kept whole (executableCode, codeExecutionResult, inlineData output, …).
      return isJsonObject(part.data)
        ? [part.data as GeminiPart]
        : dropped(part, site, 'its data is not a part');
  }
}

function convertToolCall(part: ToolCallPart, context: ProviderContext): GeminiPart {
  const id = providerToolId(context, part.id);
  const functionCall: GeminiPart['functionCall'] = { name: part.name, args: part.input, id };
  // A signature is only valid where it was made: calls from other providers (or, on Vertex, from
  // Claude) go unsigned.
  const signature = isOwnTag(part.provider, context) ? part.signature : undefined;
  return withSignature({ functionCall }, signature);
}

function convertToolResult(part: ToolResultPart, site: PartSite): GeminiPart[] {
  const name = part.name ?? site.callNames.get(part.callId);
  if (name === undefined) {
    throw new InvalidRequestError({
      message: `gemini: the tool result for call ${part.callId} names no tool and no call with that id is in the transcript; Gemini matches results by name`,
      provider: 'gemini',
      requestId: site.context.requestId,
    });
  }
  const id = providerToolId(site.context, part.callId);
  const media: ResultMedia[] = [];
  const response = convertToolOutput(part, site, media);
  const functionResponse: NonNullable<GeminiPart['functionResponse']> = { name, response, id };
  // Gemini 3 takes a result's inline media inside its functionResponse (a multimodal function
  // response, tied to its call), each with the `displayName` the response may refer to it by;
  // earlier models, and media by URI, follow it as sibling parts.
  if (takesMediaInFunctionResponse(site.context.model)) {
    const inline = media.filter(({ data }) => data.inlineData !== undefined);
    if (inline.length > 0)
      functionResponse.parts = inline.map(({ data, displayName }) => ({
        inlineData: displayName === undefined ? data.inlineData : { ...data.inlineData!, displayName },
      }));
    const siblings = media.filter(({ data }) => data.inlineData === undefined);
    return [{ functionResponse }, ...siblings.map(({ data }) => data)];
  }
  return [{ functionResponse }, ...media.map(({ data }) => data)];
}

/** A tool result's media part as Gemini data, with the client's `displayName` for it, if any. */
interface ResultMedia {
  data: GeminiPart;
  displayName?: string;
}

/**
 * Gemini wants `response` to be an object: text becomes `{output: text}`, a JSON object is sent as
 * is, any other JSON value becomes `{output: value}`; an error result uses `error` instead of
 * `output`. Parts: one structured value goes under the key — a Gemini client's response object
 * beside its media (a multimodal function response, `geminiResponseObjectKey`) as is — texts and
 * values together as a list under the key. Media inside a result are
 * collected in `media` (see {@link convertToolResult}).
 */
function convertToolOutput(part: ToolResultPart, site: PartSite, media: ResultMedia[]): JsonObject {
  const key = part.isError ? 'error' : 'output';
  const output = part.output;
  if (output.type === 'text') return { [key]: output.text };
  if (output.type === 'json') {
    if (isJsonObject(output.value) && !part.isError) return output.value;
    return { [key]: output.value };
  }
  const texts: string[] = [];
  const values: JsonValue[] = [];
  let responseObject = false;
  for (const inner of output.parts) {
    if (inner.type === 'text') texts.push(inner.text);
    else if (inner.type === 'structured') {
      values.push(inner.value);
      responseObject = inner.metadata?.[geminiResponseObjectKey] === true;
    } else if (inner.type === 'media' || inner.type === 'file') {
      const data = convertData(inner.mimeType, inner.data, inner.metadata);
      const displayName = inner.metadata?.[geminiDisplayNameKey];
      if (data === undefined) dropped(inner, site, 'a handle data reference must be resolved first');
      else media.push(typeof displayName === 'string' ? { data, displayName } : { data });
    } else dropped(inner, site, `a ${inner.type} part cannot be part of a function response`);
  }
  if (values.length === 0) return { [key]: joinToolResultTexts(texts) };
  // A Gemini client's response object beside its media goes back as written; any other single
  // value under the key (an object with an `error` key of its own is no failed call).
  if (texts.length === 0 && values.length === 1) {
    const [value] = values as [JsonValue];
    return isJsonObject(value) && !part.isError && responseObject ? value : { [key]: value };
  }
  return { [key]: [...texts, ...values] };
}

/** A part's data as `inlineData` or `fileData`; a client's `fileData` without a type ({@link geminiNoMimeTypeKey}) stays without. */
function convertData(mimeType: string, data: DataRef, metadata?: MetadataMap): GeminiPart | undefined {
  if (data.type === 'uri' && metadata?.[geminiNoMimeTypeKey] === true)
    return { fileData: { fileUri: data.uri } };
  switch (data.type) {
    case 'base64':
      return { inlineData: { mimeType, data: data.data } };
    case 'bytes':
      return { inlineData: { mimeType, data: Buffer.from(data.bytes).toString('base64') } };
    case 'uri':
      return { fileData: { mimeType, fileUri: data.uri } };
    case 'handle':
      return undefined;
  }
}

/**
 * A text part goes back as Gemini sent it: split at `gemini.thoughtSignatureOffset`, the signature
 * on the part before the split; without an offset (or one outside the text) it signs the whole text.
 */
function convertText(text: string, metadata: MetadataMap | undefined): GeminiPart[] {
  const signature = metadata?.[signatureMetadataKey];
  const offset = metadata?.[signatureOffsetMetadataKey];
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0 || offset >= text.length) {
    return [withSignature({ text }, signature)];
  }
  return [withSignature({ text: text.slice(0, offset) }, signature), { text: text.slice(offset) }];
}

function withSignature(part: GeminiPart, signature: JsonValue | undefined): GeminiPart {
  if (typeof signature === 'string' && signature !== '') part.thoughtSignature = signature;
  return part;
}

function dropped(part: Part, site: PartSite, reason: string): undefined {
  return warnDroppedPart(site.context, part, reason);
}

function warnNonTextInstructions(item: Item, context: ProviderContext): void {
  item.parts.forEach((part) => {
    if (part.type === 'text') return;
    warnDroppedPart(context, part, 'Gemini system instructions hold text only');
  });
}

/** Canonical call id → tool name, so results without a name can still be matched. */
function collectCallNames(items: readonly Item[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const item of items) {
    for (const part of item.parts) if (part.type === 'tool-call') names.set(part.id, part.name);
  }
  return names;
}

/**
 * Whether the model takes a tool result's media inside its `functionResponse` (Gemini 3 and later,
 * named so: an alias such as `gemini-flash-latest` may be a 2.5, and sibling parts suit every model).
 */
function takesMediaInFunctionResponse(model: string): boolean {
  const generation = /gemini-(\d+)/.exec(model)?.[1];
  return generation !== undefined && Number(generation) >= 3 && !model.includes('image');
}

/**
 * The per-part `mediaResolution` level of an image the client sized (`imageDetailKey`: `low`,
 * `high`), for Gemini 3 and later, which take one per part; undefined otherwise (earlier models
 * have the request-wide setting only, `original` has no level).
 */
function mediaResolution(metadata: MetadataMap | undefined, model: string): string | undefined {
  const detail = metadata?.[imageDetailKey];
  if (detail !== 'low' && detail !== 'high') return undefined;
  const generation = /gemini-(\d+)/.exec(model)?.[1];
  if (generation === undefined || Number(generation) < 3) return undefined;
  return detail === 'low' ? 'MEDIA_RESOLUTION_LOW' : 'MEDIA_RESOLUTION_HIGH';
}

/** Gemini 3 models (except the image models) reject unsigned function calls of the current turn. */
export function signaturesEnforced(model: string): boolean {
  return !/gemini-(1|2)(\.|-)/.test(model) && !model.includes('image');
}

/**
 * The first function call of each model step must carry a signature; calls that never had one
 * (another provider's) get the documented sentinel. Later calls of a step stay unsigned, as
 * Gemini itself sends parallel calls.
 */
function signUnsignedCalls(contents: GeminiContent[]): void {
  for (const content of contents) {
    if (content.role !== 'model') continue;
    const first = content.parts.find((part) => part.functionCall !== undefined);
    if (first !== undefined && first.thoughtSignature === undefined) {
      first.thoughtSignature = unsignedCallSignature;
    }
  }
}
