/**
 * Usage per model (#18 point 12): an Anthropic response whose `usage.iterations` hold another
 * model's turns (an Opus advisor under a Sonnet executor; the model a fallback replaced) keeps
 * each model's buckets apart (`usage.byModel`), prices each at its own model's rate, and reports
 * the sum as `usage.cost`. Compaction iterations of the same model stay summed at top level.
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUsage } from '../../src/conversation/helpers.ts';
import { userText } from '../../src/core/transcript.ts';
import { computeCost } from '../../src/pricing/cost.ts';
import { createPriceTable, reprice } from '../../src/pricing/price-table.ts';
import type { Switchyard } from '../../src/switchyard.ts';
import type { Emulator } from '../../src/testing/emulator/index.ts';
import { startEmulatedSwitchyard } from '../support/emulated.ts';
import { recordedDir } from '../support/fixtures.ts';

let emulator: Emulator;
let sy: Switchyard;
let close: () => Promise<void>;
const table = createPriceTable();
beforeAll(async () => {
  ({
    emulator,
    switchyard: sy,
    close,
  } = await startEmulatedSwitchyard({
    prices: table,
    adapters: { anthropic: 'anthropic' },
    apiKey: 'per-model-key-0123',
  }));
});
afterAll(() => close());

async function replay(file: string) {
  emulator.enqueue({
    type: 'replay',
    file: resolve(recordedDir, 'anthropic', file),
    protocol: 'anthropic-messages',
  });
  return sy.complete({ model: 'anthropic:claude-sonnet-4-6', transcript: [userText('Design it')] });
}

describe('usage per model', () => {
  it('advisor: the Sonnet executor at top level, the Opus advisor apart, each at its own rate, cost the sum', async () => {
    const reply = await replay('anthropic-advisor-20260301.1.json');
    const { byModel, cost, serviceTier, ...own } = reply.usage;
    expect(own).toEqual({ input: 2414, cacheRead: 0, cacheWrite: 0, output: 3200, reasoning: 0 });
    expect(serviceTier).toBe('standard');
    const advisor = byModel?.['anthropic:claude-opus-4-7'];
    expect(advisor).toMatchObject({ input: 2728, output: 874 });
    const executorCost = computeCost(own, table.lookup('anthropic:claude-sonnet-4-6')!, table.version)!;
    const advisorCost = computeCost(advisor!, table.lookup('anthropic:claude-opus-4-7')!, table.version)!;
    expect(advisor!.cost?.amount).toBeCloseTo(advisorCost.amount, 9);
    expect(cost?.amount).toBeCloseTo(executorCost.amount + advisorCost.amount, 9);
    // Before: one sum of every iteration priced at the executor's rate.
    const summed = computeCost(
      { ...own, input: 2414 + 2728, output: 3200 + 874 },
      table.lookup('anthropic:claude-sonnet-4-6')!,
      table.version,
    )!;
    expect(cost!.amount).toBeGreaterThan(summed.amount);
  });

  it('compaction iterations of the same model stay summed at top level, no byModel', async () => {
    const reply = await replay('anthropic-compaction.1.json');
    expect(reply.usage.byModel).toBeUndefined();
    expect(reply.usage.input).toBe(60385 + 682);
    expect(reply.usage.output).toBe(592 + 1320);
  });

  it('reprice and addUsage keep the per-model shares (backwards compatible: optional field)', async () => {
    const reply = await replay('anthropic-advisor-20260301.1.json');
    const repriced = reprice(reply.usage, 'anthropic:claude-sonnet-4-6', table);
    expect(repriced.cost?.amount).toBeCloseTo(reply.usage.cost!.amount, 9);
    const twice = addUsage(reply.usage, reply.usage);
    expect(twice.byModel?.['anthropic:claude-opus-4-7']?.input).toBe(2728 * 2);
    expect(twice.cost?.amount).toBeCloseTo(reply.usage.cost!.amount * 2, 9);
  });
});
