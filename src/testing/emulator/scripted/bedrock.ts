/**
 * Synthesizes Bedrock responses: Converse bodies and their ConverseStream events (as event-stream
 * frames: `event` is the `:event-type`), and InvokeModel streams of Anthropic events wrapped in
 * `chunk` frames (`{"bytes": "<base64>"}`).
 */
import { createFrame, type WireFrame } from '../frames.ts';
import { randomToken } from '../ids.ts';
import type { ScriptedScript } from '../types.ts';
import {
  chunkText,
  hasToolCall,
  type ResolvedContent,
  type ResolvedUsage,
  resolveContent,
  resolveUsage,
} from './shared.ts';

const createToolUseId = () => `tooluse_${randomToken(22)}`;

function stopReason(script: ScriptedScript): string {
  return script.finishReason ?? (hasToolCall(script) ? 'tool_use' : 'end_turn');
}

function usageObject(usage: ResolvedUsage): Record<string, number> {
  const output = usage.output + usage.reasoning;
  return {
    inputTokens: usage.input,
    outputTokens: output,
    totalTokens: usage.input + usage.cacheRead + usage.cacheWrite + output,
    cacheReadInputTokens: usage.cacheRead,
    cacheWriteInputTokens: usage.cacheWrite,
  };
}

function contentBlock(part: ResolvedContent): Record<string, unknown> {
  if (part.type === 'text') return { text: part.text };
  if (part.type === 'reasoning') {
    const reasoningText: Record<string, string> = { text: part.text };
    if (part.signature !== undefined) reasoningText.signature = part.signature;
    return { reasoningContent: { reasoningText } };
  }
  return { toolUse: { toolUseId: part.id, name: part.name, input: part.input } };
}

/** The `converse` body. */
export function createConverseBody(script: ScriptedScript): object {
  return {
    output: {
      message: {
        role: 'assistant',
        content: resolveContent(script.content, createToolUseId).map(contentBlock),
      },
    },
    stopReason: stopReason(script),
    usage: usageObject(resolveUsage(script)),
    metrics: { latencyMs: 120 },
  };
}

function blockDeltas(part: ResolvedContent, chunkSize: number | undefined): Record<string, unknown>[] {
  if (part.type === 'text') return chunkText(part.text, chunkSize).map((text) => ({ text }));
  if (part.type === 'reasoning') {
    const deltas: Record<string, unknown>[] = chunkText(part.text, chunkSize).map((text) => ({
      reasoningContent: { text },
    }));
    if (part.signature !== undefined) deltas.push({ reasoningContent: { signature: part.signature } });
    return deltas;
  }
  return chunkText(JSON.stringify(part.input), chunkSize).map((input) => ({ toolUse: { input } }));
}

/**
 * The ConverseStream sequence, in the recorded order: `messageStart`, per block
 * [`contentBlockStart` for tool calls] `contentBlockDelta`… `contentBlockStop`, `messageStop`,
 * `metadata` (usage).
 */
export function createConverseFrames(script: ScriptedScript): WireFrame[] {
  const frames = [createFrame({ role: 'assistant' }, 'messageStart')];
  resolveContent(script.content, createToolUseId).forEach((part, contentBlockIndex) => {
    if (part.type === 'tool-call')
      frames.push(
        createFrame(
          { contentBlockIndex, start: { toolUse: { toolUseId: part.id, name: part.name } } },
          'contentBlockStart',
        ),
      );
    for (const delta of blockDeltas(part, script.chunkSize))
      frames.push(createFrame({ contentBlockIndex, delta }, 'contentBlockDelta'));
    frames.push(createFrame({ contentBlockIndex }, 'contentBlockStop'));
  });
  frames.push(createFrame({ stopReason: stopReason(script) }, 'messageStop'));
  frames.push(
    createFrame({ usage: usageObject(resolveUsage(script)), metrics: { latencyMs: 120 } }, 'metadata'),
  );
  return frames;
}

/** Anthropic SSE frames → InvokeModel stream `chunk` frames (each event's JSON base64-encoded). */
export function toChunkFrames(frames: WireFrame[]): WireFrame[] {
  return frames.map((frame) => {
    const data = 'raw' in frame ? frame.raw : frame.data;
    return createFrame({ bytes: Buffer.from(data, 'utf8').toString('base64') }, 'chunk');
  });
}
