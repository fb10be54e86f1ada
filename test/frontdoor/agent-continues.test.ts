/**
 * A continuing agent conversation carries its own tool-id map (issue #19): a run continues a
 * previous run's result — on another provider, then back — with `run(input, { continues: result })`,
 * public API only (no `createSession()`), and a call Anthropic issued goes back to Anthropic with
 * the id Anthropic gave it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryLogger, createSwitchyard, tool, type Switchyard } from 'switchyard-ai';
import { type AgentResult, createAgent } from 'switchyard-ai/agent';
import { startEmulator, type Emulator } from 'switchyard-ai/testing';

let emulator: Emulator;
let sy: Switchyard;
beforeAll(async () => {
  emulator = await startEmulator();
  sy = createSwitchyard({
    env: {
      ANTHROPIC_API_KEY: 'test-key-continues',
      ANTHROPIC_BASE_URL: emulator.url,
      OPENAI_API_KEY: 'test-key-continues',
      OPENAI_BASE_URL: `${emulator.url}/v1`,
    },
    logger: createMemoryLogger(),
  });
});
afterAll(async () => {
  await sy.close();
  await emulator.close();
});

const lookup = tool({
  name: 'lookup',
  input: z.object({ q: z.string() }),
  execute: ({ q }) => `answer to ${q}`,
});
const claude = () => createAgent({ client: sy, model: 'anthropic:claude-sonnet-4-5', tools: [lookup] });
const gpt = () => createAgent({ client: sy, model: 'openai:gpt-4.1-mini', tools: [lookup] });

/** The ids of the tool_use blocks in the last request Anthropic got. */
function lastAnthropicToolUseIds(): string[] {
  const request = emulator.requests.findLast((recorded) => recorded.protocol === 'anthropic-messages')!;
  const body = request.body as { messages: Array<{ content: unknown }> };
  return body.messages.flatMap((message) =>
    Array.isArray(message.content)
      ? (message.content as Array<{ type: string; id?: string }>)
          .filter((block) => block.type === 'tool_use')
          .map((block) => block.id!)
      : [],
  );
}

async function firstRunOnClaude(): Promise<{ result: AgentResult; issued: string }> {
  emulator.enqueue({
    type: 'scripted',
    content: [{ type: 'tool-call', name: 'lookup', input: { q: 'tides' } }],
  });
  emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'High tide at noon.' }] });
  const result = await claude().run('When is high tide?').result();
  expect(result.outcome).toBe('completed');
  const [issued] = lastAnthropicToolUseIds();
  expect(issued).toMatch(/^toolu_/);
  return { result, issued: issued! };
}

describe('a continuing agent conversation carries its tool-id map', () => {
  it('Anthropic → OpenAI → Anthropic with run(input, { continues: result }): the call keeps the id Anthropic issued', async () => {
    const { result: first, issued } = await firstRunOnClaude();
    expect(
      first.toolIds?.some(([provider, , providerId]) => provider === 'anthropic' && providerId === issued),
    ).toBe(true);
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Low tide at six.' }] });
    const second = await gpt().run('And low tide?', { continues: first }).result();
    expect(second.outcome).toBe('completed');
    expect(second.text).toBe('Low tide at six.');
    // Stored and loaded as JSON between the runs, as an app would keep it.
    const stored = JSON.parse(JSON.stringify(second)) as AgentResult;
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Both, then.' }] });
    const third = await claude().run('Thanks — both?', { continues: stored }).result();
    expect(third.outcome).toBe('completed');
    expect(lastAnthropicToolUseIds()).toEqual([issued]);
    expect(third.transcript.filter((item) => item.kind === 'user')).toHaveLength(3);
  });

  it('the trap it replaces: the bare transcript alone starts a fresh map, so the id sent is not the one issued', async () => {
    const { result: first, issued } = await firstRunOnClaude();
    emulator.enqueue({ type: 'scripted', content: [{ type: 'text', text: 'Noon.' }] });
    await claude()
      .run([...first.transcript, { kind: 'user', parts: [{ type: 'text', text: 'Again?' }] }])
      .result();
    expect(lastAnthropicToolUseIds()).not.toEqual([issued]);
  });

  it('a continues that is not a result is refused before the run, naming the option', async () => {
    const result = await claude()
      .run('Hi', { continues: { transcript: 'nope' } as never })
      .result();
    expect(result.outcome).toBe('error');
    expect(String(result.error)).toMatch(/continues\.transcript must be a transcript/);
  });
});
