/** The built-in compaction strategies: drop old reasoning, keep the last N turns, summarize older turns. */
import type { Item, Part } from '../core/transcript.ts';
import { type CompactionStrategy, isInstruction, type StrategyContext } from './compaction.ts';
import { defaultMaxOutputTokens } from './model-call.ts';
import type { ModelClient } from './types.ts';

/** Indices of assistant items, oldest first. */
function assistantIndices(transcript: readonly Item[]): number[] {
  const indices: number[] = [];
  transcript.forEach((item, index) => {
    if (item.kind === 'assistant') indices.push(index);
  });
  return indices;
}

/**
 * Removes reasoning parts from all but the last `keepTurns` assistant items (default 1: the
 * current tool turn keeps its signed reasoning). Assistant items left empty are removed.
 */
export function dropOldReasoning(options: { keepTurns?: number } = {}): CompactionStrategy {
  const keep = Math.max(0, options.keepTurns ?? 1);
  return {
    name: 'drop-old-reasoning',
    apply(transcript) {
      const assistants = assistantIndices(transcript);
      const protectedFrom = assistants.length > keep ? assistants[assistants.length - keep]! : -1;
      const result: Item[] = [];
      transcript.forEach((item, index) => {
        if (
          item.kind !== 'assistant' ||
          (protectedFrom >= 0 && index >= protectedFrom) ||
          keep >= assistants.length
        ) {
          result.push(item);
          return;
        }
        const parts = item.parts.filter((part) => part.type !== 'reasoning');
        if (parts.length > 0) result.push({ ...item, parts });
      });
      return result;
    },
  };
}

/**
 * Where the kept tail starts so that it holds the last `turns` assistant items, the user items
 * right before the first of them, and every tool item after them (tool pairs never split).
 */
function tailStart(transcript: readonly Item[], turns: number): number {
  const assistants = assistantIndices(transcript);
  if (assistants.length <= turns) return 0;
  let start = turns === 0 ? transcript.length : assistants[assistants.length - turns]!;
  while (start > 0 && transcript[start - 1]!.kind === 'user') start--;
  return start;
}

/** Splits a transcript into the kept head (instructions, first user item), the middle, and the tail. */
function split(transcript: readonly Item[], turns: number) {
  const start = tailStart(transcript, turns);
  const firstUser = transcript.findIndex((item) => item.kind === 'user');
  const head: Item[] = [];
  const middle: Item[] = [];
  transcript.slice(0, start).forEach((item, index) => {
    if (isInstruction(item) || index === firstUser) head.push(item);
    else middle.push(item);
  });
  return { head, middle, tail: transcript.slice(start) };
}

function note(text: string, key: string): Item {
  return { kind: 'user', parts: [{ type: 'text', text }], metadata: { [key]: true } };
}

/**
 * Keeps system, developer and context items, the first user item (the task) and the last `turns`
 * model turns with their tool results; a note says how many items were left out.
 */
export function keepLastTurns(turns: number): CompactionStrategy {
  return {
    name: 'keep-last-turns',
    apply(transcript) {
      const { head, middle, tail } = split(transcript, Math.max(0, turns));
      if (middle.length === 0) return [...transcript];
      const omitted = note(
        `[${middle.length} earlier conversation items were removed to fit the context window.]`,
        'switchyard.compacted',
      );
      return [...head, omitted, ...tail];
    },
  };
}

/** Options of {@link summarizeOldTurns}. */
export interface SummarizeOptions {
  /** Model turns kept verbatim. Default 2. */
  keepTurns?: number;
  /** The summarizing model (default: the turn's model). */
  model?: string;
  /** Its client (default: the turn's client). */
  client?: ModelClient;
  /** Instructions for the summary. */
  prompt?: string;
  maxOutputTokens?: number;
}

const defaultPrompt =
  'Summarize the conversation below for the assistant that will continue it: the task, decisions made, facts learned from tools (names, paths, values), and what remains to do. Be concise and factual.';

/** Renders items as plain text, so any provider can summarize them (no tool wiring needed). */
export function renderForSummary(items: readonly Item[]): string {
  const render = (part: Part): string => {
    switch (part.type) {
      case 'text':
        return part.text;
      case 'reasoning':
        return '';
      case 'tool-call':
        return `[called ${part.name} ${JSON.stringify(part.input)}]`;
      case 'tool-result': {
        const output = part.output;
        const body =
          output.type === 'text'
            ? output.text
            : output.type === 'json'
              ? JSON.stringify(output.value)
              : '[parts]';
        return `[${part.isError ? 'tool error' : 'tool result'}: ${body}]`;
      }
      default:
        return `[${part.type}]`;
    }
  };
  return items
    .map(
      (item) =>
        `${item.kind}: ${item.parts
          .map(render)
          .filter((text) => text !== '')
          .join('\n')}`,
    )
    .join('\n\n');
}

/** Replaces turns older than the last `keepTurns` with a summary written by a (configurable) model. */
export function summarizeOldTurns(options: SummarizeOptions = {}): CompactionStrategy {
  return {
    name: 'summarize',
    async apply(transcript, context: StrategyContext) {
      const { head, middle, tail } = split(transcript, Math.max(0, options.keepTurns ?? 2));
      if (middle.length === 0) return [...transcript];
      const model = options.model ?? context.model;
      const client =
        options.client ?? (options.model === undefined ? context.client : context.clientFor(model));
      const stream = client.stream(
        {
          model,
          maxOutputTokens: options.maxOutputTokens ?? defaultMaxOutputTokens(client, model, 1024),
          transcript: [
            { kind: 'system', parts: [{ type: 'text', text: options.prompt ?? defaultPrompt }] },
            { kind: 'user', parts: [{ type: 'text', text: renderForSummary(middle) }] },
          ],
        },
        { signal: context.signal, session: context.session },
      );
      const response = await stream.result();
      // The summary call is paid whether or not it is used: it counts toward cost and budget.
      context.charge?.(response.usage, response.model || model);
      // A cancelled, cut or failed summary must not replace what it summarizes.
      if (
        response.finishReason === 'cancelled' ||
        response.finishReason === 'max-tokens' ||
        response.finishReason === 'error'
      )
        return [...transcript];
      const summary = response.content
        .map((part) => (part.type === 'text' ? part.text : ''))
        .join('')
        .trim();
      if (summary === '') return [...transcript];
      return [
        ...head,
        note(`Summary of the earlier conversation:\n${summary}`, 'switchyard.summary'),
        ...tail,
      ];
    },
  };
}
