/** One way to define tools: `tool()` makes agent tools with `execute`, and `defineTool` is its alias. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { tool } from '../schemas/structured.ts';
import { createScriptedAdapter } from '../testing/scripted-adapter.ts';
import { createAgent } from './agent.ts';
import { call, text } from './test-support.ts';
import { defineTool } from './tool.ts';

const definition = {
  name: 'read_file',
  description: 'Read a file',
  input: z.object({ path: z.string() }),
  execute: ({ path }: { path: string }) => `contents of ${path}`,
  timeoutMs: 5_000,
};

describe('tool() with execute is an agent tool; defineTool is its alias', () => {
  it('both give the same spec, validation, execute, approval and timeout', async () => {
    const viaTool = tool(definition);
    const viaAlias = defineTool(definition);
    expect(Object.keys(viaAlias).sort()).toEqual(Object.keys(viaTool).sort());
    expect(viaAlias.inputSchema).toEqual(viaTool.inputSchema);
    expect(viaAlias.timeoutMs).toBe(5_000);
    expect(await viaTool.validate({ path: 1 })).toEqual(await viaAlias.validate({ path: 1 }));
    expect(await viaTool.validate({ path: 'a' })).toEqual({ ok: true, value: { path: 'a' } });
    await expect(viaTool.parse({})).rejects.toThrow(/read_file: invalid input: path/);
  });

  it('an agent runs a tool() tool the model asks for', async () => {
    const adapter = createScriptedAdapter([
      { content: [call('c1', 'read_file', { path: 'a.ts' })] },
      { content: [text('Done.')] },
    ]);
    const agent = createAgent({ client: adapter, model: 'scripted:m', tools: [tool(definition)] });
    const result = await agent.run('Read a.ts').result();
    expect(result.outcome).toBe('completed');
    expect(adapter.requests[1]?.transcript.at(-1)).toMatchObject({
      kind: 'tool',
      parts: [{ type: 'tool-result', callId: 'c1', output: { type: 'text', text: 'contents of a.ts' } }],
    });
    expect(adapter.requests[0]?.tools).toEqual([
      {
        name: 'read_file',
        description: 'Read a file',
        inputSchema: expect.objectContaining({ type: 'object' }),
      },
    ]);
  });

  it('a Standard Schema that cannot describe itself needs jsonSchema, named in the error', () => {
    const opaque = {
      '~standard': { version: 1, vendor: 'x', validate: (value: unknown) => ({ value }) },
    } as const;
    expect(() => tool({ name: 'opaque', input: opaque })).toThrow(/tool opaque: .*\(or pass `jsonSchema`\)/);
    expect(tool({ name: 'opaque', input: opaque, jsonSchema: { type: 'object' } }).inputSchema).toEqual({
      type: 'object',
    });
  });
});
