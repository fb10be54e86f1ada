/** A small coding agent: two tools, an approval before writing, a cost budget and a model swap. */
import { z } from 'zod';
// In your project: from 'switchyard-ai' and 'switchyard-ai/agent'.
import { createSwitchyard, type SwitchyardConfig } from '../src/index.ts';
import { type AgentResult, createAgent, tool, type PendingApproval } from '../src/agent/index.ts';
import { toolOutput } from '../src/agent/index.ts';

export interface CodingAgentOptions {
  files: Map<string, string>;
  /** Asked before every write (`call.input` holds path and content); true lets it happen. */
  approve(call: PendingApproval): boolean;
  /** The front door's configuration (default: every bundled provider, keys from the environment). */
  config?: SwitchyardConfig;
}

export async function runCodingAgent(task: string, options: CodingAgentOptions): Promise<AgentResult> {
  const { files } = options;
  const sy = createSwitchyard({ config: options.config }); // routes by model name and prices every call
  const readFile = tool({
    name: 'read_file',
    description: 'Read a project file',
    input: z.object({ path: z.string() }),
    execute: ({ path }) => files.get(path) ?? toolOutput.error(`No such file: ${path}`),
  });
  const writeFile = tool({
    name: 'write_file',
    description: 'Replace a project file',
    input: z.object({ path: z.string(), content: z.string() }),
    needsApproval: true,
    execute: ({ path, content }) => {
      files.set(path, content);
      return `Wrote ${content.length} characters to ${path}`;
    },
  });
  const agent = createAgent({
    client: sy,
    // Plan with the large model, then let the small one make the edits.
    model: ({ turn }) => (turn === 1 ? 'anthropic:claude-sonnet-4-5' : 'openai:gpt-4.1-mini'),
    instructions: 'You are a careful coding agent. Read a file before changing it.',
    tools: [readFile, writeFile],
    budget: { maxCost: 0.25 }, // USD, from the front door's usage.cost
  });
  let result = await agent.run(task).result();
  while (result.outcome === 'awaiting_approval') {
    const decisions = Object.fromEntries(
      result.pendingApprovals!.map((call) => [call.callId, options.approve(call)]),
    );
    result = await agent.resume(result.state!, decisions).result();
  }
  await sy.close();
  return result;
}

if (import.meta.main) {
  const files = new Map([['src/add.ts', 'export const add = (a: number, b: number) => a - b;\n']]);
  const result = await runCodingAgent('Fix the bug in src/add.ts.', { files, approve: () => true });
  console.log(result.outcome, result.text, files.get('src/add.ts'));
}
