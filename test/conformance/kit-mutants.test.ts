/**
 * The conformance kit's own fault matrix: `runAdapterSuite` must fail every one-violation mutant of
 * a correct adapter (test/conformance/kit/mutants.ts), with a message naming the violation, and
 * pass the unmodified adapter. Each mutant runs in-process, only the cases that target it.
 */
import { describe, expect, it } from 'vitest';
import { type SuiteCaseName, suiteCaseNames } from '../../src/testing/index.ts';
import { base, openaiBase } from './kit/mutate.ts';
import { type KitSuite, mutants } from './kit/mutants.ts';
import { runKitInProcess } from './kit/run-in-process.ts';

const suite: KitSuite = { protocol: 'anthropic-messages', model: 'anthropic:claude-sonnet-4-5' };

/** The cases the mutants of one protocol target. */
const targetedIn = (protocol: string): SuiteCaseName[] =>
  suiteCaseNames.filter((name) =>
    Object.values(mutants).some(
      (mutant) => (mutant.suite ?? suite).protocol === protocol && mutant.cases.includes(name),
    ),
  );

describe('conformance kit fault matrix', () => {
  it('passes the unmodified adapter on every case a mutant targets', async () => {
    const targeted = targetedIn(suite.protocol);
    const outcome = await runKitInProcess({
      ...suite,
      name: 'unmodified',
      createAdapter: base,
      only: targeted,
    });
    expect(outcome.failed).toEqual([]);
    expect(outcome.passed.length).toBeGreaterThan(targeted.length);
    const everyCase = await runKitInProcess({ ...suite, name: 'only', createAdapter: base, only: ['text'] });
    expect(everyCase.passed.length, 'only: the skip-list check and the one case').toBe(2);
  });

  it('passes the unmodified OpenAI Chat adapter on every case an OpenAI mutant targets', async () => {
    const outcome = await runKitInProcess({
      protocol: 'openai-chat',
      model: 'openai:gpt-4.1',
      name: 'unmodified openai',
      createAdapter: openaiBase,
      only: targetedIn('openai-chat'),
    });
    expect(outcome.failed).toEqual([]);
  });

  for (const [name, mutant] of Object.entries(mutants)) {
    it(`fails the mutant ${name}, naming the violation`, async () => {
      const outcome = await runKitInProcess({
        ...(mutant.suite ?? suite),
        name: `mutant ${name}`,
        createAdapter: mutant.create,
        only: mutant.cases as SuiteCaseName[],
      });
      expect(outcome.passed.length, 'the targeted cases registered').toBeGreaterThan(0);
      const messages = outcome.failed.map((failure) => failure.message);
      expect(messages.length, `the kit passed the mutant ${name}`).toBeGreaterThan(0);
      expect(
        messages.some((message) => mutant.names.test(message)),
        messages.join('\n---\n'),
      ).toBe(true);
    });
  }
});
