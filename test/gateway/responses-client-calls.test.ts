/**
 * Built-in calls a Responses client runs itself (apply_patch, shell), through the gateway to a
 * Responses upstream: the client gets the items the upstream wrote (whole and streamed), and its
 * next turn — the call and its `*_output` item — reaches the upstream unchanged.
 */
import { join } from 'node:path';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readRecorded, recordedDir } from '../support/fixtures.ts';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';
import { responsesBody } from '../support/openai-wire.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
afterAll(async () => {
  await harness?.close();
});

type Item = Record<string, unknown>;

const recording = (name: string) => join(recordedDir, 'openai/responses', name);

/** The first response's output items of a recording (a stream's `output_item.done` items). */
function recordedItems(name: string): Item[] {
  const raw = readRecorded(recording(name));
  if (name.endsWith('.json')) return (JSON.parse(raw) as { output: Item[] }).output;
  const items: Item[] = [];
  for (const line of raw.split('\n')) {
    if (line.trim() === '') continue;
    const event = JSON.parse(line) as { type: string; output_index: number; item: Item };
    if (event.type === 'response.output_item.done') items[event.output_index] = event.item;
    if (event.type === 'response.completed') break;
  }
  return items;
}

/** A plain text answer, `Done.` */
const textAnswer = {
  type: 'json' as const,
  body: responsesBody([{ type: 'output_text', text: 'Done.', annotations: [] }]),
};

async function whole(name: string): Promise<Item[]> {
  harness.emulator.enqueue({ type: 'replay', file: recording(name), enforce: false });
  const response = await createClients(harness.server.url).openai.responses.create({
    model: 'up-responses',
    input: 'x',
  });
  return response.output as unknown as Item[];
}

/** Sends `input` as the next turn; returns the `input` the upstream got. */
async function nextTurn(input: unknown[]): Promise<unknown[]> {
  const before = harness.emulator.requests.length;
  harness.emulator.enqueue(textAnswer);
  const response = await createClients(harness.server.url).openai.responses.create({
    model: 'up-responses',
    input: input as never,
  });
  expect(response.output_text).toBe('Done.');
  return (harness.emulator.requests[before]!.body as { input: unknown[] }).input;
}

it('apply_patch, whole: the client gets the upstream’s item; its answer reaches the upstream unchanged', async () => {
  const [recorded] = recordedItems('openai-apply-patch-tool.1.json');
  const output = await whole('openai-apply-patch-tool.1.json');
  // As the upstream wrote it, its call_id too (a function call gets the gateway's call id).
  expect(output).toEqual([recorded]);
  const answer = {
    type: 'apply_patch_call_output',
    call_id: output[0]!.call_id,
    status: 'completed',
    output: 'Created shopping-checklist.md',
  };
  const sent = await nextTurn([{ role: 'user', content: 'Make a list.' }, output[0], answer]);
  expect(sent.slice(1)).toEqual([recorded, answer]);
});

it('shell, whole: the call and a shell_call_output with its outcomes reach the upstream unchanged', async () => {
  const [recorded] = recordedItems('openai-shell-tool.1.json');
  const output = await whole('openai-shell-tool.1.json');
  expect(output).toEqual([recorded]);
  const answer = {
    type: 'shell_call_output',
    call_id: output[0]!.call_id,
    max_output_length: 9907,
    output: [
      { stdout: '/Users/me\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } },
      { stdout: '', stderr: 'no Desktop', outcome: { type: 'exit', exit_code: 1 } },
      { stdout: '', stderr: '', outcome: { type: 'timeout' } },
    ],
  };
  const sent = await nextTurn([{ role: 'user', content: 'Where am I?' }, output[0], answer]);
  expect(sent.slice(1)).toEqual([recorded, answer]);
});

it('apply_patch, streamed: output_item.added and output_item.done carry the upstream’s item, and the final response too', async () => {
  const [recorded] = recordedItems('openai-apply-patch-tool.1.chunks.txt');
  harness.emulator.enqueue({
    type: 'replay',
    file: recording('openai-apply-patch-tool.1.chunks.txt'),
    enforce: false,
  });
  const stream = await createClients(harness.server.url).openai.responses.create({
    model: 'up-responses',
    input: 'x',
    stream: true,
  });
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  const added = events.filter((event) => event.type === 'response.output_item.added');
  const done = events.filter((event) => event.type === 'response.output_item.done');
  const item = recorded;
  expect(added.map((event) => event.item)).toEqual([{ ...item, status: 'in_progress' }]);
  expect(done.map((event) => event.item)).toEqual([item]);
  expect(events.some((event) => event.type === 'response.function_call_arguments.delta')).toBe(false);
  const completed = events.at(-1);
  expect(completed?.type === 'response.completed' && completed.response.output).toEqual([item]);
});
