/** One way to define tools: `tool()` makes request tools and, with `execute`, agent tools — one type, `Tool`. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toolResultItem } from '../conversation/helpers.ts';
import { toolCallId } from '../core/ids.ts';
import { tool } from '../schemas/structured.ts';
import { createScriptedAdapter } from '../testing/scripted-adapter.ts';
import { createAgent } from './agent.ts';
import { call, text } from './test-support.ts';
import { toolOutput } from './tool.ts';

const definition = {
  name: 'read_file',
  description: 'Read a file',
  input: z.object({ path: z.string() }),
  execute: ({ path }: { path: string }, context: { callId: string; turn: number }) =>
    `contents of ${path} (${context.callId}, turn ${context.turn})`,
  timeoutMs: 5_000,
};

describe('tool() is the one helper, Tool the one type', () => {
  it('gives the spec, validation, execute, approval and timeout in one object', async () => {
    const readFile = tool(definition);
    expect(readFile.timeoutMs).toBe(5_000);
    expect(await readFile.validate({ path: 'a' })).toEqual({ ok: true, value: { path: 'a' } });
    expect(await readFile.validate({ path: 1 })).toMatchObject({ ok: false });
    await expect(readFile.parse({})).rejects.toThrow(/read_file: invalid input: path/);
  });

  it('execute by hand needs no context, or part of one; what it returns is a tool result as it is', async () => {
    const readFile = tool(definition);
    expect(await readFile.execute({ path: 'a.ts' })).toBe('contents of a.ts (manual, turn 0)');
    expect(await readFile.execute({ path: 'a.ts' }, { callId: 'c7' })).toBe('contents of a.ts (c7, turn 0)');
    const failing = tool({ name: 'f', input: z.object({}), execute: () => toolOutput.error('nope') });
    const item = toolResultItem([
      { call: { id: toolCallId('c1'), name: 'read_file' }, output: await readFile.execute({ path: 'b.ts' }) },
      { call: { id: toolCallId('c2'), name: 'f' }, output: await failing.execute({}) },
    ]);
    expect(item.parts).toMatchObject([
      { output: { type: 'text', text: 'contents of b.ts (manual, turn 0)' }, isError: false },
      { output: { type: 'text', text: 'nope' }, isError: true },
    ]);
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
      parts: [
        {
          type: 'tool-result',
          callId: 'c1',
          output: { type: 'text', text: 'contents of a.ts (c1, turn 1)' },
        },
      ],
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
