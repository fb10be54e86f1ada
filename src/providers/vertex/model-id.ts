/**
 * The Vertex model-name grammar, checked before a name reaches a URL (`gemini-2.5-flash`,
 * `claude-sonnet-4-5@20250929`), and the publisher a name belongs to.
 */
import { InvalidRequestError } from '../../core/errors/invalid-request-error.ts';

const pattern = /^[A-Za-z0-9][A-Za-z0-9._-]*(?:@[A-Za-z0-9._-]+)?$/;

/** Whether `model` is a Vertex publisher model name. */
export function isModelName(model: string): boolean {
  return model.length <= 256 && pattern.test(model);
}

/** `anthropic` for Claude models, `google` for every other name. */
export function publisherOf(model: string): 'anthropic' | 'google' {
  return /^claude-/.test(model) ? 'anthropic' : 'google';
}

/** `/publishers/{publisher}/models/{model}`; a name outside the grammar is an `InvalidRequestError` (`invalid_model`). */
export function modelPath(model: string, site: { provider: string; requestId?: string }): string {
  if (!isModelName(model))
    throw new InvalidRequestError({
      message: `${site.provider}: the model name is not a Vertex publisher model (${model.length} characters; letters, digits, '.', '_', '-' and one '@version')`,
      provider: site.provider,
      providerCode: 'invalid_model',
      ...(site.requestId === undefined ? {} : { requestId: site.requestId }),
    });
  return `/publishers/${publisherOf(model)}/models/${encodeURIComponent(model).replace('%40', '@')}`;
}
