/** The OpenAI Responses stream of the bench: lifecycle events, deltas, the `.done` events and `response.completed`. */
import type { Expected } from './payloads.ts';

/** A frame builder (`event:` line plus one JSON `data:` line). */
type Frame = (data: unknown, event?: string) => Buffer;

interface ResponsesFrameTools {
  frame: Frame;
  model: string;
  toolName: string;
  textTokens(count: number): string[];
  splitFragments(text: string, count: number): string[];
  toolInput(fragments: number): Expected['toolInput'];
}

/** Padding characters for `obfuscation`. */
const padding = 'tCu4gPjumNTFmDB4RRfgIWurZhM';

/** An `obfuscation` value 8–16 characters long (12 on average, as in the recorded OpenAI streams). */
function obfuscation(sequence: number): string {
  return padding.slice(sequence % 9, (sequence % 9) + 8 + ((sequence * 7) % 9));
}

/**
 * What OpenAI sends for one answer: `response.created`, `response.in_progress`, the item's `added`
 * events, one delta per token or fragment (with `obfuscation`, as OpenAI pads them), the `done`
 * events repeating the whole text or arguments, then `response.completed` with the full output.
 * Ids and padding are sized like the recorded OpenAI streams (test/fixtures/recorded/openai/responses:
 * item ids `msg_`/`fc_` plus 48 characters, `obfuscation` 12 characters on average), so each delta
 * event is as long as a real one (~220 bytes for text).
 */
export function responsesFrames(
  scenario: 'text' | 'tool',
  units: number,
  tools: ResponsesFrameTools,
): { frames: Buffer[]; expected: Expected } {
  const frames: Buffer[] = [];
  let sequence = 0;
  const emit = (type: string, payload: object) => {
    frames.push(tools.frame({ type, sequence_number: sequence++, ...payload }, type));
  };
  const response = {
    id: 'resp_0bench0bench0bench0bench0bench0bench0bench0bench01',
    object: 'response',
    created_at: 1770933892,
    status: 'in_progress',
    model: tools.model,
    output: [] as object[],
    usage: null as object | null,
  };
  emit('response.created', { response });
  emit('response.in_progress', { response });
  const at = { item_id: 'msg_0bench0bench0bench0bench0bench0bench0bench0bench01', output_index: 0 };
  let item: Record<string, unknown>;
  let expected: Expected;
  if (scenario === 'text') {
    const tokens = tools.textTokens(units);
    const text = tokens.join('');
    item = { id: at.item_id, type: 'message', status: 'in_progress', role: 'assistant', content: [] };
    emit('response.output_item.added', { output_index: 0, item });
    const part = { type: 'output_text', annotations: [], logprobs: [], text: '' };
    emit('response.content_part.added', { ...at, content_index: 0, part });
    for (const delta of tokens)
      emit('response.output_text.delta', {
        ...at,
        content_index: 0,
        delta,
        logprobs: [],
        obfuscation: obfuscation(sequence),
      });
    emit('response.output_text.done', { ...at, content_index: 0, text, logprobs: [] });
    emit('response.content_part.done', { ...at, content_index: 0, part: { ...part, text } });
    item = { ...item, status: 'completed', content: [{ ...part, text }] };
    expected = { text, toolInput: undefined };
  } else {
    const input = tools.toolInput(units);
    const argumentsText = JSON.stringify(input);
    const call = {
      id: 'fc_0bench0bench0bench0bench0bench0bench0bench0bench01',
      type: 'function_call',
      call_id: 'call_BenchBenchBench01',
      name: tools.toolName,
    };
    emit('response.output_item.added', {
      output_index: 0,
      item: { ...call, status: 'in_progress', arguments: '' },
    });
    const callAt = { item_id: call.id, output_index: 0 };
    for (const delta of tools.splitFragments(argumentsText, units))
      emit('response.function_call_arguments.delta', {
        ...callAt,
        delta,
        obfuscation: obfuscation(sequence),
      });
    emit('response.function_call_arguments.done', { ...callAt, arguments: argumentsText });
    item = { ...call, status: 'completed', arguments: argumentsText };
    expected = { text: '', toolInput: input };
  }
  emit('response.output_item.done', { output_index: 0, item });
  const usage = {
    input_tokens: 16,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: units,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 16 + units,
  };
  emit('response.completed', { response: { ...response, status: 'completed', output: [item], usage } });
  return { frames, expected };
}
