/**
 * The observer-failure matrix (#18 point 2): for the front door and the agent, an observer that
 * throws, rejects, never settles, hands back a hostile thenable or throws a non-Error. Oracle: the
 * call's outcome is the one without the observer, it settles without waiting for the observer, no
 * unhandled rejection reaches the process, and each failing observer is logged once (WARN) with no
 * secret in it.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent/agent.ts';
import { call, text } from '../../src/agent/test-support.ts';
import { tool } from '../../src/schemas/structured.ts';
import type { AgentEvent } from '../../src/agent/types.ts';
import { createMemoryLogger } from '../../src/core/logger.ts';
import { createAnthropic } from '../../src/providers/anthropic/index.ts';
import { userText } from '../../src/core/transcript.ts';
import type { CallEvent, Observer } from '../../src/observers/types.ts';
import type { Switchyard } from '../../src/switchyard.ts';
import { anthropicError, type Emulator, startEmulator } from '../../src/testing/emulator/index.ts';
import { createScriptedAdapter } from '../../src/testing/scripted-adapter.ts';
import { createEmulatedSwitchyard } from '../support/emulated.ts';
import { settle, watchProcess, type ProcessWatch } from '../support/hostile.ts';

const key = 'observer-matrix-secret-key-0123456789';

/** Each failing behaviour, as a function of the event (the front door and the agent share them). */
const failures: Array<[string, (event: { type: string }) => unknown]> = [
  [
    'sync throw',
    () => {
      throw new Error(`observer broke holding ${key}`);
    },
  ],
  ['async rejection', async () => Promise.reject(new Error(`rejected with ${key}`))],
  [
    'async function that throws',
    async () => {
      await Promise.resolve();
      throw new TypeError(`late ${key}`);
    },
  ],
  ['slow observer (never settles)', () => new Promise(() => {})],
  [
    'a thenable whose then throws',
    () => ({
      then() {
        throw new Error(`then threw ${key}`);
      },
    }),
  ],
  [
    'a thenable whose then getter throws',
    () => ({
      get then() {
        throw new Error(`getter threw ${key}`);
      },
    }),
  ],
  [
    'throws null',
    () => {
      throw null;
    },
  ],
  [
    'throws an object whose toString throws',
    () => {
      throw {
        toString() {
          throw new Error('unprintable');
        },
      };
    },
  ],
];

let watch: ProcessWatch;
beforeEach(() => {
  watch = watchProcess();
});
afterEach(async () => {
  await watch.stop();
});

function expectOneWarnWithoutSecret(logger: ReturnType<typeof createMemoryLogger>, label: string): void {
  const warns = logger.entries.filter((entry) => entry.message.startsWith('an observer failed'));
  expect(warns, label).toHaveLength(1);
  expect(JSON.stringify(warns)).not.toContain(key);
}

