/**
 * Approval rules and input checks under hostile model input: a rule is asked about the input the
 * tool would run with (validated and transformed), malformed input never reaches it, and an input
 * check or rule that never answers cannot hold the run past the tool's timeout or an interrupt.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { JsonObject } from '../core/json.ts';
import { tool } from '../schemas/structured.ts';
import { createScriptedAdapter } from '../testing/scripted-adapter.ts';
import { settle } from '../../test/support/hostile.ts';
import { createAgent } from './index.ts';
import { call, resultsById, resultText, text } from './test-support.ts';

const calling = (input: JsonObject) =>
  createScriptedAdapter([{ content: [call('c1', 'read', input)] }, { content: [text('done')] }]);

describe('an approval rule sees the validated input', () => {
  it('"   /etc/shadow", trimmed by the schema, is asked about as "/etc/shadow": the run waits for approval', async () => {
    const seen: string[] = [];
    const ran: string[] = [];
    const read = tool({
      name: 'read',
      input: z.object({ path: z.string().trim() }),
      needsApproval: ({ path }) => {
        seen.push(path);
        return path.startsWith('/etc');
      },
      execute: ({ path }) => {
        ran.push(path);
        return 'contents';
      },
    });
    const agent = createAgent({
      model: 'scripted:m',
      client: calling({ path: '   /etc/shadow' }),
      tools: [read],
    });
    const result = await agent.run('read it').result();
    expect(result.outcome).toBe('awaiting_approval');
    expect(seen).toEqual(['/etc/shadow']);
    expect(ran).toEqual([]);
  });

  it('input that does not validate never reaches the rule: the model gets the validation error', async () => {
    let asked = 0;
    const read = tool({
      name: 'read',
      input: z.object({ path: z.string() }),
      needsApproval: ({ path }) => {
        asked++;
        return path.startsWith('/etc');
      },
      execute: () => 'contents',
    });
    const agent = createAgent({ model: 'scripted:m', client: calling({ path: 42 }), tools: [read] });
    const result = await agent.run('read it').result();
    expect(result.outcome).toBe('completed');
    expect(asked).toBe(0);
    expect(resultText(resultsById(result.transcript).get('c1'))).toMatch(/Invalid input for tool "read"/);
  });
});

describe('an input check or approval rule that never answers', () => {
  const never = () => new Promise<never>(() => {});

  it('an input check that never settles ends with the tool timeout: an error result, the run goes on', async () => {
    const read = tool({
      name: 'read',
      input: z.object({ path: z.string().refine(never) }),
      execute: () => 'contents',
      timeoutMs: 100,
    });
    const agent = createAgent({ model: 'scripted:m', client: calling({ path: 'a' }), tools: [read] });
    const outcome = await settle(agent.run('read it').result(), 3000);
    expect(outcome.state).toBe('resolved');
    const result = (outcome as { value: Awaited<ReturnType<ReturnType<typeof agent.run>['result']>> }).value;
    expect(result.outcome).toBe('completed');
    expect(resultText(resultsById(result.transcript).get('c1'))).toMatch(
      /timed out after 100 ms checking its input/,
    );
  });

  it('an input check that never settles is cut by an interrupt', async () => {
    const read = tool({
      name: 'read',
      input: z.object({ path: z.string().refine(never) }),
      execute: () => 'x',
    });
    const run = createAgent({ model: 'scripted:m', client: calling({ path: 'a' }), tools: [read] }).run(
      'read it',
    );
    setTimeout(() => run.interrupt(), 100);
    const outcome = await settle(run.result(), 3000);
    expect(outcome).toMatchObject({ state: 'resolved', value: { outcome: 'cancelled' } });
  });

  it('a needsApproval that never answers ends the run with an error naming it, within the tool timeout', async () => {
    const read = tool({
      name: 'read',
      input: z.object({ path: z.string() }),
      needsApproval: never,
      execute: () => 'contents',
      timeoutMs: 100,
    });
    const agent = createAgent({ model: 'scripted:m', client: calling({ path: 'a' }), tools: [read] });
    const outcome = await settle(agent.run('read it').result(), 3000);
    expect(outcome.state).toBe('resolved');
    const result = (outcome as { value: { outcome: string; error: unknown } }).value;
    expect(result.outcome).toBe('error');
    expect(String((result.error as Error).message)).toMatch(
      /needsApproval of tool "read" did not answer within 100 ms/,
    );
  });
});

it('a tool error whose message getter throws is an error result, not a crash of the run', async () => {
  const read = tool({
    name: 'read',
    input: z.object({ path: z.string() }),
    execute: () => {
      const error = new Error('x');
      Object.defineProperty(error, 'message', {
        get() {
          throw new TypeError('remote object detached');
        },
      });
      throw error;
    },
  });
  const agent = createAgent({ model: 'scripted:m', client: calling({ path: 'a' }), tools: [read] });
  const result = await agent.run('read it').result();
  expect(result.outcome).toBe('completed');
  expect(resultText(resultsById(result.transcript).get('c1'))).toMatch(
    /Tool "read" failed: \[object Error\]/,
  );
});

it('a budget with a model that has no price ends the run with an error naming it, not a run counted free', async () => {
  const loop = createScriptedAdapter(
    Array.from({ length: 5 }, (_, index) => ({
      content: [call(`c${index}`, 'read', { path: 'a' })],
      usage: { input: 1000, output: 1000 },
    })),
  );
  const read = tool({ name: 'read', input: z.object({ path: z.string() }), execute: () => 'x' });
  const agent = createAgent({ model: 'scripted:m', client: loop, tools: [read], budget: { maxCost: 0.01 } });
  const result = await agent.run('go').result();
  expect(result.outcome).toBe('error');
  expect(String((result.error as Error).message)).toMatch(
    /has no known price.*pass cost\(\), or use the front door/,
  );
  expect(result.turns).toHaveLength(0);
  // The call was made and billed: its tokens are in the result's usage.
  expect(result.usage).toMatchObject({ input: 1000, output: 1000 });
});

it('an input check too slow while the rule is asked: the call waits for approval, never runs unasked', async () => {
  let checks = 0;
  const ran: string[] = [];
  const remove = tool({
    name: 'read',
    timeoutMs: 100,
    input: z.object({
      path: z.string().refine(async () => {
        // Slow for the first checks (the loop's own, then the rule's), quick afterwards (the runner's).
        if (++checks <= 2) await new Promise((resolve) => setTimeout(resolve, 300));
        return true;
      }),
    }),
    needsApproval: ({ path }) => path.startsWith('/etc'),
    execute: ({ path }) => {
      ran.push(path);
      return 'removed';
    },
  });
  const agent = createAgent({
    model: 'scripted:m',
    client: calling({ path: '/etc/passwd' }),
    tools: [remove],
  });
  const result = await agent.run('remove it').result();
  expect(result.outcome).toBe('awaiting_approval');
  expect(ran).toEqual([]);
});
