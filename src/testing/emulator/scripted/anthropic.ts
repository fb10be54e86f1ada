/** Synthesizes Anthropic Messages responses: a `message` object or its exact SSE event sequence. */
import { createFrame, type WireFrame } from '../frames.ts';
import { createAnthropicMessageId, createAnthropicToolId } from '../ids.ts';
import type { ScriptedScript } from '../types.ts';
import {
  chunkText,
  hasToolCall,
  type ResolvedContent,
  type ResolvedUsage,
  resolveContent,
  resolveUsage,
  type ScriptContext,
} from './shared.ts';

function stopReason(script: ScriptedScript): string {
  return script.finishReason ?? (hasToolCall(script) ? 'tool_use' : 'end_turn');
}

function usageObject(usage: ResolvedUsage, outputTokens: number): Record<string, unknown> {
  return {
    input_tokens: usage.input,
    cache_creation_input_tokens: usage.cacheWrite,
    cache_read_input_tokens: usage.cacheRead,
    output_tokens: outputTokens,
  };
}

function contentBlock(part: ResolvedContent): Record<string, unknown> {
  if (part.type === 'text') return { type: 'text', text: part.text };
  if (part.type === 'reasoning')
    return { type: 'thinking', thinking: part.text, signature: part.signature ?? '' };
  return { type: 'tool_use', id: part.id, name: part.name, input: part.input };
}

/** The non-streaming `message` body. */
export function createAnthropicMessage(script: ScriptedScript, context: ScriptContext): object {
  const usage = resolveUsage(script);
  return {
    id: createAnthropicMessageId(),
    type: 'message',
    role: 'assistant',
    model: context.model,
    content: resolveContent(script.content, createAnthropicToolId).map(contentBlock),
    stop_reason: stopReason(script),
    stop_sequence: null,
    usage: usageObject(usage, usage.output + usage.reasoning),
  };
}

function startBlock(part: ResolvedContent): Record<string, unknown> {
  if (part.type === 'text') return { type: 'text', text: '' };
  if (part.type === 'reasoning') return { type: 'thinking', thinking: '', signature: '' };
  return { type: 'tool_use', id: part.id, name: part.name, input: {} };
}

function blockDeltas(part: ResolvedContent, chunkSize: number | undefined): Record<string, unknown>[] {
  if (part.type === 'text')
    return chunkText(part.text, chunkSize).map((text) => ({ type: 'text_delta', text }));
  if (part.type === 'reasoning') {
    const deltas: Record<string, unknown>[] = chunkText(part.text, chunkSize).map((thinking) => ({
      type: 'thinking_delta',
      thinking,
    }));
    if (part.signature !== undefined) deltas.push({ type: 'signature_delta', signature: part.signature });
    return deltas;
  }
  const fragments = chunkText(JSON.stringify(part.input), chunkSize);
  return ['', ...fragments].map((partialJson) => ({ type: 'input_json_delta', partial_json: partialJson }));
}

function blockFrames(part: ResolvedContent, index: number, chunkSize: number | undefined): WireFrame[] {
  return [
    createFrame(
      { type: 'content_block_start', index, content_block: startBlock(part) },
      'content_block_start',
    ),
    ...blockDeltas(part, chunkSize).map((delta) =>
      createFrame({ type: 'content_block_delta', index, delta }, 'content_block_delta'),
    ),
    createFrame({ type: 'content_block_stop', index }, 'content_block_stop'),
  ];
}

/**
 * The streamed sequence: `message_start`, then per block `content_block_start`, deltas
 * (`text_delta`, `thinking_delta` + `signature_delta`, `input_json_delta`) and `content_block_stop`
 * (a `ping` after the first start, as the API does), then `message_delta` and `message_stop`.
 */
export function createAnthropicFrames(script: ScriptedScript, context: ScriptContext): WireFrame[] {
  const usage = resolveUsage(script);
  const message = {
    model: context.model,
    id: createAnthropicMessageId(),
    type: 'message',
    role: 'assistant',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: usageObject(usage, 1),
  };
  const frames = [createFrame({ type: 'message_start', message }, 'message_start')];
  resolveContent(script.content, createAnthropicToolId).forEach((part, index) => {
    const partFrames = blockFrames(part, index, script.chunkSize);
    if (index === 0) partFrames.splice(1, 0, createFrame({ type: 'ping' }, 'ping'));
    frames.push(...partFrames);
  });
  const delta = { stop_reason: stopReason(script), stop_sequence: null };
  const finalUsage = usageObject(usage, usage.output + usage.reasoning);
  frames.push(createFrame({ type: 'message_delta', delta, usage: finalUsage }, 'message_delta'));
  frames.push(createFrame({ type: 'message_stop' }, 'message_stop'));
  return frames;
}
