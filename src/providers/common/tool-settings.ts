/** Tool settings a protocol has no field for: dropped with a WARN, never silently. */
import type { CanonicalRequest } from '../../core/request.ts';
import type { ProviderContext } from './definition.ts';

/**
 * `parallelToolCalls: false` where the wire has no way to forbid parallel calls (Gemini, Bedrock
 * Converse, Chat hosts without `parallel_tool_calls`): the model may still answer with several
 * calls, so the caller is told rather than trusting a setting that was not sent.
 */
export function warnSerialCallsUnenforced(request: CanonicalRequest, context: ProviderContext): void {
  if (request.parallelToolCalls === false && (request.tools?.length ?? 0) > 0)
    context.warn('dropped a tool setting the host does not take', {
      parameter: 'parallelToolCalls',
      reason: 'the protocol cannot forbid parallel tool calls; the model may still make several',
    });
}
