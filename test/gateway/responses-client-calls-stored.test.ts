/**
 * A Responses client answering a built-in call it runs (apply_patch, shell) through
 * `previous_response_id`: the call_id it was given (the upstream's) names the stored call, and the
 * call and its `*_output` item reach the upstream as when the client replays the whole input.
 * An `item_reference` to the call's item names the upstream's item id, which the gateway never
 * issued: a 404 naming it, never a silent drop.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { recordedDir } from '../support/fixtures.ts';
import { createClients, type GatewayHarness, startGatewayHarness } from './harness.ts';
import { responsesBody } from '../support/openai-wire.ts';

let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});
// A refused turn leaves its answer queued: each test starts from an empty queue.
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

type Item = Record<string, unknown>;

const recording = (name: string) => join(recordedDir, 'openai/responses', name);

/** A plain text answer, `Done.` */
const textAnswer = {
  type: 'json' as const,
  body: responsesBody([{ type: 'output_text', text: 'Done.', annotations: [] }]),
};

const openai = () => createClients(harness.server.url).openai;

/** The first turn, replaying `name` (whole or streamed): the reply's id and output items. */
async function firstTurn(name: string, input: string): Promise<{ id: string; output: Item[] }> {
  harness.emulator.enqueue({ type: 'replay', file: recording(name), enforce: false });
  if (name.endsWith('.json')) {
    const response = await openai().responses.create({ model: 'up-responses', input });
    return { id: response.id, output: response.output as unknown as Item[] };
  }
  const stream = await openai().responses.create({ model: 'up-responses', input, stream: true });
  let result: { id: string; output: Item[] } | undefined;
  for await (const event of stream)
    if (event.type === 'response.completed')
      result = { id: event.response.id, output: event.response.output as unknown as Item[] };
  return result!;
}

/** The next turn through `previous_response_id`; returns the `input` the upstream got. */
async function answer(previous: string, input: unknown[]): Promise<unknown[]> {
  const before = harness.emulator.requests.length;
  harness.emulator.enqueue(textAnswer);
  const response = await openai().responses.create({
    model: 'up-responses',
    previous_response_id: previous,
    input: input as never,
  });
  expect(response.output_text).toBe('Done.');
  return (harness.emulator.requests[before]!.body as { input: unknown[] }).input;
}

for (const name of ['openai-apply-patch-tool.1.json', 'openai-apply-patch-tool.1.chunks.txt']) {
  it(`apply_patch (${name}): answered through previous_response_id, the call and answer reach the upstream unchanged`, async () => {
    const first = await firstTurn(name, 'Make a list.');
    const call = first.output.find((item) => item.type === 'apply_patch_call')!;
    expect(call.call_id).toMatch(/^call_/);
    const output = {
      type: 'apply_patch_call_output',
      call_id: call.call_id,
      status: 'completed',
      output: 'Created shopping-checklist.md',
    };
    const sent = await answer(first.id, [output]);
    expect(sent.slice(1)).toEqual([...first.output, output]);
    // The next turn through that reply names it too.
    const again = await answer(first.id, [output]);
    expect(again).toEqual(sent);
  });
}

it('shell: a shell_call_output answered through previous_response_id reaches the upstream with its call', async () => {
  const first = await firstTurn('openai-shell-tool.1.json', 'Where am I?');
  const [call] = first.output;
  const output = {
    type: 'shell_call_output',
    call_id: call!.call_id,
    output: [{ stdout: '/Users/me\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } }],
  };
  const sent = await answer(first.id, [output]);
  expect(sent.slice(1)).toEqual([call, output]);
});

it('a chain: the answered turn is stored, and a third turn through it sends the call, answer and reply', async () => {
  const first = await firstTurn('openai-apply-patch-tool.1.json', 'Make a list.');
  const [call] = first.output;
  const output = {
    type: 'apply_patch_call_output',
    call_id: call!.call_id,
    status: 'completed',
    output: 'ok',
  };
  harness.emulator.enqueue(textAnswer);
  const second = await openai().responses.create({
    model: 'up-responses',
    previous_response_id: first.id,
    input: [output] as never,
  });
  const sent = await answer(second.id, [{ role: 'user', content: 'Thanks.' }]);
  expect(sent.slice(1, 3)).toEqual([call, output]);
});

it('an item_reference to the call item names the upstream’s item id: a 404 naming it', async () => {
  const first = await firstTurn('openai-apply-patch-tool.1.json', 'Make a list.');
  const [call] = first.output;
  const before = harness.emulator.requests.length;
  const error = await openai()
    .responses.create({
      model: 'up-responses',
      input: [
        { role: 'user', content: 'Make a list.' },
        { type: 'item_reference', id: call!.id },
        { type: 'apply_patch_call_output', call_id: call!.call_id, status: 'completed', output: 'ok' },
      ] as never,
    })
    .then(
      () => undefined,
      (caught: unknown) => caught as { status: number; message: string },
    );
  expect(error?.status).toBe(404);
  expect(error?.message).toContain(String(call!.id));
  expect(harness.emulator.requests.length).toBe(before);
});
