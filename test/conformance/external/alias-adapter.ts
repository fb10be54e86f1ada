/**
 * An adapter written outside the library, against its public types only: it serves model aliases
 * (`deepseek:fast`) by delegating to another adapter with the model they stand for.
 */
import type { Adapter, CanonicalRequest } from 'switchyard-ai';

/** Wraps `inner` so that the model ids in `aliases` are replaced by their targets before each call. */
export function withModelAliases(inner: Adapter, aliases: Readonly<Record<string, string>>): Adapter {
  const resolve = (model: string): string => aliases[model] ?? model;
  const resolved = (request: CanonicalRequest): CanonicalRequest => ({
    ...request,
    model: resolve(request.model),
  });
  return {
    name: inner.name,
    protocol: inner.protocol,
    capabilities: (model) => inner.capabilities(resolve(model)),
    complete: (request, options) => inner.complete(resolved(request), options),
    stream: (request, options) => inner.stream(resolved(request), options),
    estimateInputTokens: (input) =>
      inner.estimateInputTokens(
        input.model === undefined ? input : { ...input, model: resolve(input.model) },
      ),
    cancel: (requestId) => inner.cancel(requestId),
    close: () => inner.close(),
    listModels: (options) => inner.listModels(options),
    startSession: () => inner.startSession(),
    endSession: (session) => inner.endSession(session),
  };
}
