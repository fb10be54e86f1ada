/**
 * Vertex model names in URLs (the grammar is the shared table's `vertex` row, `core/model-name.ts`:
 * `gemini-2.5-flash`, `claude-sonnet-4-5@20250929`), and the publisher a name belongs to.
 */
import { assertModelName, modelNameProblem } from '../../core/model-name.ts';

/** Whether `model` is a Vertex publisher model name (the shared grammar table's `vertex` row). */
export function isModelName(model: string): boolean {
  return modelNameProblem(model, 'vertex') === undefined;
}

/** `anthropic` for Claude models, `google` for every other name. */
export function publisherOf(model: string): 'anthropic' | 'google' {
  return /^claude-/.test(model) ? 'anthropic' : 'google';
}

/** `/publishers/{publisher}/models/{model}`; a name outside the grammar is an `InvalidRequestError` (`invalid_model_name`). */
export function modelPath(model: string, site: { provider: string }): string {
  assertModelName(model, 'vertex', site.provider);
  return `/publishers/${publisherOf(model)}/models/${encodeURIComponent(model).replace('%40', '@')}`;
}
