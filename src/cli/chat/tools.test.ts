/** The chat's MCP tools: `[a]lways` sticks, also for a tool whose name had to be rewritten. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createMemoryLogger } from '../../core/logger.ts';
import { createSwitchyard, type Switchyard } from '../../switchyard.ts';
import { type Emulator, startEmulator } from '../../testing/emulator/index.ts';
import { serveTestMcpOverHttp } from '../../../test/support/mcp-server.ts';
import { ChatSession, type ChatView } from './session.ts';
import { connectTools } from './tools.ts';

let emulator: Emulator;
let sy: Switchyard;
let mcp: { url: string; close(): Promise<void> };
beforeAll(async () => {
  emulator = await startEmulator();
  mcp = await serveTestMcpOverHttp();
  sy = createSwitchyard({
    config: {
      adapters: {
        anthropic: { type: 'anthropic', base_url: `${emulator.url}/v1`, api_key: 'k', max_retries: 0 },
      },
    },
    logger: createMemoryLogger(),
  });
});
afterAll(async () => {
  await sy.close();
  await emulator.close();
  await mcp.close();
});

it('[a]lways stops the questions for a tool whose MCP name had to be rewritten (`my.calc_add` → `my_calc_add_<hash>`)', async () => {
  const allowed = new Set<string>();
  const failures: unknown[] = [];
  const { tools, sources } = await connectTools({ 'my.calc': { url: mcp.url } }, allowed, (_, error) =>
    failures.push(error),
  );
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
