/** Synthesizes Gemini `generateContent` answers and `streamGenerateContent` chunks (SSE or JSON array). */
import { createFrame, type WireFrame } from '../frames.ts';
import { createGeminiResponseId, createSignature } from '../ids.ts';
import type { ScriptedContent, ScriptedScript } from '../types.ts';
import { chunkText, type ResolvedUsage, resolveUsage, type ScriptContext } from './shared.ts';

type Part = Record<string, unknown>;

function usageMetadata(usage: ResolvedUsage): Record<string, unknown> {
  const promptTokens = usage.input + usage.cacheRead;
  const metadata: Record<string, unknown> = {
    promptTokenCount: promptTokens,
    candidatesTokenCount: usage.output,
    totalTokenCount: promptTokens + usage.output + usage.reasoning,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: promptTokens }],
  };
  if (usage.cacheRead > 0) metadata.cachedContentTokenCount = usage.cacheRead;
  if (usage.reasoning > 0) metadata.thoughtsTokenCount = usage.reasoning;
  return metadata;
}

/**
 * Gemini 3 signs the first `functionCall` of every response; when the script gives that call no
 * signature and the model is a Gemini 3 one, a generated signature stands in for it.
 */
function signedContent(script: ScriptedScript, model: string): ScriptedContent[] {
  const firstCall = script.content.findIndex((part) => part.type === 'tool-call');
  const first = script.content[firstCall];
  if (!model.includes('gemini-3') || first?.type !== 'tool-call' || first.signature !== undefined) {
    return script.content;
  }
  return script.content.map((part, index) =>
    index === firstCall ? { ...first, signature: createSignature() } : part,
  );
}

function functionCallPart(part: ScriptedContent & { type: 'tool-call' }): Part {
  const functionCall = { name: part.name, args: part.input };
  return part.signature === undefined ? { functionCall } : { functionCall, thoughtSignature: part.signature };
}

function wholeParts(content: ScriptedContent[]): Part[] {
  return content.map((part) => {
    if (part.type === 'text') return { text: part.text };
    if (part.type === 'reasoning') {
      const thought: Part = { text: part.text, thought: true };
      if (part.signature !== undefined) thought.thoughtSignature = part.signature;
      return thought;
    }
    return functionCallPart(part);
  });
}

function streamedParts(content: ScriptedContent[], chunkSize: number | undefined): Part[] {
  return content.flatMap((part): Part[] => {
    if (part.type === 'tool-call') return [functionCallPart(part)];
    const pieces = chunkText(part.text, chunkSize);
    if (part.type === 'text') return pieces.map((text) => ({ text }));
    return pieces.map((text, index) => {
      const thought: Part = { text, thought: true };
      if (index === pieces.length - 1 && part.signature !== undefined)
        thought.thoughtSignature = part.signature;
      return thought;
    });
  });
}

/** The non-streaming `GenerateContentResponse`. */
export function createGeminiResponse(script: ScriptedScript, context: ScriptContext): object {
  const parts = wholeParts(signedContent(script, context.model));
  return {
    candidates: [
      { content: { parts, role: 'model' }, finishReason: script.finishReason ?? 'STOP', index: 0 },
    ],
    usageMetadata: usageMetadata(resolveUsage(script)),
    modelVersion: context.model,
    responseId: createGeminiResponseId(),
  };
}

/**
 * The streamed sequence: one chunk per text piece, thought piece (`thought: true`, the signature on the
 * last piece) and whole `functionCall` part, then a final chunk with an empty text part, `finishReason`
 * and `usageMetadata`. No `[DONE]`.
 */
export function createGeminiFrames(script: ScriptedScript, context: ScriptContext): WireFrame[] {
  const usage = usageMetadata(resolveUsage(script));
  const responseId = createGeminiResponseId();
  const chunk = (parts: Part[], finishReason?: string) => {
    const candidate: Record<string, unknown> = { content: { parts, role: 'model' } };
    if (finishReason !== undefined) candidate.finishReason = finishReason;
    candidate.index = 0;
    return createFrame({
      candidates: [candidate],
      usageMetadata: usage,
      modelVersion: context.model,
      responseId,
    });
  };
  const frames = streamedParts(signedContent(script, context.model), script.chunkSize).map((part) =>
    chunk([part]),
  );
  frames.push(chunk([{ text: '' }], script.finishReason ?? 'STOP'));
  return frames;
}
