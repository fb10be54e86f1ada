/**
 * The `providerOptions` one adapter reads: its own name's key over its provider's. Its own module
 * (no transport, no adapter code), so the router reads a request's options as the adapter does
 * without loading the adapter's call path.
 */
import type { CanonicalRequest } from '../../core/request.ts';

/**
 * The `providerOptions` an adapter named otherwise (`work-claude`, of type `anthropic`) reads: the
 * provider's own key's fields (`providerOptions.anthropic`, for every adapter of the provider) with
 * its own name's fields on top (`providerOptions['work-claude']`, for it alone), under both keys, so
 * a codec reading either finds them. Another adapter's key is left as it is.
 */
export function ownProviderOptions(
  options: NonNullable<CanonicalRequest['providerOptions']>,
  name: string,
  ownName: string,
): NonNullable<CanonicalRequest['providerOptions']> {
  const named = options[name];
  const own = options[ownName];
  if (named === undefined && own === undefined) return options;
  const merged = { ...own, ...named };
  return { ...options, [ownName]: merged, [name]: merged };
}
