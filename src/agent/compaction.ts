/** Compaction before a turn: strategies that shrink the transcript, keeping tool pairs and instructions intact. */
import type { AdapterSession } from '../core/adapter.ts';
import type { Item, Part } from '../core/transcript.ts';
import { totalInputTokens, type Usage } from '../core/usage.ts';
import type { AgentEvent, ModelClient } from './types.ts';

/** What a strategy may use: the turn's model and client (summaries), and the run's signal. */
export interface StrategyContext {
  client: ModelClient;
  model: string;
  /** The agent's client for another model id (e.g. a cheaper summarizer). */
  clientFor(model: string): ModelClient;
  signal: AbortSignal;
  session: AdapterSession;
  /**
   * Counts a model call a strategy made (a summary) in the run's usage, cost and budget. Strategies
   * that call a model must report every response here, kept or not.
   */
  charge?(usage: Usage, model: string): void;
}

/** One way to shrink a transcript. Must return a transcript whose tool calls and results still pair up. */
export interface CompactionStrategy {
  readonly name: string;
  apply(transcript: readonly Item[], context: StrategyContext): Item[] | Promise<Item[]>;
}

/** When and how to compact. */
export interface CompactionOptions {
  /** Applied in order until the transcript is under the threshold. */
  strategies: CompactionStrategy[];
  /** The model's context window in tokens. */
  contextWindow: number;
  /** Fraction of the window that triggers compaction. Default 0.8. */
  threshold?: number;
  /** Token estimate of a transcript. Default: characters / 4 (media counted as 1 000). */
  estimateTokens?: (transcript: readonly Item[]) => number;
}

/** Characters / 4 over text, reasoning, tool inputs and outputs; media and files count 1 000 each. */
export function estimateTranscriptTokens(transcript: readonly Item[]): number {
  let characters = 0;
  let media = 0;
  const visit = (part: Part) => {
    switch (part.type) {
      case 'text':
      case 'reasoning':
        characters += part.text.length;
        break;
      case 'tool-call':
        characters += part.name.length + JSON.stringify(part.input).length;
        break;
      case 'tool-result':
        if (part.output.type === 'text') characters += part.output.text.length;
        else if (part.output.type === 'json') characters += JSON.stringify(part.output.value).length;
        else part.output.parts.forEach(visit);
        break;
      case 'structured':
        characters += JSON.stringify(part.value).length;
        break;
      case 'custom':
        characters += JSON.stringify(part.data).length;
        break;
      default:
        media += 1;
    }
  };
  for (const item of transcript) item.parts.forEach(visit);
  return Math.ceil(characters / 4) + media * 1000;
}

const instructionKinds = new Set(['system', 'developer', 'context']);

/** Whether an item is an instruction (system, developer, context): never compacted away. */
export function isInstruction(item: Item): boolean {
  return instructionKinds.has(item.kind);
}

/** What `compactIfNeeded` is given by the loop. */
export interface CompactionRun {
  options: CompactionOptions;
  client: ModelClient;
  model: string;
  clientFor(model: string): ModelClient;
  /** Usage of the last response, when it still describes the transcript. */
  lastUsage: Usage | undefined;
  signal: AbortSignal;
  session: AdapterSession;
  emit(event: AgentEvent): void;
  /** Adds a strategy's model call (a summary) to the run's usage and cost. */
  charge?(usage: Usage, model: string): void;
}

/** Applies strategies while the transcript is above the threshold; `undefined` when nothing changed. */
export async function compactIfNeeded(
  transcript: readonly Item[],
  run: CompactionRun,
): Promise<Item[] | undefined> {
  const { options } = run;
  const estimate = options.estimateTokens ?? estimateTranscriptTokens;
  const limit = options.contextWindow * (options.threshold ?? 0.8);
  const measured = run.lastUsage === undefined ? 0 : totalInputTokens(run.lastUsage) + run.lastUsage.output;
  let tokens = Math.max(measured, estimate(transcript));
  if (tokens < limit) return undefined;
  let current: Item[] = [...transcript];
  const context: StrategyContext = {
    client: run.client,
    model: run.model,
    clientFor: run.clientFor,
    signal: run.signal,
    session: run.session,
    ...(run.charge === undefined ? {} : { charge: run.charge }),
  };
  for (const strategy of options.strategies) {
    const next = await strategy.apply(current, context);
    const after = estimate(next);
    run.emit({ type: 'compaction', strategy: strategy.name, tokensBefore: tokens, tokensAfter: after });
    current = next;
    tokens = after;
    if (tokens < limit) break;
  }
  return current;
}
