import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Item } from '../core/transcript.ts';
import { createScriptedAdapter } from '../testing/scripted-adapter.ts';
import { createAgent } from './agent.ts';
import { call, drain, expectConsistent, resultsById, resultText, text } from './test-support.ts';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { tool } from '../schemas/structured.ts';
import { toolOutput } from './tool.ts';
import type { AgentEvent } from './types.ts';

const readFile = tool({
  name: 'read_file',
  description: 'Read a file',
  input: z.object({ path: z.string(), maxLines: z.number().int().positive().optional() }),
  execute: ({ path }) => `contents of ${path}`,
});

describe('agent tools', () => {
  it('runs a tool the model asks for and sends the result back in the next request', async () => {
    const adapter = createScriptedAdapter([
      { content: [text('Reading.'), call('c1', 'read_file', { path: 'a.ts' })] },
      { content: [text('It says hello.')] },
    ]);
    const agent = createAgent({
      client: adapter,
      model: 'scripted:m',
      tools: [readFile],
      instructions: 'Be brief.',
    });
    const result = await agent.run('What is in a.ts?').result();
    expect(result.outcome).toBe('completed');
    expect(result.stoppedBy).toBe('model');
    expect(result.text).toBe('It says hello.');
    expect(result.transcript.map((item) => item.kind)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(adapter.requests[1]?.transcript.at(-1)).toEqual({
      kind: 'tool',
      parts: [
        {
          type: 'tool-result',
          callId: 'c1',
          name: 'read_file',
          output: { type: 'text', text: 'contents of a.ts' },
          isError: false,
        },
      ],
    });
    expect(adapter.requests[0]?.tools).toEqual([
      {
        name: 'read_file',
        description: 'Read a file',
        inputSchema: expect.objectContaining({ type: 'object', required: ['path'] }),
      },
    ]);
    expectConsistent(result.transcript);
  });

  it('never mutates the transcript it was given', async () => {
    const adapter = createScriptedAdapter([{ content: [text('ok')] }]);
    const input: Item[] = [{ kind: 'user', parts: [text('hi')] }];
    await createAgent({ client: adapter, model: 'scripted:m' }).run(input).result();
    expect(input).toHaveLength(1);
  });

  it('returns invalid input to the model with what was wrong, and runs the corrected call', async () => {
    const executed: unknown[] = [];
    const readFile = tool({
      name: 'read_file',
      input: z.object({ path: z.string(), maxLines: z.number().int().positive().optional() }),
      execute: (input) => {
        executed.push(input);
        return 'ok';
      },
    });
    const adapter = createScriptedAdapter([
      { content: [call('c1', 'read_file', { path: 42, maxLines: -1 })] },
      { content: [call('c2', 'read_file', { path: 'a.ts', maxLines: 3 })] },
      { content: [text('done')] },
    ]);
    const result = await createAgent({ client: adapter, model: 'scripted:m', tools: [readFile] })
      .run('go')
      .result();
    const first = resultsById(result.transcript).get('c1');
    expect(first?.isError).toBe(true);
    expect(resultText(first)).toContain('Invalid input for tool "read_file"');
    expect(resultText(first)).toContain('- path: Invalid input: expected string, received number');
    expect(resultText(first)).toContain('- maxLines: Too small');
    expect(executed).toEqual([{ path: 'a.ts', maxLines: 3 }]);
    expect(result.outcome).toBe('completed');
  });

  it('turns a thrown tool error and an unknown tool name into error results, and keeps going', async () => {
    const failing = tool({
      name: 'explode',
      input: { type: 'object', properties: {} },
      execute: () => {
        throw new Error('disk on fire');
      },
    });
    const adapter = createScriptedAdapter([
      { content: [call('c1', 'explode', {}), call('c2', 'teleport', { to: 'mars' })] },
      { content: [text('Both failed.')] },
    ]);
    const result = await createAgent({ client: adapter, model: 'scripted:m', tools: [failing, readFile] })
      .run('go')
      .result();
    const results = resultsById(result.transcript);
    expect(results.get('c1')).toMatchObject({ isError: true });
    expect(resultText(results.get('c1'))).toBe('Tool "explode" failed: disk on fire');
    expect(resultText(results.get('c2'))).toBe(
      'Unknown tool "teleport". Available tools: explode, read_file.',
    );
    expect(result.outcome).toBe('completed');
    expectConsistent(result.transcript);
  });

  it('runs parallel calls concurrently up to the limit and returns results in call order', async () => {
    let running = 0;
    let peak = 0;
    const finished: string[] = [];
    const sleepy = tool({
      name: 'sleep',
      input: z.object({ ms: z.number(), label: z.string() }),
      execute: async ({ ms, label }) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, ms));
        running--;
        finished.push(label);
        return label;
      },
    });
    const calls = [40, 5, 25, 1, 10].map((ms, index) =>
      call(`c${index}`, 'sleep', { ms, label: `L${index}` }),
    );
    const adapter = createScriptedAdapter([{ content: calls }, { content: [text('done')] }]);
    const agent = createAgent({ client: adapter, model: 'scripted:m', tools: [sleepy], toolConcurrency: 3 });
    const result = await agent.run('go').result();
    expect(peak).toBe(3);
    expect(finished).not.toEqual(['L0', 'L1', 'L2', 'L3', 'L4']);
    const toolItem = result.transcript.find((item) => item.kind === 'tool')!;
    expect(toolItem.parts.map((part) => (part.type === 'tool-result' ? resultText(part) : ''))).toEqual([
      'L0',
      'L1',
      'L2',
      'L3',
      'L4',
    ]);
  });

  it('abandons a tool that hangs past its timeout with an error result and aborts its signal', async () => {
    let aborted = false;
    const hang = tool({
      name: 'hang',
      input: z.object({}),
      timeoutMs: 30,
      execute: (_input, { signal }) =>
        new Promise<string>(() => {
          signal.addEventListener('abort', () => {
            aborted = true;
          });
        }),
    });
    const adapter = createScriptedAdapter([{ content: [call('c1', 'hang', {})] }, { content: [text('ok')] }]);
    const result = await createAgent({ client: adapter, model: 'scripted:m', tools: [hang] })
      .run('go')
      .result();
    expect(resultText(resultsById(result.transcript).get('c1'))).toBe(
      'Tool "hang" timed out after 30 ms and was abandoned.',
    );
    expect(aborted).toBe(true);
    expect(result.outcome).toBe('completed');
  });

  it('accepts text, JSON, parts (an image) and explicit error outputs', async () => {
    const png = 'iVBORw0KGgo=';
    const tools = [
      tool({ name: 'text', input: z.object({}), execute: () => 'plain' }),
      tool({ name: 'json', input: z.object({}), execute: () => ({ files: ['a', 'b'], count: 2 }) }),
      tool({
        name: 'shot',
        input: z.object({}),
        execute: () =>
          toolOutput.parts([
            { type: 'media', modality: 'image', mimeType: 'image/png', data: { type: 'base64', data: png } },
          ]),
      }),
      tool({ name: 'denied', input: z.object({}), execute: () => toolOutput.error('no such branch') }),
    ];
    const adapter = createScriptedAdapter([
      { content: ['text', 'json', 'shot', 'denied'].map((name, index) => call(`c${index}`, name, {})) },
      { content: [text('ok')] },
    ]);
    const result = await createAgent({ client: adapter, model: 'scripted:m', tools }).run('go').result();
    const results = resultsById(result.transcript);
    expect(results.get('c0')?.output).toEqual({ type: 'text', text: 'plain' });
    expect(results.get('c1')?.output).toEqual({ type: 'json', value: { files: ['a', 'b'], count: 2 } });
    expect(results.get('c2')?.output).toEqual({
      type: 'parts',
      parts: [
        { type: 'media', modality: 'image', mimeType: 'image/png', data: { type: 'base64', data: png } },
      ],
    });
    expect(results.get('c3')).toMatchObject({
      isError: true,
      output: { type: 'text', text: 'no such branch' },
    });
  });

  it('takes JSON Schema and any Standard Schema (with its own JSON Schema) as input schemas', async () => {
    const jsonSchema = tool({
      name: 'json_schema',
      input: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
      execute: ({ n }: { n: number }) => `n=${n}`,
    });
    const custom: StandardSchemaV1<{ word: string }> = {
      '~standard': {
        version: 1,
        vendor: 'handmade',
        validate: (value) =>
          typeof (value as { word?: unknown }).word === 'string'
            ? { value: value as { word: string } }
            : { issues: [{ message: 'word must be a string', path: ['word'] }] },
      },
    };
    expect(() => tool({ name: 'x', input: custom, execute: () => '' })).toThrow(/pass `jsonSchema`/);
    const standard = tool({
      name: 'standard',
      input: custom,
      jsonSchema: { type: 'object', properties: { word: { type: 'string' } } },
      execute: ({ word }) => word.toUpperCase(),
    });
    const adapter = createScriptedAdapter([
      { content: [call('a', 'json_schema', { n: 'x' }), call('b', 'standard', { word: 1 })] },
      { content: [call('c', 'json_schema', { n: 2 }), call('d', 'standard', { word: 'hi' })] },
      { content: [text('ok')] },
    ]);
    const result = await createAgent({ client: adapter, model: 'scripted:m', tools: [jsonSchema, standard] })
      .run('go')
      .result();
    const results = resultsById(result.transcript);
    expect(resultText(results.get('a'))).toContain('- n: Invalid input: expected');
    expect(resultText(results.get('b'))).toContain('- word: word must be a string');
    expect(resultText(results.get('c'))).toBe('n=2');
    expect(resultText(results.get('d'))).toBe('HI');
  });

  it('streams model events between turn events, and tool events with durations', async () => {
    const adapter = createScriptedAdapter([
      { content: [call('c1', 'read_file', { path: 'a' })], usage: { input: 10, output: 5 } },
      { content: [text('done')], usage: { input: 20, output: 2 } },
    ]);
    const seen: string[] = [];
    const agent = createAgent({
      client: adapter,
      model: 'scripted:m',
      tools: [readFile],
      observers: [(event) => seen.push(event.type)],
    });
    const { events, result } = await drain(agent.run('go'));
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('turn-start');
    expect(types.slice(1, 2)).toEqual(['message-start']);
    const firstEnd = types.indexOf('turn-end');
    expect(types[firstEnd - 1]).toBe('finish');
    expect(types.slice(firstEnd + 1, firstEnd + 4)).toEqual(['tool-start', 'tool-end', 'turn-start']);
    expect(types.at(-1)).toBe('run-end');
    const toolEnd = events.find((event) => event.type === 'tool-end');
    expect(toolEnd).toMatchObject({ turn: 1, callId: 'c1', name: 'read_file', isError: false });
    expect((toolEnd as { durationMs: number }).durationMs).toBeGreaterThanOrEqual(0);
    expect(seen).toEqual(types);
    expect(result.usage).toMatchObject({ input: 30, output: 7 });
    expect(result.turns.map((turn) => turn.finishReason)).toEqual(['tool-call', 'completed']);
  });

  it('an observer that changes its events changes neither the run nor what its reader sees', async () => {
    const adapter = createScriptedAdapter([
      { content: [call('c1', 'read_file', { path: 'a.ts' })], usage: { input: 10, output: 5 } },
      { content: [text('It says hello.')], usage: { input: 20, output: 2 } },
    ]);
    const ran: string[] = [];
    const spy = tool({
      name: 'read_file',
      input: z.object({ path: z.string() }),
      execute: ({ path }) => (ran.push(path), `contents of ${path}`),
    });
    const tamper = (given: AgentEvent) => {
      const event = given as unknown as {
        type: string;
        delta: string;
        input: { path: string };
        response: { content: unknown[] };
        usage: { input: number };
        result: { output: unknown };
      };
      if (event.type === 'text-delta') event.delta = 'HACKED';
      if (event.type === 'tool-start') event.input.path = '/etc/passwd';
      if (event.type === 'finish') event.response.content.length = 0;
      if (event.type === 'turn-end') event.usage.input = 1_000_000;
      if (event.type === 'tool-end') event.result.output = { type: 'text', text: 'forged' };
    };
    const agent = createAgent({ client: adapter, model: 'scripted:m', tools: [spy], observers: [tamper] });
    const { events, result } = await drain(agent.run('What is in a.ts?'));
    expect(ran).toEqual(['a.ts']);
    expect(events.filter((event) => event.type === 'text-delta').map((event) => event.delta)).toEqual([
      'It says hello.',
    ]);
    expect(result.text).toBe('It says hello.');
    expect(resultText(resultsById(result.transcript).get('c1'))).toBe('contents of a.ts');
    expect(result.transcript[1]!.parts[0]).toMatchObject({ type: 'tool-call', input: { path: 'a.ts' } });
    expect(result.usage).toMatchObject({ input: 30, output: 7 });
    expect(result.turns.map((turn) => turn.usage.input)).toEqual([10, 20]);
  });

  it('rejects two tools with one name', () => {
    expect(() => createAgent({ model: 'x:y', tools: [readFile, readFile] })).toThrow(
      /two tools are named read_file/,
    );
  });
});
