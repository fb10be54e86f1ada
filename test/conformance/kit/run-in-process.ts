/**
 * Runs the public conformance suite in-process (no test framework): a harness that collects the
 * cases `runAdapterSuite` registers, then runs them one by one and reports which failed and why.
 * The kit's own fault matrix (kit-mutants.test.ts) runs it once per mutant.
 */
import { runAdapterSuite } from '../../../src/testing/index.ts';
import type { AdapterSuiteOptions } from '../../../src/testing/index.ts';

/** One registered case that failed, with its assertion message. */
export interface KitFailure {
  title: string;
  message: string;
}

/** What the suite said about one adapter. */
export interface KitOutcome {
  passed: string[];
  failed: KitFailure[];
}

/** The longest one case may run before it counts as failed (a hang is a failure too). */
const caseTimeoutMs = 10_000;

function withTimeout(body: Promise<void>, title: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${title}: timed out after ${caseTimeoutMs} ms`)),
      caseTimeoutMs,
    );
  });
  return Promise.race([body, timeout]).finally(() => clearTimeout(timer));
}

/** Registers the suite for `options` with an in-process harness and runs every registered case. */
export async function runKitInProcess(options: Omit<AdapterSuiteOptions, 'harness'>): Promise<KitOutcome> {
  const cases: Array<{ title: string; body: () => Promise<void> }> = [];
  const before: Array<() => Promise<void>> = [];
  const after: Array<() => Promise<void>> = [];
  runAdapterSuite({
    ...options,
    harness: {
      describe: (_name, body) => body(),
      it: (title, body) => cases.push({ title, body }),
      beforeAll: (body) => before.push(body),
      afterAll: (body) => after.push(body),
    },
  });
  const outcome: KitOutcome = { passed: [], failed: [] };
  try {
    for (const body of before) await body();
    for (const { title, body } of cases) {
      try {
        await withTimeout(body(), title);
        outcome.passed.push(title);
      } catch (error) {
        outcome.failed.push({ title, message: error instanceof Error ? error.message : String(error) });
      }
    }
  } finally {
    for (const body of after) await body();
  }
  return outcome;
}
