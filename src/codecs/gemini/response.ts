/** Encodes canonical responses as Gemini `GenerateContentResponse`s: whole, or as stream chunks. */
import type { StreamEvent } from '../../core/events.ts';
import type { FinishReason } from '../../core/finish-reason.ts';
import type { CanonicalResponse } from '../../core/request.ts';
import { geminiCandidateFields, geminiPromptFeedbackKey, type MetadataMap } from '../../core/metadata.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import type { CustomPart, Part } from '../../core/transcript.ts';
import { argumentsObject } from '../../core/tool-arguments.ts';
import type { Usage } from '../../core/usage.ts';
import { createFrame } from '../frames.ts';
import { createGeminiResponseId } from '../ids.ts';
import { opaqueValue } from '../opaque.ts';
import type {
  EncodeContext,
  EncoderState,
  OpaquePayload,
  StreamEncoder,
  WireError,
  WireFrame,
} from '../types.ts';
import { leaveOut, wireFinishReason } from '../common.ts';
import { errorBody } from './errors.ts';
import { citationMetadata } from './citations.ts';

type WirePart = Record<string, unknown>;

const finishReasons: Record<FinishReason, string> = {
  completed: 'STOP',
  'tool-call': 'STOP',
  'max-tokens': 'MAX_TOKENS',
  'stop-sequence': 'STOP',
  'content-filter': 'SAFETY',
  cancelled: 'STOP',
  error: 'OTHER',
  other: 'OTHER',
};

/** Gemini's own finish reasons: one the upstream gave goes to the client as it was. */
const wireFinishReasons = new Set([
  'STOP',
  'MAX_TOKENS',
  'SAFETY',
  'RECITATION',
  'LANGUAGE',
  'OTHER',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'MALFORMED_FUNCTION_CALL',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
  'IMAGE_OTHER',
  'NO_IMAGE',
  'UNEXPECTED_TOOL_CALL',
  'TOO_MANY_TOOL_CALLS',
]);

/**
 * The wire `finishReason` of a response: the upstream's own when it is one of Gemini's (a Gemini
 * upstream's `RECITATION` stays `RECITATION`, not the canonical `SAFETY`), else the canonical
 * reason's.
 */
export function mapFinishReason(
  response: Pick<CanonicalResponse, 'finishReason' | 'rawFinishReason'>,
  context: EncodeContext,
): string {
  return wireFinishReason(response, context, finishReasons, wireFinishReasons);
}

/**
 * Gemini usage: the prompt count includes cached tokens, not the tool-use prompt (`toolUsePrompt`,
 * `toolUsePromptTokenCount` of its own); candidates exclude thoughts. No
 * `promptTokensDetails`: the canonical usage has no split by modality, and a prompt of images
 * written as all `TEXT` would be an invented one (the field is optional).
 */
export function convertUsage(usage: Usage): Record<string, unknown> {
  const promptTokens = usage.input + usage.cacheRead + usage.cacheWrite;
  const candidates = Math.max(0, usage.output - usage.reasoning);
  // The tool-use prompt (a Gemini upstream's, part of the input) is a count of its own, as Gemini
  // gives it: not in `promptTokenCount`, in the total.
  const toolUse = Math.min(usage.toolUsePrompt ?? 0, promptTokens);
  const metadata: Record<string, unknown> = {
    promptTokenCount: promptTokens - toolUse,
    candidatesTokenCount: candidates,
    totalTokenCount: promptTokens + usage.output,
  };
  if (toolUse > 0) metadata.toolUsePromptTokenCount = toolUse;
  if (usage.cacheRead > 0) metadata.cachedContentTokenCount = usage.cacheRead;
  if (usage.reasoning > 0) metadata.thoughtsTokenCount = usage.reasoning;
  return metadata;
}

function sign(part: WirePart, payload: OpaquePayload, context: EncodeContext): WirePart {
  // Only a thought carries its provider alone (see `opaqueValue`); an unsigned call or text, nothing.
  if (part.thought !== true && payload.signature === undefined && payload.data === undefined) return part;
  const signature = opaqueValue(payload, context.opaque);
  return signature === undefined ? part : { ...part, thoughtSignature: signature };
}

function callPart(
  call: { id: string; name: string; input: JsonObject; metadata?: MetadataMap },
  context: EncodeContext,
): WirePart {
  const functionCall: WirePart = { name: call.name, args: argumentsObject(call) };
  if (context.callIds === true) functionCall.id = call.id;
  return { functionCall };
}

