/** Runs examples/coding-agent.ts against the emulator: read, approved (or denied) write, model swap, budget. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCodingAgent } from '../../examples/coding-agent.ts';
import { type Emulator, type EmulatorScript, startEmulator } from '../../src/testing/emulator/index.ts';
import { checkTranscript } from '../../src/core/transcript-invariants.ts';
import { repoRoot } from '../support/fixtures.ts';
import { emulatedAdapters } from '../support/emulated.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

const buggy = 'export const add = (a: number, b: number) => a - b;\n';
const fixed = 'export const add = (a: number, b: number) => a + b;\n';

function scriptFix(usage = { input: 1200, output: 80 }, turns = 3) {
  const scripts: EmulatorScript[] = [
    {
      type: 'scripted',
      content: [
        { type: 'text', text: 'Let me read it.' },
        { type: 'tool-call', name: 'read_file', input: { path: 'src/add.ts' } },
      ],
      usage,
    },
    {
      type: 'scripted',
      content: [{ type: 'tool-call', name: 'write_file', input: { path: 'src/add.ts', content: fixed } }],
      usage,
    },
    { type: 'scripted', content: [{ type: 'text', text: 'Fixed: add now adds.' }], usage },
  ];
  for (const script of scripts.slice(0, turns)) emulator.enqueue(script);
}

function run(approve: boolean) {
  const files = new Map([['src/add.ts', buggy]]);
  const options = {
    files,
    approve: () => approve,
    config: {
      builtins: false,
      adapters: emulatedAdapters(
        emulator.url,
        { anthropic: 'anthropic', openai: 'openai' },
        'test-key-example',
      ),
    },
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
    // Priced by the front door from its price table: Sonnet 4.5 $3/$15, GPT-4.1 mini $0.40/$1.60 per million.
    expect(outcome.turns.map((turn) => turn.cost)).toEqual([
      expect.closeTo((1200 * 3 + 80 * 15) / 1e6, 9),
      expect.closeTo((1200 * 0.4 + 80 * 1.6) / 1e6, 9),
      expect.closeTo((1200 * 0.4 + 80 * 1.6) / 1e6, 9),
    ]);
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
    scriptFix({ input: 60_000, output: 5_000 }, 1);
    const { files, result } = run(true);
    const outcome = await result;
    expect(outcome.outcome).toBe('budget_exceeded');
    expect(outcome.turns).toHaveLength(1);
    expect(outcome.cost).toBeCloseTo((60_000 * 3 + 5_000 * 15) / 1e6);
    expect(files.get('src/add.ts')).toBe(buggy);
  });

  it('is under 60 lines', () => {
    expect(
      readFileSync(join(repoRoot, 'examples/coding-agent.ts'), 'utf8').trimEnd().split('\n').length,
    ).toBeLessThan(60);
  });
});
