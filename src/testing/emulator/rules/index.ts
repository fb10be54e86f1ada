/** Dispatches request rule checks by protocol. */
import type { EmulatorApi, EmulatorScript, JsonScript, RecordedRequest } from '../types.ts';
import { checkAnthropicRequest } from './anthropic.ts';
import { checkGeminiRequest } from './gemini.ts';
import { checkHostRules } from './hosts.ts';
import { checkBearer, checkChatRequest } from './openai.ts';
import { checkResponsesRequest, type ResponsesStore } from './openai-responses.ts';

/**
 * Checks the request against its provider's rules unless the script says `enforce: false`; returns the
 * provider's error response for the first violation, `undefined` when the request passes.
 */
export function checkRules(
  api: EmulatorApi | undefined,
  request: RecordedRequest,
  script: EmulatorScript,
  responses: ResponsesStore,
): JsonScript | undefined {
  if (script.enforce === false || api === undefined) return undefined;
  switch (api) {
    case 'anthropic-messages':
      return checkAnthropicRequest(request);
    case 'openai-chat':
      return (
        (script.allowNoAuth ? undefined : checkBearer(request)) ??
        checkChatRequest(request) ??
        checkHostRules(request)
      );
    case 'openai-responses':
      return (
        (script.allowNoAuth ? undefined : checkBearer(request)) ?? checkResponsesRequest(request, responses)
      );
    case 'gemini':
      return checkGeminiRequest(request);
  }
}
