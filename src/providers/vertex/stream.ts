/** Vertex streams are SSE in the publisher's own protocol: the Gemini, Anthropic or Chat Completions stream parser. */
import { isJsonObject } from '../../core/json.ts';
import { parseJson } from '../../core/json-text.ts';
import type { StreamBuilder } from '../../core/stream-builder.ts';
import { createStreamParser as createAnthropicParser } from '../anthropic/stream.ts';
import type { ProviderContext, StreamParser } from '../common/definition.ts';
import { convertErrorBody as convertGoogleError } from '../gemini/errors.ts';
import { createStreamParser as createGeminiParser } from '../gemini/stream.ts';
import { createStrayLineReader } from '../gemini/stray-errors.ts';
import * as chat from './chat-completions.ts';
import { codecContext } from './model-id.ts';
import { resolveModel } from './publishers.ts';

/** Creates the parser of one response stream, by the model's publisher. */
export function createStreamParser(context: ProviderContext, builder: StreamBuilder): StreamParser {
  const model = resolveModel(context.model, context.provider);
  const { protocol } = model.publisher;
  if (protocol === 'openai-chat') return chat.createStreamParser(context, builder, model);
  const codec = codecContext(context, model.name);
  return protocol === 'anthropic-messages'
    ? withGoogleErrors(codec, createAnthropicParser(codec, builder))
    : createGeminiParser(codec, builder);
}

/**
 * Claude's stream on Vertex with Google's front end in front of it: the front end reports a
 * failure inside the 200 body with its own envelope, `{"error":{"code","message","status"}}` (or
 * in a list), as a `data:` event or as raw lines, which the Anthropic parser would skip (an event
 * without a `type`) or SSE ignore — and the stream then read as cut short. Either is thrown as the
 * classified error it is (its status and code through Vertex's rules: `RESOURCE_EXHAUSTED` a rate
 * limit, `UNAVAILABLE` a server error …), its message kept; the runtime keeps the content received.
 * Anthropic's events, which begin `{"type"`, go straight on.
 */
function withGoogleErrors(context: ProviderContext, inner: StreamParser): StreamParser {
  const failOn = (value: unknown): void => {
    // An Anthropic event (its `error` event included) is the inner parser's.
    if (isJsonObject(value) && typeof value.type === 'string') return;
    const error = convertGoogleError(value);
    if (error !== undefined) context.fail(error, error.status);
  };
  return {
    onEvent(event, data) {
      if (!data.startsWith('{"type"') && /^\s*[[{]/.test(data)) {
        let value: unknown;
        try {
          value = parseJson(data);
        } catch {
          value = undefined; // the inner parser classifies what does not parse
        }
        failOn(value);
      }
      inner.onEvent(event, data);
    },
    onStrayLine: createStrayLineReader(failOn),
    onEnd: () => inner.onEnd(),
    isComplete: () => inner.isComplete?.() === true,
    quietEndMs: () => inner.quietEndMs?.(),
  };
}
