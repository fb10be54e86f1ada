/** Synthesizes OpenAI Chat Completions responses: a `chat.completion` or its `chat.completion.chunk` stream. */
import { createFrame, type WireFrame } from '../frames.ts';
import { createChatCompletionId, createOpenaiCallId, randomHex, unixSeconds } from '../ids.ts';
import type { ScriptedScript } from '../types.ts';
import {
  chunkText,
  hasToolCall,
  type ResolvedToolCall,
  type ResolvedUsage,
  reasoningText,
  resolveContent,
  resolveUsage,
  type ScriptContext,
  visibleText,
} from './shared.ts';

function finishReason(script: ScriptedScript): string {
  return script.finishReason ?? (hasToolCall(script) ? 'tool_calls' : 'stop');
}

function usageObject(usage: ResolvedUsage): Record<string, unknown> {
  const promptTokens = usage.input + usage.cacheRead + usage.cacheWrite;
  const completionTokens = usage.output + usage.reasoning;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheRead, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: usage.reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function toolCalls(script: ScriptedScript): ResolvedToolCall[] {
  return resolveContent(script.content, createOpenaiCallId).filter(
    (part): part is ResolvedToolCall => part.type === 'tool-call',
  );
}

/**
 * The non-streaming `chat.completion` body. Reasoning, which OpenAI itself does not return, is given
 * as `reasoning_content` the way DeepSeek-style compatible hosts do.
 */
export function createChatCompletion(script: ScriptedScript, context: ScriptContext): object {
  const text = visibleText(script.content);
  const reasoning = reasoningText(script.content);
  const calls = toolCalls(script);
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: text === '' && calls.length > 0 ? null : text,
    refusal: null,
    annotations: [],
  };
  if (reasoning !== '') message.reasoning_content = reasoning;
  if (calls.length > 0) {
    message.tool_calls = calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.input) },
    }));
  }
  return {
    id: createChatCompletionId(),
    object: 'chat.completion',
    created: unixSeconds(),
    model: context.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(script) }],
    usage: usageObject(resolveUsage(script)),
    service_tier: 'default',
    system_fingerprint: `fp_${randomHex(10)}`,
  };
}

function contentDeltas(script: ScriptedScript): Record<string, unknown>[] {
  const deltas: Record<string, unknown>[] = [];
  let toolIndex = 0;
  for (const part of resolveContent(script.content, createOpenaiCallId)) {
    if (part.type === 'text') {
      for (const content of chunkText(part.text, script.chunkSize)) deltas.push({ content });
    } else if (part.type === 'reasoning') {
      for (const reasoning of chunkText(part.text, script.chunkSize))
        deltas.push({ reasoning_content: reasoning });
    } else {
      const index = toolIndex++;
      const call = { name: part.name, arguments: '' };
      deltas.push({ tool_calls: [{ index, id: part.id, type: 'function', function: call }] });
      for (const fragment of chunkText(JSON.stringify(part.input), script.chunkSize)) {
        deltas.push({ tool_calls: [{ index, function: { arguments: fragment } }] });
      }
    }
  }
  return deltas;
}

/**
 * The streamed sequence: a role chunk, content / `reasoning_content` deltas, `tool_calls` deltas by
 * index (id and name on the first), a `finish_reason` chunk, the usage chunk when
 * `stream_options.include_usage` asked for it, then `data: [DONE]`.
 */
export function createChatCompletionFrames(script: ScriptedScript, context: ScriptContext): WireFrame[] {
  const base = {
    id: createChatCompletionId(),
    object: 'chat.completion.chunk',
    created: unixSeconds(),
    model: context.model,
    service_tier: 'default',
    system_fingerprint: `fp_${randomHex(10)}`,
  };
  const usageField = context.streamUsage ? { usage: null } : {};
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    createFrame({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...usageField,
    });
  const frames = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const delta of contentDeltas(script)) frames.push(chunk(delta));
  frames.push(chunk({}, finishReason(script)));
  if (context.streamUsage)
    frames.push(createFrame({ ...base, choices: [], usage: usageObject(resolveUsage(script)) }));
  frames.push({ data: '[DONE]' });
  return frames;
}