/**
 * Where a text part's `thoughtSignature` is kept in the canonical part: the Gemini adapter's key
 * (`providers/gemini/messages.ts` `signatureMetadataKey`), which this layer may not import.
 */
export const textSignatureKey = 'gemini.thoughtSignature';

/** A text part's own signature (Gemini signs some text parts), wrapped for the client to send back. */
function textSignature(metadata: MetadataMap | undefined, provider: string | undefined): OpaquePayload {
  const signature = metadata?.[textSignatureKey];
  return typeof signature === 'string' && signature !== '' ? { provider, signature } : {};
}

function convertPart(part: Part, context: EncodeContext, provider?: string): WirePart | undefined {
  switch (part.type) {
    case 'text':
      return sign({ text: part.text }, textSignature(part.metadata, provider), context);
    case 'structured':
      return { text: JSON.stringify(part.value) };
    case 'reasoning':
      return context.hideThoughts === true
        ? undefined
        : sign({ text: part.text, thought: true }, part, context);
    case 'tool-call':
      return sign(callPart(part, context), part, context);
    case 'custom':
      return mediaPart(part, context, provider) ?? leaveOut(part, context);
    default:
      return leaveOut(part, context);
  }
}

/**
 * A Gemini upstream's media output (an image model's `inlineData`, a `fileData`), kept whole in a
 * custom part by the adapter: the same part for a Gemini client, its `thoughtSignature` wrapped as
 * every signature is (Gemini 3 image models want it back to keep an edit's context). Undefined for
 * any other custom part.
 */
function mediaPart(
  part: CustomPart,
  context: EncodeContext,
  provider: string | undefined,
): WirePart | undefined {
  const { kind, data } = part;
  if ((kind !== 'inlineData' && kind !== 'fileData') || !isJsonObject(data) || !isJsonObject(data[kind]))
    return undefined;
  const signature = typeof data.thoughtSignature === 'string' ? data.thoughtSignature : undefined;
  return sign(
    { [kind]: data[kind] } as WirePart,
    { provider: part.provider ?? provider, signature },
    context,
  );
}

/**
 * `candidate` with a Gemini upstream's own candidate fields (`geminiCandidateFields`, kept as
 * `gemini.<field>` response metadata): a Gemini client of a Gemini upstream gets its grounding,
 * citations, safety ratings and `avgLogprobs` as sent. Another upstream's URL citations become
 * `citationMetadata` (`citations.ts`).
 */
function withCandidateFields(
  candidate: WirePart,
  response: Pick<CanonicalResponse, 'content' | 'metadata'>,
): WirePart {
  const { metadata } = response;
  if (metadata !== undefined)
    for (const field of geminiCandidateFields) {
      const value = metadata[`gemini.${field}`];
      if (value === undefined) continue;
      candidate[field] = field === 'citationMetadata' ? developerCitations(value) : value;
    }
  const cited = citationMetadata(response);
  if (cited !== undefined) candidate.citationMetadata = cited;
  return candidate;
}

/**
 * Citation metadata in the Gemini API's words: Vertex lists a candidate's sources as `citations`,
 * the Gemini API (what this codec serves) as `citationSources`, the only field its SDKs read.
 */
function developerCitations(value: JsonValue): JsonValue {
  if (!isJsonObject(value) || !Array.isArray(value.citations) || value.citationSources !== undefined)
    return value;
  const { citations, ...rest } = value;
  return { ...rest, citationSources: citations };
}

/**
 * The upstream's `promptFeedback` when a Gemini upstream blocked the prompt (nothing answered, the
 * finish `content-filter`): the reply is then that feedback and no candidate, as the API sends it,
 * so the client's documented check (`promptFeedback.blockReason`) sees the block.
 */
function blockedPrompt(response: CanonicalResponse): JsonValue | undefined {
  const feedback = response.metadata?.[geminiPromptFeedbackKey];
  return response.finishReason === 'content-filter' && response.content.length === 0 && isJsonObject(feedback)
    ? feedback
    : undefined;
}

/** The non-streamed `GenerateContentResponse`. */
export function encodeResponse(response: CanonicalResponse, context: EncodeContext): unknown {
  const { provider } = response;
  const usageMetadata = convertUsage(response.usage);
  const modelVersion = context.model;
  const responseId = context.responseId ?? createGeminiResponseId();
  const promptFeedback = blockedPrompt(response);
  if (promptFeedback !== undefined) return { promptFeedback, usageMetadata, modelVersion, responseId };
  const parts = response.content.flatMap((part) => convertPart(part, context, provider) ?? []);
  const candidate: WirePart = {
    content: { parts, role: 'model' },
    finishReason: mapFinishReason(response, context),
    index: 0,
  };
  return {
    candidates: [withCandidateFields(candidate, response)],
    usageMetadata,
    modelVersion,
    responseId,
  };
}