describe('front door: a failing observer never changes the call', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator();
  });
  afterAll(async () => {
    await emulator.close();
  });

  function frontDoor(observer: Observer, logger = createMemoryLogger()): Switchyard {
    return createEmulatedSwitchyard(emulator.url, {
      logger,
      observers: [observer],
      adapters: { anthropic: 'anthropic', openai: 'openai' },
      apiKey: key,
      config: {
        models: {
          'anthropic:claude-sonnet-4-5': { aliases: ['primary'], fallbacks: ['openai:gpt-4.1-mini'] },
        },
      },
    });
  }

  const reply = {
    type: 'scripted' as const,
    content: [{ type: 'text' as const, text: 'hello' }],
    usage: { input: 5, output: 2 },
  };

  describe.each(failures)('%s', (label, behaviour) => {
    it('complete, stream, failover and failure: same outcome, settles, one redacted WARN', async () => {
      const seen: string[] = [];
      const logger = createMemoryLogger();
      const sy = frontDoor(
        {
          onEvent: (event: CallEvent) => {
            seen.push(event.type);
            return behaviour(event) as void;
          },
        },
        logger,
      );
      try {
        emulator.enqueue(reply);
        const completed = await settle(sy.complete({ model: 'primary', transcript: [userText('Hi')] }), 2000);
        expect(completed.state, label).toBe('resolved');
        expect((completed as { value: { text: string } }).value.text).toBe('hello');

        emulator.enqueue(reply);
        const streamed = await settle(
          Promise.resolve(sy.stream({ model: 'primary', transcript: [userText('Hi')] })),
          2000,
        );
        expect(streamed.state).toBe('resolved');
        expect((streamed as { value: { text: string } }).value.text).toBe('hello');

        // Failover: the primary fails with 529, the fallback serves; `call-failed` goes to the observer.
        emulator.enqueue(anthropicError(529, 'overloaded_error', 'Overloaded', { 'retry-after': '0' }));
        emulator.enqueue(reply);
        const failedOver = await settle(
          sy.complete({ model: 'primary', transcript: [userText('Hi')] }),
          2000,
        );
        expect(failedOver.state).toBe('resolved');
        expect((failedOver as { value: { model: string } }).value.model).toBe('openai:gpt-4.1-mini');

        // A failing call stays the same failure (an invalid request never fails over).
        emulator.enqueue(anthropicError(400, 'invalid_request_error', 'bad request'));
        const failed = await settle(
          sy.complete({ model: 'anthropic:claude-sonnet-4-5', transcript: [userText('Hi')] }),
          2000,
        );
        expect(failed.state).toBe('rejected');
        expect((failed as { error: { errorClass: string } }).error.errorClass).toBe('invalid_request');

        expect(seen).toContain('call-failed');
        expect(seen).toContain('call-completed');
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (label.startsWith('slow'))
          expect(logger.entries.filter((entry) => entry.message.startsWith('an observer'))).toEqual([]);
        else expectOneWarnWithoutSecret(logger, label);
      } finally {
        await sy.close();
      }
    });
  });

  it('a failing logger behind a rejecting observer is no unhandled rejection either', async () => {
    const sy = createEmulatedSwitchyard(emulator.url, {
      logger: {
        warn() {
          throw new Error('logger down');
        },
      },
      observers: [{ onEvent: async () => Promise.reject(new Error('no')) }],
      adapters: { anthropic: 'anthropic' },
      apiKey: key,
    });
    emulator.enqueue(reply);
    const completed = await settle(
      sy.complete({ model: 'anthropic:claude-sonnet-4-5', transcript: [userText('Hi')] }),
      2000,
    );
    expect(completed.state).toBe('resolved');
    await sy.close();
  });
});

describe('agent: a failing observer never changes the run', () => {
  // An adapter configured with the key: from then on every redaction in the process removes it.
  beforeAll(async () => {
    await createAnthropic({ apiKey: key }).close();
  });
  const echo = tool({
    name: 'echo',
    input: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'] },
    execute: (input: { value: string }) => `echo ${input.value}`,
  });

  function scripted() {
    return createScriptedAdapter([
      { content: [text('Calling.'), call('c1', 'echo', { value: 'a' })], usage: { input: 10, output: 5 } },
      { content: [text('Done.')], usage: { input: 20, output: 3 } },
    ]);
  }

  it.each(failures)('%s', async (label, behaviour) => {
    const baseline = await createAgent({ client: scripted(), model: 'scripted:m', tools: [echo] })
      .run('Go')
      .result();
    const logger = createMemoryLogger();
    const seen: string[] = [];
    const agent = createAgent({
      client: scripted(),
      model: 'scripted:m',
      tools: [echo],
      logger,
      observers: [
        (event: AgentEvent) => {
          seen.push(event.type);
          return behaviour(event) as void;
        },
      ],
    });
    const settled = await settle(agent.run('Go').result(), 2000);
    expect(settled.state, label).toBe('resolved');
    const result = (settled as { value: typeof baseline }).value;
    expect(result.outcome).toBe('completed');
    expect(result.text).toBe(baseline.text);
    expect(result.transcript).toEqual(baseline.transcript);
    expect(seen).toContain('run-end');
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (label.startsWith('slow')) expect(logger.entries).toEqual([]);
    else expectOneWarnWithoutSecret(logger, label);
  });
});
