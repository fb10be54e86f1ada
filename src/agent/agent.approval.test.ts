import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isInvalidRequestError } from '../core/errors/guards.ts';
import { repoRoot } from '../../test/support/fixtures.ts';
import { approvalTools } from '../../test/support/agent-tools.ts';
import { createScriptedAdapter } from '../testing/scripted-adapter.ts';
import { createAgent } from './agent.ts';
import { checkAgentState, parseAgentState, stringifyAgentState } from './state.ts';
import { call, drain, expectConsistent, resultsById, resultText, text } from './test-support.ts';
import type { AgentResult } from './types.ts';

const run = promisify(execFile);

function pausedRun(logFile: string) {
  const adapter = createScriptedAdapter([
    {
      content: [
        text('Listing, then writing and deleting.'),
        call('c_list', 'list_files', {}),
        call('c_write', 'write_file', { path: 'a.txt', content: 'hello' }),
        call('c_delete', 'delete_file', { path: 'b.txt' }),
        call('c_scratch', 'delete_file', { path: 'scratch.tmp' }),
      ],
      usage: { input: 50, output: 20 },
    },
  ]);
  return createAgent({ client: adapter, model: 'scripted:m', tools: approvalTools(logFile) }).run('Tidy up');
}

describe('approvals', () => {
  it('pauses with a serializable state; a fresh process approves one call and denies another', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'agent-approval-'));
    const logFile = join(directory, 'tools.log');
    writeFileSync(logFile, '');
    const { events, result } = await drain(pausedRun(logFile));

    expect(result.outcome).toBe('awaiting_approval');
    expect(result.pendingApprovals?.map((pending) => pending.callId)).toEqual(['c_write', 'c_delete']);
    expect(events.find((event) => event.type === 'approval-required')).toMatchObject({ turn: 1 });
    expect(
      readFileSync(logFile, 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split(' ').slice(1).join(' ')),
    ).toEqual(['list_files', 'delete_file scratch.tmp']);

    const stateFile = join(directory, 'state.json');
    writeFileSync(stateFile, stringifyAgentState(result.state!));
    const child = await run(
      process.execPath,
      [join(repoRoot, 'test/support/agent-resume-child.ts'), stateFile, logFile],
      {
        cwd: repoRoot,
      },
    );
    const { result: resumed, sent } = JSON.parse(child.stdout) as {
      result: AgentResult;
      sent: AgentResult['transcript'];
    };

    const lines = readFileSync(logFile, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(/^\d+ write_file a\.txt$/);
    expect(lines[2]!.split(' ')[0]).not.toBe(String(process.pid));

    expect(resumed.outcome).toBe('completed');
    expect(resumed.text).toBe('Wrote a.txt; kept b.txt.');
    expect(resumed.turns).toHaveLength(2);
    expect(resumed.usage.input).toBe(50);
    const toolItem = sent.at(-1)!;
    expect(toolItem.kind).toBe('tool');
    expect(toolItem.parts.map((part) => (part.type === 'tool-result' ? part.callId : ''))).toEqual([
      'c_list',
      'c_write',
      'c_delete',
      'c_scratch',
    ]);
    const results = resultsById(resumed.transcript);
    expect(resultText(results.get('c_write'))).toBe('wrote a.txt');
    expect(results.get('c_delete')).toMatchObject({ isError: true });
    expect(resultText(results.get('c_delete'))).toBe('The user denied this tool call: keep b.txt');
    expect(resultText(results.get('c_scratch'))).toBe('deleted scratch.tmp');
    expectConsistent(resumed.transcript);
  });

  it('refuses to resume without a decision for every pending call', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'agent-approval-'));
    const { result } = await drain(pausedRun(join(directory, 'tools.log')));
    const agent = createAgent({ client: createScriptedAdapter([]), model: 'scripted:m' });
    // A run never throws synchronously: it ends at once with outcome `error` naming the call.
    const resumed = await agent.resume(result.state!, { c_write: true }).result();
    expect(resumed.outcome).toBe('error');
    expect(isInvalidRequestError(resumed.error)).toBe(true);
    expect((resumed.error as Error).message).toMatch(/^agent\.resume: .*no decision for call c_delete/);
  });

  it('state round-trips through JSON and rejects a damaged state with the bad path named', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'agent-approval-'));
    const { result } = await drain(pausedRun(join(directory, 'tools.log')));
    const textState = stringifyAgentState(result.state!);
    expect(parseAgentState(textState)).toEqual(JSON.parse(textState));
    expect(Array.isArray(parseAgentState(textState).toolIds)).toBe(true);
    const damaged = JSON.parse(textState);
    damaged.pending[0].callId = '';
    damaged.transcript[0].kind = 'robot';
    expect(() => parseAgentState(JSON.stringify(damaged))).toThrow(/pending\.0\.callId/);
    delete damaged.pending;
    damaged.pending = [];
    expect(() => parseAgentState(JSON.stringify(damaged))).toThrow(/agent state: transcript \[0\]\.kind/);
    expect(() => parseAgentState('{')).toThrow(/invalid JSON/);
  });

  it('a small state nested thousands deep is refused with the documented TypeError, not a RangeError', () => {
    const depth = 2_000;
    const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const state = {
      version: 1,
      transcript: [
        { kind: 'user', parts: [{ type: 'text', text: 'hi' }] },
        { kind: 'assistant', parts: [{ type: 'tool-call', id: 'tu_1', name: 't', input: {} }] },
      ],
      results: [],
      pending: [{ callId: 'tu_1', name: 't', input: { a: '@' } }],
      turns: [],
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      cost: 0,
      maxTokensRecoveries: 0,
      toolIds: [],
    };
    const text = JSON.stringify(state).replace('"@"', nested);
    expect(text.length).toBeLessThan(5_000);
    const thrown = (() => {
      try {
        parseAgentState(text);
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as Error).message).toMatch(/^agent state: pending\.0\.input\.a\..*nested deeper than/);
    const checked = checkAgentState(JSON.parse(text));
    expect(checked.ok).toBe(false);
    expect(JSON.stringify(checked)).toMatch(/nested deeper than/);
  });
});