/** The in-band error object of a stream that already sent content. */
export function errorFrame(error: WireError): WireFrame {
  return createFrame(errorBody(error));
}

/**
 * The streamed sequence: one chunk per text piece, per thought piece (`thought: true`, the signature
 * on the last piece) and per whole `functionCall` part, then a final chunk with an empty text part,
 * `finishReason`, `usageMetadata` and a Gemini upstream's candidate fields. A prompt the upstream
 * blocked is one chunk of its `promptFeedback`, no candidate. No `[DONE]`.
 */
export function createStreamEncoder(context: EncodeContext): StreamEncoder {
  const responseId = context.responseId ?? createGeminiResponseId();
  let usage: Usage | undefined;
  let provider: string | undefined;
  let pendingThought: string | undefined;
  const names = new Map<string, string>();
  const chunk = (parts: WirePart[], finishReason?: string, response?: CanonicalResponse): WireFrame => {
    encoder.started = true;
    const candidate: WirePart = { content: { parts, role: 'model' } };
    if (finishReason !== undefined) candidate.finishReason = finishReason;
    candidate.index = 0;
    const body: WirePart = {
      candidates: [response === undefined ? candidate : withCandidateFields(candidate, response)],
    };
    if (usage !== undefined) body.usageMetadata = convertUsage(usage);
    body.modelVersion = context.model;
    body.responseId = responseId;
    return createFrame(body);
  };

  function flushThought(signature?: OpaquePayload): WireFrame[] {
    if (pendingThought === undefined && signature === undefined) return [];
    const part = sign({ text: pendingThought ?? '', thought: true }, { provider, ...signature }, context);
    pendingThought = undefined;
    return [chunk([part])];
  }

  function event(event: StreamEvent): WireFrame[] {
    switch (event.type) {
      case 'message-start':
        provider = event.provenance ?? event.provider;
        return [];
      case 'text-delta':
        return event.delta === '' ? [] : [chunk([{ text: event.delta }])];
      case 'text-end': {
        // Gemini's signature of the text (in the end's metadata): a part of its own, no text.
        const payload = textSignature(event.metadata, provider);
        return payload.signature === undefined ? [] : [chunk([sign({ text: '' }, payload, context)])];
      }
      case 'reasoning-delta': {
        if (event.delta === '' || context.hideThoughts === true) return [];
        const frames = flushThought();
        pendingThought = event.delta;
        return frames;
      }
      case 'reasoning-end': {
        if (context.hideThoughts === true) return [];
        const hasSignature = event.signature !== undefined || event.data !== undefined;
        return flushThought(
          hasSignature
            ? { signature: event.signature, data: event.data, metadata: event.metadata }
            : undefined,
        );
      }
      case 'tool-call-start':
        names.set(event.id, event.name);
        return [];
      case 'tool-call-end': {
        const call = {
          id: event.id,
          name: names.get(event.id) ?? '',
          input: event.input,
          ...(event.metadata === undefined ? {} : { metadata: event.metadata }),
        };
        return [chunk([sign(callPart(call, context), { provider, signature: event.signature }, context)])];
      }
      case 'usage':
        usage = event.usage;
        return [];
      case 'finish': {
        const { response } = event;
        if (response.finishReason === 'error' || response.finishReason === 'cancelled') return [];
        usage = response.usage;
        const promptFeedback = blockedPrompt(response);
        if (promptFeedback !== undefined) {
          encoder.started = true;
          const body = {
            promptFeedback,
            usageMetadata: convertUsage(usage),
            modelVersion: context.model,
            responseId,
          };
          return [createFrame(body)];
        }
        // The upstream's candidate fields and another's citations (known once the reply is read)
        // go on the last chunk, where Gemini sends its grounding.
        return [chunk([{ text: '' }], mapFinishReason(response, context), response)];
      }
      case 'custom': {
        const media = mediaPart(event.part, context, provider);
        if (media === undefined) leaveOut(event.part, context);
        return media === undefined ? [] : [chunk([media])];
      }
      default:
        return [];
    }
  }

  const encoder: EncoderState = {
    event,
    error: (error) => [errorFrame(error)],
    started: false,
  };
  return encoder;
}
