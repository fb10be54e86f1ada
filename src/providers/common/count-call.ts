/**
 * `adapter.countInputTokens()`: the provider's own count of a request's input tokens, asked of its
 * count endpoint with the wire request the generation would send (`ProviderDefinition.countTokens`).
 */
import type { CallOptions } from '../../core/adapter.ts';
import { AdapterError } from '../../core/errors/adapter-error.ts';
import { CancelledError } from '../../core/errors/cancelled-error.ts';
import { ServerError } from '../../core/errors/server-error.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { type HttpCall, readText, redactUrl } from '../../transport/http.ts';
import { setup, setWireRequest } from './call-setup.ts';
import {
  asClassified,
  endSession,
  errorFromResponse,
  parseJsonBody,
  sendAuthorized,
  withRequestId,
} from './http-exchange.ts';
import type { AbsentEndpoint, HttpRuntime } from './http-runtime.ts';
import { validateCall } from './validate-call.ts';

/**
 * How long a count endpoint that answered it is not there (404, 405, 501: a compatible host without
 * it) is believed absent: until then its counts are not sent (the caller answers its estimate),
 * then it is asked again (a host may add it, a proxy's route may come back).
 */
export const absentCountEndpointMs = 10 * 60_000;

/**
 * Whether an answer says the count endpoint itself is absent, not that this request was wrong: a
 * 405 or 501, or a 404 with no code or a generic one (`Invalid URL`, `not_found_error`: a route or
 * model the host does not have) that names no state the request pointed at — a 404 for an unknown
 * `previous_response_id`, conversation, cache or file is this request's (OpenAI's
 * `previous_response_not_found`), and remembering it would refuse every caller's count.
 */
function saysEndpointAbsent(status: number, error: AdapterError): boolean {
  if (status === 405 || status === 501) return true;
  if (status !== 404) return false;
  const code = error.providerCode;
  if (code !== undefined && !/^(not_?found(_error)?|invalid_request_error)$/i.test(code)) return false;
  return !/previous|conversation|cached|file/i.test(error.providerMessage ?? '');
}

/** The most absent endpoints one adapter remembers (one per URL and model). */
const maxAbsentEndpoints = 256;

/**
 * One count: the request checked and built as a whole call's is (the provider's `prepare`, which
 * may create provider-side state such as a Gemini cache entry, is not run), reshaped by the
 * provider's `countTokens.buildRequest`, and sent once (no retries: the caller has a local estimate
 * to fall back on). `undefined` when the provider has no count endpoint for the model. An endpoint
 * that answered 404, 405 or 501 (or refused to count the model: `countTokens.refusesModel`) is not
 * asked again for that model for {@link absentCountEndpointMs}: that answer and the counts until then
 * reject with the status it answered, class `other`, `providerCode` `count_endpoint_absent`.
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
    const endpoint = endpointOf(call.url, context.model);
    const absent = knownAbsent(runtime, endpoint);
    if (absent !== undefined) throw absentError(call, absent, controller.signal);
    const response = await sendAuthorized(runtime, call, controller, timers);
    if (!response.ok) {
      const error = await errorFromResponse(runtime, response, call, controller, timers);
      if (!saysEndpointAbsent(response.status, error) && counting.refusesModel?.(error) !== true) throw error;
      throw absentError(call, rememberAbsent(runtime, endpoint, response.status), controller.signal, error);
    }
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

/**
 * The key an endpoint is remembered by: its URL without the query (which may carry a key) and the
 * model, since some providers answer 404 for a model they do not know at an endpoint they have.
 */
function endpointOf(url: string, model: string): string {
  const query = url.indexOf('?');
  return `${query === -1 ? url : url.slice(0, query)} ${model}`;
}

/** The endpoint's remembered absence, while it lasts. */
function knownAbsent(runtime: HttpRuntime, endpoint: string): AbsentEndpoint | undefined {
  const absent = runtime.absentCountEndpoints.get(endpoint);
  if (absent === undefined) return undefined;
  if (runtime.now() < absent.until) return absent;
  runtime.absentCountEndpoints.delete(endpoint);
  return undefined;
}

/** Remembers that `endpoint` answered `status`, the oldest entry forgotten past the bound. */
function rememberAbsent(runtime: HttpRuntime, endpoint: string, status: number): AbsentEndpoint {
  const remembered = runtime.absentCountEndpoints;
  remembered.delete(endpoint);
  if (remembered.size >= maxAbsentEndpoints) remembered.delete(remembered.keys().next().value!);
  const absent = { status, until: runtime.now() + absentCountEndpointMs };
  remembered.set(endpoint, absent);
  return absent;
}

/**
 * The error of a count its endpoint does not answer (the answer that said so is `cause`, the first
 * time): class `other`, whatever the status, since the request itself is not at fault (a caller
 * falls back to its estimate); cancelled when the caller gave up.
 */
function absentError(
  call: HttpCall,
  absent: AbsentEndpoint,
  signal: AbortSignal,
  cause?: AdapterError,
): AdapterError {
  const where = `${call.provider}: ${call.method} ${redactUrl(call.url)}`;
  if (signal.aborted)
    return new CancelledError({ message: `${where} was cancelled`, provider: call.provider });
  const until = new Date(absent.until).toISOString();
  return new AdapterError({
    message: `${where} answered ${absent.status} (no token count here for this model); not asked again until ${until}`,
    errorClass: 'other',
    status: absent.status,
    provider: call.provider,
    providerCode: 'count_endpoint_absent',
    ...(cause === undefined ? {} : { providerMessage: cause.providerMessage, cause }),
  });
}
