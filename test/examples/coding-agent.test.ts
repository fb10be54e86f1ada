/** Runs examples/coding-agent.ts against the emulator: read, approved (or denied) write, model swap, budget. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCodingAgent } from '../../examples/coding-agent.ts';
import { type Emulator, startEmulator } from '../../src/testing/emulator/index.ts';
import { checkTranscript } from '../../src/core/transcript-invariants.ts';
import { repoRoot } from '../support/fixtures.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
  process.env.ANTHROPIC_API_KEY ??= 'sk-ant-test-key';
  process.env.OPENAI_API_KEY ??= 'sk-test-key';
});
afterAll(async () => {
  await emulator.close();
});

const buggy = 'export const add = (a: number, b: number) => a - b;\n';
const fixed = 'export const add = (a: number, b: number) => a + b;\n';

function scriptFix(usage = { input: 1200, output: 80 }, turns = 3) {
  emulator.enqueue({
    type: 'scripted',
    content: [
      { type: 'text', text: 'Let me read it.' },
      { type: 'tool-call', name: 'read_file', input: { path: 'src/add.ts' } },
    ],
    usage,
  });
  emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'tool-call', name: 'write_file', input: { path: 'src/add.ts', content: fixed } }],
    usage,
  });
  if (turns === 3)
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Fixed: add now adds.' }], usage });
}

function run(approve: boolean) {
  const files = new Map([['src/add.ts', buggy]]);
  const options = {
    files,
    approve: () => approve,
    baseURLs: { anthropic: `${emulator.url}/v1`, openai: `${emulator.url}/v1` },
  };
  return { files, result: runCodingAgent('Fix the bug in src/add.ts.', options) };
}

describe('examples/coding-agent.ts', () => {
  it('reads with the large model, writes with the small one after approval, within budget', async () => {
    scriptFix();
    const { files, result } = run(true);
    const outcome = await result;
    expect(outcome.outcome).toBe('completed');
    expect(outcome.text).toBe('Fixed: add now adds.');
    expect(files.get('src/add.ts')).toBe(fixed);
    expect(outcome.turns.map((turn) => turn.model)).toEqual([
      'anthropic:claude-sonnet-4-5',
      'openai:gpt-4.1-mini',
      'openai:gpt-4.1-mini',
    ]);
    expect(outcome.cost).toBeCloseTo(3 * ((1200 * 3 + 80 * 15) / 1e6));
    expect(checkTranscript(outcome.transcript)).toEqual([]);
  });

  it('a denied write leaves the file alone and tells the model', async () => {
    scriptFix();
    const { files, result } = run(false);
    const outcome = await result;
    expect(files.get('src/add.ts')).toBe(buggy);
    const denial = outcome.transcript
      .flatMap((item) => item.parts)
      .find((part) => part.type === 'tool-result' && part.isError);
    expect(denial).toMatchObject({ output: { type: 'text', text: 'The user denied this tool call.' } });
  });

  it('stops with budget_exceeded when turns cost more than the budget', async () => {
    scriptFix({ input: 50_000, output: 4_000 }, 2);
    const { files, result } = run(true);
    const outcome = await result;
    expect(outcome.outcome).toBe('budget_exceeded');
    expect(outcome.turns).toHaveLength(2);
    expect(files.get('src/add.ts')).toBe(buggy);
  });

  it('is under 60 lines', () => {
    expect(
      readFileSync(join(repoRoot, 'examples/coding-agent.ts'), 'utf8').trimEnd().split('\n').length,
    ).toBeLessThan(60);
  });
});
