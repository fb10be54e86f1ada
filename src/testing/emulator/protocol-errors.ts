/** Each protocol's own error responses, one per error class a status and body decide (for conformance). */
import { type ResponseErrorClass, responseErrorClasses } from './error-bodies.ts';
import { emulatorProtocols } from './protocols.ts';
import type { EmulatorProtocolId, JsonScript } from './types.ts';

export { type ResponseErrorClass, responseErrorClasses };

/**
 * A realistic error response of `protocol` for `errorClass`, with the body shape, codes and messages
 * the real provider sends (Anthropic `{type:'error', error:{type, message}}`, OpenAI
 * `{error:{message, type, param, code}}`, Google `{error:{code, message, status}}`). `headers` are
 * added to the response (e.g. `{'retry-after': '0.2'}`). A fresh script each call (request ids differ).
 */
export function protocolError(
  protocol: EmulatorProtocolId,
  errorClass: ResponseErrorClass,
  headers: Record<string, string> = {},
): JsonScript {
  const script = baseError(protocol, errorClass);
  return { ...script, headers: { ...script.headers, ...headers } };
}

/** Every class of {@link protocolError} for `protocol`, as `[class, script]` pairs. */
export function protocolErrors(protocol: EmulatorProtocolId): Array<[ResponseErrorClass, JsonScript]> {
  return responseErrorClasses.map((errorClass) => [errorClass, protocolError(protocol, errorClass)]);
}

function baseError(protocol: EmulatorProtocolId, errorClass: ResponseErrorClass): JsonScript {
  return emulatorProtocols[protocol].errors[errorClass]();
}
