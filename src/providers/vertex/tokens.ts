/** A local estimate of a request's input tokens: each publisher's own calibration of the shared counter. */
import type { TokenEstimateInput } from '../../core/adapter.ts';
import { splitModelId } from '../../core/ids.ts';
import { estimateInputTokens as estimateAnthropic } from '../anthropic/tokens.ts';
import { estimateInputTokens as estimateGemini } from '../gemini/tokens.ts';
import { estimateInputTokens as estimateChat } from '../openai-chat/tokens.ts';
import { findModel } from './publishers.ts';

/** By the model's publisher: Claude by the Anthropic calibration, Chat Completions publishers by theirs, the others by Gemini's. */
export function estimateInputTokens(input: TokenEstimateInput): number {
  // The router asks with the model's id (`provider:name`), whatever the adapter is named; the adapter with the wire name.
  const model = splitModelId(input.model ?? '').name;
  const protocol = findModel(model)?.publisher.protocol;
  if (protocol === 'anthropic-messages') return estimateAnthropic(input);
  return protocol === 'openai-chat' ? estimateChat(input) : estimateGemini(input);
}
