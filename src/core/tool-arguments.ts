/** The arguments text of a tool call, for the protocols that send it as a string (Chat, Responses). */
import type { ToolCallPart } from './transcript.ts';

/**
 * The model's own text when its arguments were kept as written (`switchyard.raw_input`: JSON that is
 * not an object, `[1,2]`, which `input` cannot hold) and it is JSON; else the input as JSON. Text that
 * does not parse (a call cut short) goes as its repair: hosts that parse the arguments of earlier
 * calls (chat templates) would refuse the whole request over it.
 */
export function argumentsJson(call: Pick<ToolCallPart, 'input' | 'metadata'>): string {
  const raw = call.metadata?.['switchyard.raw_input'];
  if (typeof raw !== 'string') return JSON.stringify(call.input);
  try {
    JSON.parse(raw);
    return raw;
  } catch {
    return JSON.stringify(call.input);
  }
}
