/** Child process of the approval test: resumes a paused run from a state file, in a fresh process. */
import { readFileSync } from 'node:fs';
import { createAgent, parseAgentState } from '../../src/agent/index.ts';
import { createScriptedAdapter } from '../../src/testing/scripted-adapter.ts';
import { approvalTools } from './agent-tools.ts';

const [stateFile, logFile] = process.argv.slice(2) as [string, string];
const state = parseAgentState(readFileSync(stateFile, 'utf8'));
const adapter = createScriptedAdapter([{ content: [{ type: 'text', text: 'Wrote a.txt; kept b.txt.' }] }]);
const agent = createAgent({ client: adapter, model: 'scripted:m', tools: approvalTools(logFile) });
const [write, remove] = state.pending;
const result = await agent
  .resume(state, { [write!.callId]: true, [remove!.callId]: { approved: false, reason: 'keep b.txt' } })
  .result();
process.stdout.write(JSON.stringify({ result, sent: adapter.requests[0]?.transcript }));
