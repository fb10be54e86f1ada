/** Ratios, targets and the three outputs: console tables, results/latest.json, results/latest.md. */
import { mkdir, writeFile } from 'node:fs/promises';
import type { ContenderId } from './contenders/types.ts';
import type { Delivery, Protocol, Scenario } from './payloads.ts';

/** One contender's result in one cell. */
export interface ContenderResult {
  id: ContenderId;
  label: string;
  status: 'ok' | 'skipped' | 'failed';
  /** Why it was skipped or failed. */
  note?: string;
  /** Median CPU µs per token (or fragment). */
  usPerUnit?: number;
  /** Every timed sample, µs per unit. */
  samples?: number[];
  /** Median main-thread CPU µs per unit (excludes GC helper and compiler threads). */
  mainThreadUsPerUnit?: number;
  /** Median wall time of a run, ms. */
  wallMs?: number;
  /** Events/parts consumed per run. */
  events?: number;
  /** Body pieces the raw reader saw per run (median). */
  reads?: number;
}

/** One target: `ratio` ≤ `limit`. */
export interface TargetCheck {
  ratio: 'c/b' | 'c/d' | 'c/e';
  limit: number;
  value: number | undefined;
  /** Undefined when a side of the ratio did not run. */
  pass: boolean | undefined;
}

/** One protocol × scenario × delivery cell. */
export interface CellResult {
  protocol: Protocol;
  scenario: Scenario;
  delivery: Delivery;
  units: number;
  bytes: number;
  contenders: ContenderResult[];
  ratios: Record<'c/a' | 'c/b' | 'c/d' | 'c/e', number | undefined>;
  targets: TargetCheck[];
}

/** Everything a run produced. */
export interface BenchReport {
  meta: Record<string, unknown>;
  notes: string[];
  cells: CellResult[];
}

/** The targets of the issue for one cell (see README “Targets”). */
export function targetsFor(
  protocol: Protocol,
  delivery: Delivery,
): Array<Omit<TargetCheck, 'value' | 'pass'>> {
  const targets: Array<Omit<TargetCheck, 'value' | 'pass'>> = [];
  // Responses (issue 10): ≤ 1.3× the floor, ≤ ½ the official SDK, ≤ ⅕ the AI SDK, in bulk delivery.
  if (protocol === 'responses') {
    if (delivery !== 'bulk') return targets;
    return [
      { ratio: 'c/b', limit: 1.3 },
      { ratio: 'c/d', limit: 0.5 },
      { ratio: 'c/e', limit: 0.2 },
    ];
  }
  if (delivery === 'bulk' || protocol !== 'anthropic') targets.push({ ratio: 'c/b', limit: 1.5 });
  // The issues set the SDK bars for bulk delivery; small-write rows are dominated by socket reads
  // that every contender pays alike, so they are reported without a verdict.
  if (delivery !== 'bulk') return targets;
  targets.push({ ratio: 'c/d', limit: protocol === 'openai' ? 0.5 : 1 });
  targets.push({ ratio: 'c/e', limit: 0.2 });
  return targets;
}

function usOf(cell: Pick<CellResult, 'contenders'>, id: ContenderId): number | undefined {
  const result = cell.contenders.find((contender) => contender.id === id);
  return result?.status === 'ok' ? result.usPerUnit : undefined;
}

/** Fills `ratios` and `targets` from the contenders' medians. */
export function evaluateCell(cell: Omit<CellResult, 'ratios' | 'targets'>): CellResult {
  const c = usOf(cell, 'switchyard');
  const ratio = (other: ContenderId) => {
    const value = usOf(cell, other);
    return c === undefined || value === undefined || value === 0 ? undefined : c / value;
  };
  const ratios = {
    'c/a': ratio('raw-fetch'),
    'c/b': ratio('sse-parse'),
    'c/d': ratio('official-sdk'),
    'c/e': ratio('ai-sdk'),
  };
  const targets = targetsFor(cell.protocol, cell.delivery).map((target) => {
    const value = ratios[target.ratio];
    return { ...target, value, pass: value === undefined ? undefined : value <= target.limit };
  });
  return { ...cell, ratios, targets };
}

