/**
 * The shared runtime that turns a ProviderDefinition into an Adapter: retries, streaming,
 * cancellation. The adapter's state is resolved once (`http-runtime.ts`); a call is set up
 * (`call-setup.ts`) and run whole (`complete-call.ts`) or streamed (`stream-call.ts`) over the
 * adapter's HTTP exchanges (`http-exchange.ts`).
 */
import { type Adapter, type AdapterSession, type CallOptions, createSession } from '../../core/adapter.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { redactError } from '../../core/redaction.ts';
import { completeCall } from './complete-call.ts';
import { countCall } from './count-call.ts';
import type { ProviderDefinition } from './definition.ts';
import { createDormantCall } from './dormant-call.ts';
import { endSession, fetchJson } from './http-exchange.ts';
import { joinModelId } from '../../core/ids.ts';
import { assertOpen, createHttpRuntime, wireModelName } from './http-runtime.ts';
import type { AdapterOptions, CredentialSource } from './options.ts';
import { streamCall } from './stream-call.ts';
import { estimateChecked } from './validate-call.ts';

/** Creates an Adapter from a provider definition and the user's options. */
export function createHttpAdapter(
  given: ProviderDefinition,
  options: AdapterOptions & { credentials?: CredentialSource },
): Adapter {
  const runtime = createHttpRuntime(given, options);
  // Named as `options.name` says (see `createHttpRuntime`).
  const { definition, ownName } = runtime;
  runtime.dormantCall = createDormantCall(runtime);
  let closing: Promise<void> | undefined;
  return {
    name: definition.name,
    ...(ownName === definition.name ? {} : { ownName }),
    protocol: definition.protocol,
    capabilities: (model) => runtime.capabilitiesOf(wireModelName(runtime, model)),
    complete: (request, callOptions) => completeCall(runtime, request, callOptions),
    stream: (request, callOptions) => streamCall(runtime, request, callOptions),
    estimateInputTokens: (input) => estimateChecked(definition.name, definition.estimateInputTokens, input),
    ...(definition.countTokens === undefined
      ? {}
      : {
          countInputTokens: (request: CanonicalRequest, callOptions?: CallOptions) =>
            countCall(runtime, request, callOptions),
        }),
    ...(definition.unservedReason === undefined
      ? {}
      : { unservedReason: (model: string) => definition.unservedReason!(wireModelName(runtime, model)) }),
    cancel: (requestId) => runtime.registry.cancel(requestId),
    /** Idempotent: every call resolves once provider-side state is released and the pool is closed. */
    close() {
      if (closing === undefined) {
        runtime.closed = true;
        runtime.registry.cancelAll();
        // Provider-side state (paid caches) is deleted before the connection pool goes.
        closing = Promise.all([...runtime.liveSessions].map((session) => endSession(runtime, session))).then(
          () => runtime.http.close(),
        );
      }
      return closing;
    },
    endSession: (session) => endSession(runtime, session),
    async listModels(listOptions = {}) {
      assertOpen(runtime);
      const { path, baseURL } = definition.listModels;
      const base = baseURL?.(runtime.baseURL) ?? runtime.baseURL;
      const body = await fetchJson(runtime, 'GET', path, undefined, listOptions.signal, base).catch(
        (error: unknown) => Promise.reject(redactError(error)),
      );
      const models = definition.listModels.parse(body);
      if (ownName === definition.name) return models;
      // The provider's reader names its own models (`anthropic:…`): the ids of this adapter's.
      const prefix = `${ownName}:`;
      return models.map((model) =>
        model.id.startsWith(prefix)
          ? { ...model, id: joinModelId(definition.name, model.id.slice(prefix.length)) }
          : model,
      );
    },
    startSession: (): AdapterSession => createSession(),
  };
}
