/** Each protocol's own error responses, one per error class a status and body decide (for conformance). */
import { type ResponseErrorClass, responseErrorClasses } from './error-bodies.ts';
import { emulatorProtocols } from './protocols.ts';
import type { EmulatorApi, JsonScript } from './types.ts';

export { type ResponseErrorClass, responseErrorClasses };

/**
 * A realistic error response of `api` for `errorClass`, with the body shape, codes and messages
 * the real provider sends (Anthropic `{type:'error', error:{type, message}}`, OpenAI
 * `{error:{message, type, param, code}}`, Google `{error:{code, message, status}}`). `headers` are
 * added to the response (e.g. `{'retry-after': '0.2'}`). A fresh script each call (request ids differ).
 */
export function protocolError(
  api: EmulatorApi,
  errorClass: ResponseErrorClass,
  headers: Record<string, string> = {},
): JsonScript {
  const script = baseError(api, errorClass);
  return { ...script, headers: { ...script.headers, ...headers } };
}

/** Every class of {@link protocolError} for `api`, as `[class, script]` pairs. */
export function protocolErrors(api: EmulatorApi): Array<[ResponseErrorClass, JsonScript]> {
  return responseErrorClasses.map((errorClass) => [errorClass, protocolError(api, errorClass)]);
}

function baseError(api: EmulatorApi, errorClass: ResponseErrorClass): JsonScript {
  return emulatorProtocols[api].errors[errorClass]();
}
