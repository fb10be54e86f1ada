/** Numbers as the chat shows them: the status line after each message, `/cost`, and model rows with prices and limits. */
import type { ModelPrices, Rate } from '../../pricing/types.ts';
import type { ModelListing } from '../../registry/registry.ts';
import type { Switchyard } from '../../switchyard.ts';
import type { StoredTurn } from './store.ts';

/** `$0.000213`: six decimals below a cent, four above; `$?` for an unpriced amount. */
export function usd(amount: number | undefined): string {
  if (amount === undefined) return '$?';
  return `$${amount.toFixed(amount !== 0 && Math.abs(amount) < 0.01 ? 6 : 4)}`;
}

/** {@link usd}, read `~$0.0042` when `estimated` (a total with an interrupted turn's estimate in it). */
export function usdAbout(amount: number | undefined, estimated: boolean): string {
  return `${estimated ? '~' : ''}${usd(amount)}`;
}

/** `1,234`. */
export function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** `200k`, `1M`, `?` for unknown (0). */
export function tokens(value: number): string {
  if (value === 0) return '?';
  if (value >= 1_000_000) return `${+(value / 1_000_000).toFixed(1)}M`;
  if (value >= 1000) return `${+(value / 1000).toFixed(1)}k`;
  return String(value);
}

/** Sum of the priced turns (unpriced ones count as nothing, and are flagged by `usd(undefined)` per turn). */
export function totalCost(turns: readonly StoredTurn[]): number {
  let total = 0;
  for (const turn of turns) total += turn.cost ?? 0;
  return total;
}

/** What the status line shows after one message. */
export interface StatusInput {
  model: string;
  /** The model calls of this message. */
  turns: readonly StoredTurn[];
  /** Every turn of the conversation. */
  all: readonly StoredTurn[];
  contextWindow: number;
}

/**
 * `sonnet · in 1,234 out 56 · cache r 0 w 0 · $0.004200 this turn · $0.012300 total · context 1% of 200k`
 * (cache figures only when present; the context share from the last call's input and output). An
 * interrupted turn's figures are estimates (`estimate.ts`): the numbers they go into read `~1,234`.
 */
export function statusLine(status: StatusInput): string {
  let input = 0;
  let output = 0;
  let cacheRead = 0;
  let cacheWrite = 0;
  let cost = 0;
  for (const turn of status.turns) {
    input += turn.usage.input;
    output += turn.usage.output;
    cacheRead += turn.usage.cacheRead;
    cacheWrite += turn.usage.cacheWrite;
    cost += turn.cost ?? 0;
  }
  const unpriced = status.turns.some((turn) => turn.cost === undefined);
  const about = status.turns.some((turn) => turn.interrupted === true) ? '~' : '';
  const parts = [status.model, `in ${about}${count(input)} out ${about}${count(output)}`];
  if (cacheRead > 0 || cacheWrite > 0) parts.push(`cache r ${count(cacheRead)} w ${count(cacheWrite)}`);
  const priced = status.turns.some((turn) => turn.cost !== undefined);
  const shown = !unpriced ? usd(cost) : priced ? `${usd(cost)} + unpriced` : usd(undefined);
  const estimatedAll = status.all.some((turn) => turn.interrupted === true);
  parts.push(`${about}${shown} this turn`, `${usdAbout(totalCost(status.all), estimatedAll)} total`);
  const last = status.turns.at(-1)?.usage;
  if (last !== undefined && status.contextWindow > 0) {
    const used = last.input + last.cacheRead + last.cacheWrite + last.output;
    parts.push(
      `context ${Math.round((used / status.contextWindow) * 100)}% of ${tokens(status.contextWindow)}`,
    );
  }
  return parts.join(' · ');
}

/** The `/cost` table: one row per model call, then the total. */
export function costTable(turns: readonly StoredTurn[]): string[] {
  if (turns.length === 0) return ['no turns yet'];
  const rows = turns.map((turn, index) => [
    String(index + 1),
    turn.model,
    count(turn.usage.input + turn.usage.cacheRead + turn.usage.cacheWrite),
    count(turn.usage.output),
    turn.interrupted === true ? `~${usd(turn.cost)} (interrupted, estimated)` : usd(turn.cost),
  ]);
  const estimated = turns.some((turn) => turn.interrupted === true);
  return table([
    ['#', 'model', 'in', 'out', 'cost'],
    ...rows,
    ['', 'total', '', '', usdAbout(totalCost(turns), estimated)],
  ]);
}

/** Left-aligned columns. */
export function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd(),
  );
}

function rate(value: Rate | undefined): number | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'number' ? value : value.base;
}

/** A model row: id, aliases, window, output limit, USD per million tokens in and out, configured. */
export interface ModelRow {
  id: string;
  provider: string;
  aliases: string[];
  contextWindow: number;
  maxOutputTokens: number;
  inputPerMillion?: number;
  outputPerMillion?: number;
  configured: boolean;
}

/**
 * The rows of `listings`, priced as their calls are (`sy.pricesOf`: the config's overrides, then the
 * price table, under the provider's own name for an adapter named otherwise).
 */
export async function modelRows(sy: Switchyard, listings: readonly ModelListing[]): Promise<ModelRow[]> {
  return Promise.all(listings.map(async (listing) => modelRow(listing, await pricesOf(sy, listing.id))));
}

async function pricesOf(sy: Switchyard, id: string): Promise<ModelPrices | undefined> {
  try {
    return await sy.pricesOf(id);
  } catch {
    return sy.prices.lookup(id);
  }
}

function modelRow(listing: ModelListing, prices: ModelPrices | undefined): ModelRow {
  const row: ModelRow = {
    id: listing.id,
    provider: listing.provider,
    aliases: listing.aliases,
    contextWindow: listing.facts.contextWindow,
    maxOutputTokens: listing.facts.maxOutputTokens,
    configured: listing.configured,
  };
  const input = rate(prices?.input_mtok);
  const output = rate(prices?.output_mtok);
  if (input !== undefined) row.inputPerMillion = input;
  if (output !== undefined) row.outputPerMillion = output;
  return row;
}

/** The rows as a text table. */
export function modelTable(rows: readonly ModelRow[]): string[] {
  const price = (value: number | undefined) => (value === undefined ? '?' : `$${+value.toFixed(4)}`);
  return table([
    ['model', 'aliases', 'context', 'output', 'in/Mtok', 'out/Mtok', 'configured'],
    ...rows.map((row) => [
      row.id,
      row.aliases.join(',') || '-',
      tokens(row.contextWindow),
      tokens(row.maxOutputTokens),
      price(row.inputPerMillion),
      price(row.outputPerMillion),
      row.configured ? 'yes' : 'no',
    ]),
  ]);
}