const columns: ContenderId[] = ['raw-fetch', 'sse-parse', 'switchyard', 'official-sdk', 'ai-sdk'];
const letters: Record<ContenderId, string> = {
  'raw-fetch': 'a',
  'sse-parse': 'b',
  switchyard: 'c',
  'official-sdk': 'd',
  'ai-sdk': 'e',
};

function formatUs(result: ContenderResult | undefined): string {
  if (result === undefined) return '–';
  if (result.status === 'skipped') return 'skipped';
  if (result.status === 'failed') return 'FAILED';
  const value = result.usPerUnit ?? Number.NaN;
  return value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

function formatRatio(cell: CellResult, key: keyof CellResult['ratios']): string {
  const value = cell.ratios[key];
  if (value === undefined) return '–';
  const target = cell.targets.find((check) => check.ratio === key);
  const text = value.toFixed(2);
  return target === undefined ? text : `${text} ${target.pass ? 'PASS' : 'FAIL'} (≤${target.limit})`;
}

function headerLabels(cells: CellResult[]): string[] {
  const first = cells[0];
  return columns.map((id) => {
    const label = first?.contenders.find((contender) => contender.id === id)?.label ?? id;
    return `(${letters[id]}) ${label}`;
  });
}

function rowsOf(cells: CellResult[]): string[][] {
  return cells.map((cell) => [
    cell.scenario,
    cell.delivery,
    ...columns.map((id) => formatUs(cell.contenders.find((contender) => contender.id === id))),
    formatRatio(cell, 'c/a'),
    formatRatio(cell, 'c/b'),
    formatRatio(cell, 'c/d'),
    formatRatio(cell, 'c/e'),
  ]);
}

const ratioHeaders = ['c/a', 'c/b', 'c/official SDK', 'c/AI SDK'];

/** One plain-text table per protocol. */
export function consoleTables(report: BenchReport): string {
  const blocks: string[] = [];
  for (const protocol of new Set(report.cells.map((cell) => cell.protocol))) {
    const cells = report.cells.filter((cell) => cell.protocol === protocol);
    const header = ['scenario', 'delivery', ...headerLabels(cells), ...ratioHeaders];
    const rows = [header, ...rowsOf(cells)];
    const widths = header.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
    const lines = rows.map((row) => row.map((text, column) => text.padEnd(widths[column] ?? 0)).join('  '));
    lines.splice(1, 0, widths.map((width) => '-'.repeat(width)).join('  '));
    blocks.push(`${protocol} — CPU µs per token (median)\n${lines.join('\n')}`);
  }
  return blocks.join('\n\n');
}

/** The markdown the README embeds: one table per protocol, then the notes. */
export function markdown(report: BenchReport): string {
  const { meta } = report;
  const out = [
    '<!-- generated by `npm run bench`; do not edit -->',
    `CPU µs per token of each contender's own client process: median of all samples (${meta.runs} rounds, fast contenders ` +
      `up to ${meta.maxRepeats} runs a round, after ${meta.warmup} warm-up runs; ${meta.tokens} tokens / ` +
      `fragments per response; GC between runs: ${meta.gc}; Node ${meta.node}, ${meta.cpu}).`,
    `Command: \`${meta.command}\`.`,
    '',
  ];
  for (const protocol of new Set(report.cells.map((cell) => cell.protocol))) {
    const cells = report.cells.filter((cell) => cell.protocol === protocol);
    const header = ['scenario', 'delivery', ...headerLabels(cells), ...ratioHeaders];
    out.push(`### ${protocol}`, '', `| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`);
    for (const row of rowsOf(cells)) out.push(`| ${row.join(' | ')} |`);
    out.push('');
  }
  if (report.notes.length > 0) out.push(...report.notes.map((note) => `- ${note}`), '');
  return out.join('\n');
}

/** Writes results/latest.json and results/latest.md next to this file. */
export async function writeResults(report: BenchReport): Promise<string[]> {
  const directory = new URL('./results/', import.meta.url);
  await mkdir(directory, { recursive: true });
  const json = new URL('latest.json', directory);
  const md = new URL('latest.md', directory);
  await writeFile(json, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(md, markdown(report));
  return [json.pathname, md.pathname];
}
