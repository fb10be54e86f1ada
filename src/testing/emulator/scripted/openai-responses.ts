/** Synthesizes OpenAI Responses API answers: a `response` object or its `response.*` event stream. */
import { createFrame, type WireFrame } from '../frames.ts';
import { createOpenaiCallId, createResponsesId, randomToken, unixSeconds } from '../ids.ts';
import type { ScriptedScript } from '../types.ts';
import {
  chunkText,
  type ResolvedContent,
  type ResolvedUsage,
  resolveContent,
  resolveUsage,
  type ScriptContext,
} from './shared.ts';

type ResponsesItem = Record<string, unknown> & { id: string; type: string };

function usageObject(usage: ResolvedUsage): Record<string, unknown> {
  const inputTokens = usage.input + usage.cacheRead + usage.cacheWrite;
  const outputTokens = usage.output + usage.reasoning;
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: usage.cacheRead },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoning },
    total_tokens: inputTokens + outputTokens,
  };
}

function completedItem(part: ResolvedContent, context: ScriptContext): ResponsesItem {
  if (part.type === 'text') {
    const content = [{ type: 'output_text', annotations: [], logprobs: [], text: part.text }];
    return { id: createResponsesId('msg'), type: 'message', status: 'completed', content, role: 'assistant' };
  }
  if (part.type === 'reasoning') {
    const item: ResponsesItem = {
      id: createResponsesId('rs'),
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: part.text }],
    };
    if (part.signature !== undefined) item.encrypted_content = part.signature;
    else if (context.encryptedReasoning === true) item.encrypted_content = `gAAAAAB${randomToken(96)}`;
    return item;
  }
  const argumentsText = JSON.stringify(part.input);
  return {
    id: createResponsesId('fc'),
    type: 'function_call',
    status: 'completed',
    arguments: argumentsText,
    call_id: part.id,
    name: part.name,
  };
}

/** A finish reason other than `completed`/`stop` makes the response `incomplete` with that reason. */
function isIncomplete(script: ScriptedScript): boolean {
  return script.finishReason !== undefined && !['completed', 'stop'].includes(script.finishReason);
}

function responseObject(script: ScriptedScript, context: ScriptContext, id: string, createdAt: number) {
  const incomplete = isIncomplete(script);
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status: incomplete ? 'incomplete' : 'completed',
    background: false,
    error: null,
    incomplete_details: incomplete ? { reason: script.finishReason } : null,
    instructions: null,
    max_output_tokens: null,
    model: context.model,
    output: [] as ResponsesItem[],
    parallel_tool_calls: true,
    previous_response_id: context.previousResponseId ?? null,
    reasoning: { effort: null, summary: null },
    store: context.store ?? true,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: null as Record<string, unknown> | null,
    user: null,
    metadata: {},
  };
}

/** The non-streaming `response` body. */
export function createResponsesBody(script: ScriptedScript, context: ScriptContext): object {
  const response = responseObject(script, context, createResponsesId('resp'), unixSeconds());
  response.output = resolveContent(script.content, createOpenaiCallId).map((part) =>
    completedItem(part, context),
  );
  response.usage = usageObject(resolveUsage(script));
  return response;
}

type Emit = (type: string, payload: Record<string, unknown>) => void;

function emitItem(emit: Emit, item: ResponsesItem, outputIndex: number, chunkSize: number | undefined): void {
  const at = { item_id: item.id, output_index: outputIndex };
  if (item.type === 'message') {
    const text = (item.content as Array<{ text: string }>)[0]?.text ?? '';
    const emptyPart = { type: 'output_text', annotations: [], logprobs: [], text: '' };
    emit('response.output_item.added', {
      output_index: outputIndex,
      item: { ...item, status: 'in_progress', content: [] },
    });
    emit('response.content_part.added', { ...at, content_index: 0, part: emptyPart });
    for (const delta of chunkText(text, chunkSize)) {
      emit('response.output_text.delta', { ...at, content_index: 0, delta, logprobs: [] });
    }
    emit('response.output_text.done', { ...at, content_index: 0, text, logprobs: [] });
    emit('response.content_part.done', { ...at, content_index: 0, part: { ...emptyPart, text } });
  } else if (item.type === 'reasoning') {
    const text = (item.summary as Array<{ text: string }>)[0]?.text ?? '';
    emit('response.output_item.added', { output_index: outputIndex, item: { ...item, summary: [] } });
    emit('response.reasoning_summary_part.added', {
      ...at,
      summary_index: 0,
      part: { type: 'summary_text', text: '' },
    });
    for (const delta of chunkText(text, chunkSize)) {
      emit('response.reasoning_summary_text.delta', { ...at, summary_index: 0, delta });
    }
    emit('response.reasoning_summary_text.done', { ...at, summary_index: 0, text });
    emit('response.reasoning_summary_part.done', {
      ...at,
      summary_index: 0,
      part: { type: 'summary_text', text },
    });
  } else {
    const argumentsText = String(item.arguments);
    emit('response.output_item.added', {
      output_index: outputIndex,
      item: { ...item, status: 'in_progress', arguments: '' },
    });
    for (const delta of chunkText(argumentsText, chunkSize)) {
      emit('response.function_call_arguments.delta', { ...at, delta });
    }
    emit('response.function_call_arguments.done', { ...at, arguments: argumentsText });
  }
  emit('response.output_item.done', { output_index: outputIndex, item });
}

/**
 * The streamed sequence: `response.created`, `response.in_progress`, per output item
 * `output_item.added`, its deltas (`output_text.delta`, `reasoning_summary_text.delta`,
 * `function_call_arguments.delta`) and `output_item.done`, then `response.completed`
 * (`response.incomplete` for a non-normal finish reason). Every event carries `sequence_number`.
 */
export function createResponsesFrames(script: ScriptedScript, context: ScriptContext): WireFrame[] {
  const frames: WireFrame[] = [];
  const emit: Emit = (type, payload) => {
    frames.push(createFrame({ type, sequence_number: frames.length, ...payload }, type));
  };
  const response = responseObject(script, context, createResponsesId('resp'), unixSeconds());
  const inProgress = { ...response, status: 'in_progress', incomplete_details: null };
  emit('response.created', { response: inProgress });
  emit('response.in_progress', { response: inProgress });
  const items = resolveContent(script.content, createOpenaiCallId).map((part) =>
    completedItem(part, context),
  );
  items.forEach((item, index) => {
    emitItem(emit, item, index, script.chunkSize);
  });
  const final = { ...response, output: items, usage: usageObject(resolveUsage(script)) };
  emit(isIncomplete(script) ? 'response.incomplete' : 'response.completed', { response: final });
  return frames;
}
