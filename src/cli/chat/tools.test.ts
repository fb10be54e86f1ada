/** The chat's MCP tools: `[a]lways` sticks, also for a tool whose name had to be rewritten. */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { repoRoot } from '../../../test/support/fixtures.ts';
import type { Switchyard } from '../../switchyard.ts';
import type { Emulator } from '../../testing/emulator/index.ts';
import { startEmulatedSwitchyard } from '../../../test/support/emulated.ts';
import { serveTestMcpOverHttp } from '../../../test/support/mcp-server.ts';
import { ChatSession, type ChatView } from './session.ts';
import { connectTools } from './tools.ts';

let emulator: Emulator;
let sy: Switchyard;
let close: () => Promise<void>;
let mcp: { url: string; close(): Promise<void> };
beforeAll(async () => {
  ({
    emulator,
    switchyard: sy,
    close,
  } = await startEmulatedSwitchyard({
    adapters: { anthropic: 'anthropic' },
    apiKey: 'k',
    config: { builtins: true },
  }));
  mcp = await serveTestMcpOverHttp();
});
afterAll(async () => {
  await close();
  await mcp.close();
});

it('[a]lways stops the questions for a tool whose MCP name had to be rewritten (`my.calc_add` → `my_calc_add_<hash>`)', async () => {
  const allowed = new Set<string>();
  const failures: unknown[] = [];
  const { tools, sources } = await connectTools({ 'my.calc': { url: mcp.url } }, allowed, {
    failed: (_, error) => failures.push(error),
    warn: (message) => failures.push(message),
  });
  try {
    expect(failures).toEqual([]);
    const add = tools.find((tool) => tool.name.startsWith('my_calc_add_'))!.name;
    const asked: string[] = [];
    const view: ChatView = {
      event: () => {},
      approve: async (pending) => {
        asked.push(...pending.map((call) => call.name));
        return Object.fromEntries(pending.map((call) => [call.callId, 'always' as const]));
      },
    };
    const session = new ChatSession({ sy, model: 'sonnet', tools, allowed });
    for (const sum of [3, 7]) {
      emulator.enqueue({
        type: 'scripted',
        content: [{ type: 'tool-call', name: add, input: { a: 1, b: sum - 1 } }],
      });
      emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: `${sum}` }] });
      expect((await session.send([{ type: 'text', text: 'add' }], view)).outcome).toBe('completed');
    }
    expect(asked).toEqual([add]); // Asked once: the second call ran without a question.
    expect([...allowed]).toEqual([add]);
  } finally {
    await Promise.all(sources.map((source) => source.close()));
  }
});

it('two MCP tools of one name (one server listing it twice, or `fs` + `x_read` beside `fs_x` + `read`): the later is left out with a warning naming both servers, and every message is still answered', async () => {
  const listing = (...names: string[]) => ({
    command: process.execPath,
    args: [join(repoRoot, 'test/support/mcp-listing-server.ts'), ...names],
  });
  const warnings: string[] = [];
  const failures: unknown[] = [];
  const { tools, sources } = await connectTools(
    { fs: listing('x_read'), fs_x: listing('read'), notes: listing('lookup', 'lookup') },
    new Set(),
    { failed: (_, error) => failures.push(error), warn: (message) => warnings.push(message) },
  );
  try {
    expect(failures).toEqual([]);
    expect(tools.map((tool) => [tool.name, tool.description])).toEqual([
      ['fs_x_read', 'tool 0'],
      ['notes_lookup', 'tool 0'],
    ]);
    expect(warnings).toEqual([
      "MCP servers fs and fs_x both have a tool named fs_x_read: fs_x's is not offered",
      'MCP server notes lists two tools named notes_lookup: the second is not offered',
    ]);
    const session = new ChatSession({ sy, model: 'sonnet', tools, allowed: new Set() });
    const view: ChatView = { event: () => {}, approve: async () => ({}) };
    for (const answer of ['one', 'two']) {
      emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: answer }] });
      const exchange = await session.send([{ type: 'text', text: 'hi' }], view);
      expect(exchange.outcome).toBe('completed');
    }
  } finally {
    await Promise.all(sources.map((source) => source.close()));
  }
});
