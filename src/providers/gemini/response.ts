/** A whole Gemini `generateContent` response → builder calls (wire → canonical). */
import { ServerError } from '../../core/errors/server-error.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import type { ProviderContext } from '../shared/definition.ts';
import { type GeminiResponse, isRecord, readGoogleError } from './api.ts';
import { convertGoogleError } from './errors.ts';
import { ResponseReader } from './reader.ts';

export { convertUsage, mapFinishReason } from './response-fields.ts';

/**
 * Parses a `generateContent` body. An error envelope (also inside a 200) throws the classified
 * error; a JSON array (what `streamGenerateContent` returns without `alt=sse`) is read chunk by
 * chunk; a blocked prompt (`promptFeedback.blockReason`) becomes finish reason `content-filter`.
 */
export function parseResponse(body: unknown, context: ProviderContext, builder: StreamBuilder): void {
  const error = readGoogleError(body);
  if (error !== undefined) context.fail(convertGoogleError(error), error.code);
  const chunks = Array.isArray(body) ? body : [body];
  const reader = new ResponseReader(context, builder);
  for (const chunk of chunks) {
    if (!isRecord(chunk)) {
      throw new ServerError({
        message: `gemini: ${context.model} returned a response that is not a JSON object`,
        provider: 'gemini',
        providerCode: 'invalid_response',
        requestId: context.requestId,
      });
    }
    reader.read(chunk as GeminiResponse);
  }
  reader.finish();
}
