/** The gateway's WARN of what was left out of a request: at decoding, and when a fallback of another provider served it. */
import { shown } from '../codecs/fields.ts';
import { inboundCodecs } from '../codecs/index.ts';
import { leaveOutServerTools } from '../codecs/anthropic-messages/server-tools.ts';
import { builtinsLeftOutByFallback, leaveOutBuiltins } from '../codecs/openai-responses/builtin-tools.ts';
import type { DecodedRequest, InboundProtocol } from '../codecs/types.ts';
import type { CanonicalResponse } from '../core/request.ts';
import { routingDecision } from '../routing/decision.ts';
import type { GatewayState } from './state.ts';

/** What the WARN names of a call. */
interface LeftOutCall {
  requestId: string;
  protocol: InboundProtocol;
}

/**
 * Whether `model` is served by an adapter of the client's own protocol's type (an OpenAI Responses
 * client's built-in tools reach only such a model; `leaveOutBuiltins`).
 */
export function isNativeRoute(
  protocol: InboundProtocol,
  model: ReturnType<GatewayState['switchyard']['resolve']> | undefined,
): boolean {
  const native = inboundCodecs[protocol].nativeProvider;
  return native !== undefined && model !== undefined && model.type === native.type;
}

/**
 * The provider tools a client's request keeps (`gateway.builtin_tools`), as the generation and the
 * count routes both send them: a Responses client's built-in tools and an Anthropic client's server
 * tools reach only an upstream of the client's own protocol, and there only those the list allows.
 */
export function leaveOutProviderTools(
  state: GatewayState,
  decoded: DecodedRequest,
  nativeRoute: boolean,
): void {
  leaveOutBuiltins(decoded, nativeRoute ? state.builtinTools : undefined);
  if (nativeRoute) leaveOutServerTools(decoded, state.builtinTools);
}

/** The most left-out parts a request's one WARN names (the rest are counted). */
export const maxWarningDetails = 5;

/**
 * The WARN of what was left out of a request. One line per request, however many parts were left
 * out (a body of 200,000 unknown tools must not write 200,000 lines), each detail cut as every
 * client text the gateway repeats is.
 */
export function warnLeftOut(
  state: GatewayState,
  call: LeftOutCall,
  warnings: readonly string[] | undefined,
): void {
  if (warnings !== undefined && warnings.length > 0)
    state.logger.warn('gateway: part of the request was left out', {
      requestId: call.requestId,
      protocol: call.protocol,
      count: warnings.length,
      details: warnings.slice(0, maxWarningDetails).map(shown),
    });
}

/**
 * The same WARN ({@link warnLeftOut}) for built-in tools kept for a Responses model when the reply
 * says a fallback of another provider served the call (`builtinsLeftOutByFallback`): the decode
 * kept them for the model named, and only the router knew which candidate would answer.
 */
export function warnFallbackLeftOut(
  state: GatewayState,
  call: LeftOutCall,
  decoded: DecodedRequest,
  response: CanonicalResponse,
): void {
  if (decoded.builtinTools === undefined) return;
  const id = routingDecision(response)?.served;
  if (id === undefined) return;
  let model: ReturnType<GatewayState['switchyard']['resolve']>;
  try {
    model = state.switchyard.resolve(id);
  } catch {
    return;
  }
  if (!isNativeRoute(call.protocol, model)) warnLeftOut(state, call, builtinsLeftOutByFallback(decoded, id));
}
