/**
 * `toolChoice: 'none'` on Converse, which has no such choice. Without tool blocks in the history no
 * tools are sent, so the model cannot call one. With them Converse requires a `toolConfig` declaring
 * the tools they used (a ValidationException otherwise): those are sent, each described as not to
 * be called, and the reply is held to the request — a call the model makes anyway is dropped, with
 * one WARN per reply, and a reply that stopped for it finishes `completed` (`reader.ts`,
 * `response.ts`). The caller that asked for no tool call gets none, whole or streamed.
 */
import { callOf, type ProviderContext } from '../common/definition.ts';

/** The description of a tool declared only because the history used it, under tool choice 'none'. */
export const notToBeCalled =
  'Not available in this turn: do not call it (declared only because earlier turns used it).';

/** Calls whose request forbade tool calls while their tools had to be declared. */
const forbidden = new WeakSet<object>();

/** The request builder's hook: this call's reply must hold no tool call. */
export function forbidToolCalls(context: ProviderContext): void {
  forbidden.add(callOf(context));
}

/** Whether this call's reply drops its tool calls (see {@link forbidToolCalls}). */
export function dropsToolCalls(context: ProviderContext): boolean {
  return forbidden.has(callOf(context));
}

/** The WARN of the first tool call a reply dropped (the reader says it once per reply). */
export function warnDroppedCall(context: ProviderContext, name: unknown): void {
  context.warn("dropped a tool call: the request's tool choice is 'none'", {
    model: context.model,
    tool: typeof name === 'string' ? name : '',
  });
}
