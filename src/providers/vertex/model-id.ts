/**
 * Vertex model names in URLs (the grammar is the shared table's `vertex` row, `core/model-name.ts`:
 * `gemini-2.5-flash`, `claude-sonnet-4-5@20250929`, `meta/llama-3.3-70b-instruct-maas`), the path of
 * a publisher's model, and the call context a publisher's codec sees.
 */
import { modelNameProblem } from '../../core/model-name.ts';
import type { ProviderContext } from '../common/definition.ts';
import type { VertexModel } from './publishers.ts';

export { publisherOf } from './publishers.ts';

/** Whether `model` is a Vertex model name (the shared grammar table's `vertex` row). */
export function isModelName(model: string): boolean {
  return modelNameProblem(model, 'vertex') === undefined;
}

/**
 * `/publishers/{publisher}/models/{model}` of a resolved name (`resolveModel` checked it against the
 * grammar: one segment, never `.` or `..`), the model encoded with its `@version` kept.
 */
export function modelPath(model: VertexModel): string {
  return `/publishers/${model.publisher.id}/models/${encodeURIComponent(model.name).replace('%40', '@')}`;
}

/**
 * The call context a codec sees: `model` is the name the codec knows (its model facts, the body's
 * `model`). The runtime's context reads its session through a getter on its class (made on first
 * use), which a spread does not copy: it is carried over by name.
 */
export function codecContext(context: ProviderContext, model: string): ProviderContext {
  if (model === context.model) return context;
  return { ...context, session: context.session, model };
}
