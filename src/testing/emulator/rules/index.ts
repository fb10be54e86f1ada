/** Checks a request against the rules of its protocol (from the protocol table). */
import { emulatorProtocols } from '../protocols.ts';
import type { EmulatorProtocolId, EmulatorScript, JsonScript, RecordedRequest } from '../types.ts';
import type { ResponsesStore } from './openai-responses.ts';

/**
 * Checks the request against its provider's rules unless the script says `enforce: false`; returns the
 * provider's error response for the first violation, `undefined` when the request passes.
 */
export function checkRules(
  protocol: EmulatorProtocolId | undefined,
  request: RecordedRequest,
  script: EmulatorScript,
  responses: ResponsesStore,
): JsonScript | undefined {
  if (script.enforce === false || protocol === undefined) return undefined;
  return emulatorProtocols[protocol].checkRules(request, script, responses);
}
