/**
 * The figures of an answer cut short by Ctrl-C. The upstream call was aborted, so no usage came
 * back, yet the prompt and the text streamed so far were billed: the chat records an estimate —
 * input counted locally by the model's adapter from what was sent, output from what was received,
 * priced at the model's rates — and shows it marked `~` (an interrupted turn's figures are
 * estimates), never a confident zero.
 */
import type { AnyAgentTool } from '../../agent/tool.ts';
import type { Transcript } from '../../core/transcript.ts';
import { computeCost } from '../../pricing/cost.ts';
import { estimateOutputTokens } from '../../providers/common/token-estimate.ts';
import { toolSpecs } from '../../agent/tool.ts';
import type { Switchyard } from '../../switchyard.ts';
import type { StoredTurn } from './store.ts';

/**
 * `turn` (interrupted) with each count the provider did not report estimated and its cost from
 * those counts; `transcript` is the conversation as the interruption left it (the partial answer
 * last, when any came). A count that cannot be estimated (the adapter cannot load) stays as reported.
 */
export async function estimateInterrupted(
  sy: Switchyard,
  turn: StoredTurn,
  transcript: Transcript,
  tools: readonly AnyAgentTool[],
): Promise<StoredTurn> {
  const answered = transcript.at(-1)?.kind === 'assistant';
  const sent = answered ? transcript.slice(0, -1) : transcript;
  const usage = { ...turn.usage };
  if (usage.input + usage.cacheRead + usage.cacheWrite === 0) {
    try {
      usage.input = await sy.estimateInputTokens({
        model: turn.model,
        transcript: sent,
        ...(tools.length === 0 ? {} : { tools: toolSpecs(tools) }),
      });
    } catch {
      // No estimate: the reported count stands (the turn is still marked as estimated).
    }
  }
  if (answered) usage.output = Math.max(usage.output, estimateOutputTokens(transcript.at(-1)!.parts));
  delete usage.cost;
  return { ...turn, usage, cost: await priceOf(sy, turn.model, usage) };
}

/**
 * USD for `usage` at the model's rates (the config's, else the price table's, for an adapter named
 * otherwise its provider's: `sy.pricesOf`); `undefined` when unpriced.
 */
async function priceOf(
  sy: Switchyard,
  model: string,
  usage: StoredTurn['usage'],
): Promise<number | undefined> {
  let prices;
  try {
    prices = await sy.pricesOf(model);
  } catch {
    prices = sy.prices.lookup(model);
  }
  return prices === undefined ? undefined : computeCost(usage, prices, sy.prices.version)?.amount;
}
