/**
 * `adapter.countInputTokens()`: the provider's own count of a request's input tokens, asked of its
 * count endpoint with the wire request the generation would send (`ProviderDefinition.countTokens`).
 */
import type { CallOptions } from '../../core/adapter.ts';
import { ServerError } from '../../core/errors/server-error.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { readText, redactUrl } from '../../transport/http.ts';
import { setup, setWireRequest } from './call-setup.ts';
import {
  asClassified,
  endSession,
  errorFromResponse,
  parseJsonBody,
  sendAuthorized,
  withRequestId,
} from './http-exchange.ts';
import type { HttpRuntime } from './http-runtime.ts';
import { validateCall } from './validate-call.ts';

/**
 * One count: the request checked and built as a whole call's is (the provider's `prepare`, which
 * may create provider-side state such as a Gemini cache entry, is not run), reshaped by the
 * provider's `countTokens.buildRequest`, and sent once (no retries: the caller has a local estimate
 * to fall back on). `undefined` when the provider has no count endpoint for the model.
 */
export async function countCall(
  runtime: HttpRuntime,
  untrustedRequest: CanonicalRequest,
  untrustedOptions?: CallOptions,
): Promise<number | undefined> {
  const { definition, http, registry, maxBodyBytes } = runtime;
  const counting = definition.countTokens;
  if (counting === undefined) return undefined;
  const { request, options: callOptions } = validateCall(definition.name, untrustedRequest, untrustedOptions);
  const controller = new AbortController();
  const callSetup = setup(runtime, request, callOptions, false, controller.signal);
  const { requestId, context, call } = callSetup;
  const unregister = registry.register(requestId, controller, callOptions.signal);
  const stopDeadline = http.startDeadline(controller);
  const timers = http.createTimers(controller);
  try {
    const wire = counting.buildRequest(definition.buildRequest(callSetup.request, context), context);
    if (wire === undefined) return undefined;
    setWireRequest(runtime, callSetup, wire, callOptions.headers);
    const response = await sendAuthorized(runtime, call, controller, timers);
    if (!response.ok) throw await errorFromResponse(runtime, response, call, controller, timers);
    const body = parseJsonBody(
      await readText(response, call, controller, timers, maxBodyBytes, 'fail'),
      call,
    );
    let tokens: number | undefined;
    try {
      tokens = counting.parse(body);
    } catch (error) {
      throw asClassified(error, call, 'invalid_response');
    }
    if (tokens === undefined || !Number.isSafeInteger(tokens) || tokens < 0)
      throw new ServerError({
        message: `${call.provider}: ${call.method} ${redactUrl(call.url)} answered without a token count`,
        provider: call.provider,
        providerCode: 'invalid_response',
        retryable: true,
      });
    return tokens;
  } catch (error) {
    throw withRequestId(error, requestId);
  } finally {
    timers.dispose();
    stopDeadline();
    unregister();
    if (callOptions.session === undefined && definition.endSession !== undefined)
      await endSession(runtime, context.session);
  }
}
