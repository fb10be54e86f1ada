/** Reads fields of a recorded request without trusting its shape: body fields, the model, stream options. */
import type { RecordedRequest } from './types.ts';

const geminiGeneratePattern = /\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

/** Whether `path` is a Gemini `…/models/<model>:generateContent` or `:streamGenerateContent` endpoint. */
export function isGeminiGeneratePath(path: string): boolean {
  return geminiGeneratePattern.test(path);
}

function objectBody(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};
}

/** Whether an OpenAI chat request asked for the trailing usage chunk (`stream_options.include_usage`). */
export function wantsStreamUsage(request: Pick<RecordedRequest, 'body'>): boolean {
  return objectBody(objectBody(request.body).stream_options).include_usage === true;
}

/** Whether the body says `stream: true`. */
export function asksForStream(request: Pick<RecordedRequest, 'body'>): boolean {
  return objectBody(request.body).stream === true;
}

/** The Gemini model named in the path (`…/models/<model>:generateContent`). */
export function geminiModelFromPath(path: string): string | undefined {
  return geminiGeneratePattern.exec(path)?.[1];
}

const bedrockPattern = /\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/;
const vertexAnthropicPattern = /\/publishers\/anthropic\/models\/([^/:]+):(rawPredict|streamRawPredict)$/;
const vertexMistralPattern = /\/publishers\/mistralai\/models\/([^/:]+):(rawPredict|streamRawPredict)$/;

/** Whether `path` is a Bedrock Converse endpoint (`/model/{id}/converse` or `/converse-stream`). */
export function isConversePath(path: string): boolean {
  return /^converse(-stream)?$/.test(bedrockPattern.exec(path)?.[2] ?? '');
}

/** Whether `path` is a Bedrock InvokeModel endpoint (`/model/{id}/invoke` or `/invoke-with-response-stream`). */
export function isInvokePath(path: string): boolean {
  return /^invoke/.test(bedrockPattern.exec(path)?.[2] ?? '');
}

/** Whether `path` is Vertex's Anthropic endpoint (`…/publishers/anthropic/models/{m}:rawPredict` or `:streamRawPredict`). */
export function isVertexAnthropicPath(path: string): boolean {
  return vertexAnthropicPattern.test(path);
}

/**
 * Whether `path` is Vertex's Mistral AI endpoint (`…/publishers/mistralai/models/{m}:rawPredict` or
 * `:streamRawPredict`), which takes and answers Mistral's Chat Completions (`stream: true` in the body).
 */
export function isVertexMistralPath(path: string): boolean {
  return vertexMistralPattern.test(path);
}

/** The model a path names: Bedrock's `/model/{id}/…` (decoded), Vertex's `…/models/{m}:…`. */
function modelFromPath(path: string): string | undefined {
  const bedrock = bedrockPattern.exec(path)?.[1];
  if (bedrock !== undefined) {
    try {
      return decodeURIComponent(bedrock);
    } catch {
      return bedrock;
    }
  }
  return vertexAnthropicPattern.exec(path)?.[1];
}

/** The model a request names: the Gemini, Bedrock or Vertex path segment, else the body's `model` field. */
export function requestedModel(request: Pick<RecordedRequest, 'path' | 'body'>): string | undefined {
  const fromPath = geminiModelFromPath(request.path) ?? modelFromPath(request.path);
  if (fromPath !== undefined) return fromPath;
  const model = objectBody(request.body).model;
  return typeof model === 'string' ? model : undefined;
}

/** Reads a field of a JSON object body without trusting its shape. */
export function bodyField(body: unknown, name: string): unknown {
  return objectBody(body)[name];
}
