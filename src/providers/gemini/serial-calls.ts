/**
 * `parallelToolCalls: false` on Gemini, which has no such setting: the adapter enforces it on the
 * reply. The first function call of a turn is kept; each further one is dropped with a WARN
 * (streamed and not), so a caller that asked for one call at a time gets one.
 */
import type { CanonicalRequest } from '../../core/request.ts';
import { callOf, type ProviderContext } from '../common/definition.ts';

/**
 * Calls whose request asked for at most one tool call per turn. Keyed by the call (`callOf`): Vertex
 * builds the body and reads the reply on copies of the context (a `google/…` model name).
 */
const serialCalls = new WeakSet<object>();

/** The request builder's hook: remembers that this call's reply keeps its first function call only. */
export function rememberSerialCalls(request: CanonicalRequest, context: ProviderContext): void {
  if (request.parallelToolCalls === false && (request.tools?.length ?? 0) > 0)
    serialCalls.add(callOf(context));
}

/** Whether this call's reply keeps its first function call only (see {@link rememberSerialCalls}). */
export function keepsFirstCallOnly(context: ProviderContext): boolean {
  return serialCalls.has(callOf(context));
}

/** The calls whose reply has had its WARN: one per reply, however many calls it drops. */
const warned = new WeakSet<ProviderContext>();

/**
 * The WARN for the first function call dropped because the request forbade parallel calls: one per
 * reply (a reply of 2,000 calls would otherwise write 1,999 lines), naming the first dropped.
 */
export function warnDroppedCall(context: ProviderContext, name: string | undefined, kept: string): void {
  if (warned.has(context)) return;
  warned.add(context);
  context.warn('dropped a parallel tool call: the request asked for one call at a time', {
    model: context.model,
    function: name ?? '',
    kept,
  });
}
