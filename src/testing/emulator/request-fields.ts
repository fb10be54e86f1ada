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

/** The model a request names: the Gemini path segment, else the body's `model` field. */
export function requestedModel(request: Pick<RecordedRequest, 'path' | 'body'>): string | undefined {
  const fromPath = geminiModelFromPath(request.path);
  if (fromPath !== undefined) return fromPath;
  const model = objectBody(request.body).model;
  return typeof model === 'string' ? model : undefined;
}

/** Reads a field of a JSON object body without trusting its shape. */
export function bodyField(body: unknown, name: string): unknown {
  return objectBody(body)[name];
}
