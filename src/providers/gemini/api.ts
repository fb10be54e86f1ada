/** Gemini `generateContent` wire types (v1beta), with lenient readers for what comes back. */
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';

/** One part of a Gemini content. Gemini discriminates parts by which field is present. */
export interface GeminiPart {
  text?: string;
  /** True on a thought-summary part. */
  thought?: boolean;
  /** Opaque signature; rides on thought, text, function-call and other parts. */
  thoughtSignature?: string;
  /** `displayName`: in a Gemini 3 function response's parts, the name its response refers to (`{"$ref": name}`). */
  inlineData?: { mimeType: string; data: string; displayName?: string };
  fileData?: { mimeType?: string; fileUri: string };
  /** Gemini 3: this media part's resolution (`MEDIA_RESOLUTION_LOW`, `…_HIGH`). */
  mediaResolution?: { level: string };
  functionCall?: GeminiFunctionCall;
  functionResponse?: {
    name: string;
    response: JsonObject;
    id?: string;
    /** Gemini 3: the result's inline media (multimodal function response). */
    parts?: Array<Pick<GeminiPart, 'inlineData'>>;
  };
  executableCode?: JsonObject;
  codeExecutionResult?: JsonObject;
}

/** A function call; streamed calls (Vertex `streamFunctionCallArguments`) carry `partialArgs`. */
export interface GeminiFunctionCall {
  name?: string;
  args?: JsonObject;
  id?: string;
  partialArgs?: GeminiPartialArgument[];
  /** True while more parts of this call follow. */
  willContinue?: boolean;
}

/** One streamed argument value at a JSON path (`$.recipe.steps[0]`). */
export interface GeminiPartialArgument {
  jsonPath: string;
  stringValue?: string;
  numberValue?: number;
  boolValue?: boolean;
  nullValue?: JsonValue;
  /** True while the string value continues in the next partial argument. */
  willContinue?: boolean;
}

/** A turn: `user` or `model` and its parts. */
export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

/** One function declaration of the `functionDeclarations` tool. */
export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  /** The OpenAPI 3.0 subset Gemini accepts everywhere (see `schema.ts`). */
  parameters?: JsonObject;
  /** Full JSON Schema (newer API versions), used when `useJsonSchema` is set. */
  parametersJsonSchema?: JsonObject;
}

/** The `generateContent` request body. */
export interface GeminiRequestBody {
  contents: GeminiContent[];
  systemInstruction?: { parts: Array<{ text: string }> };
  tools?: JsonObject[];
  toolConfig?: {
    functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE' | 'VALIDATED'; allowedFunctionNames?: string[] };
  };
  safetySettings?: JsonValue;
  generationConfig?: JsonObject;
  cachedContent?: string;
}

/** Token counts as Gemini reports them. `promptTokenCount` includes cached tokens; candidates exclude thoughts. */
export interface GeminiUsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  totalTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  /** Per-modality parts (`{modality: "AUDIO", tokenCount}`) of the prompt, cached content and candidates. */
  promptTokensDetails?: JsonValue;
  cacheTokensDetails?: JsonValue;
  candidatesTokensDetails?: JsonValue;
  /** Vertex: how the call was served and billed (`ON_DEMAND`, `ON_DEMAND_FLEX`, `ON_DEMAND_PRIORITY`, `PROVISIONED_THROUGHPUT`…). */
  trafficType?: JsonValue;
}

/** One candidate answer. */
export interface GeminiCandidate {
  content?: { role?: string; parts?: GeminiPart[] };
  finishReason?: string;
  finishMessage?: string;
  index?: number;
  safetyRatings?: JsonValue;
  citationMetadata?: JsonValue;
  groundingMetadata?: JsonValue;
  urlContextMetadata?: JsonValue;
  avgLogprobs?: JsonValue;
}

/** A whole response, or one streamed chunk (same shape). */
export interface GeminiResponse {
  candidates?: GeminiCandidate[];
  promptFeedback?: { blockReason?: string; blockReasonMessage?: string; safetyRatings?: JsonValue };
  usageMetadata?: GeminiUsageMetadata;
  modelVersion?: string;
  responseId?: string;
}

/** Google's error envelope: `{ error: { code, status, message, details } }`. */
export interface GoogleErrorBody {
  code?: number;
  status?: string;
  message?: string;
  details?: JsonValue[];
}

/** A `cachedContents` resource as the API returns it. */
export interface GeminiCachedContent {
  name: string;
  expireTime?: string;
  usageMetadata?: { totalTokenCount?: number };
}

/** The Google error inside a body (`{error}` or `[{error}]`), if it is one. */
export function readGoogleError(body: unknown): GoogleErrorBody | undefined {
  const envelope = Array.isArray(body) ? body[0] : body;
  if (!isJsonObject(envelope)) return undefined;
  if (typeof envelope.error === 'string') return { message: envelope.error };
  if (!isJsonObject(envelope.error)) return undefined;
  const error = envelope.error;
  const result: GoogleErrorBody = {};
  if (typeof error.code === 'number') result.code = error.code;
  if (typeof error.status === 'string') result.status = error.status;
  if (typeof error.message === 'string') result.message = error.message;
  if (Array.isArray(error.details)) result.details = error.details as JsonValue[];
  return result;
}
