/**
 * The agent over an OpenAI Responses upstream that asks the client to run a built-in tool
 * (apply_patch, shell): the loop goes on — a registered tool of that name runs with the call's
 * input, an unregistered one is answered with the unknown-tool error — and the answer goes back as
 * the call's own output item.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { recordedDir } from '../../test/support/fixtures.ts';
import type { Adapter } from '../core/adapter.ts';
import { silentLogger } from '../core/logger.ts';
import { type Emulator, startEmulator } from '../testing/emulator/index.ts';
import { createOnEmulator } from '../../test/support/provider-types.ts';
import { tool } from '../schemas/structured.ts';
import { createAgent } from './agent.ts';
import { responsesBody } from '../../test/support/openai-wire.ts';

let emulator: Emulator;
let responses: Adapter;

beforeAll(async () => {
  emulator = await startEmulator();
  responses = createOnEmulator('openai-responses', emulator.url, {
    apiKey: 'test-key',
    logger: silentLogger,
    maxRetries: 0,
  });
});
afterAll(async () => {
  await responses.close();
  await emulator.close();
});

const recording = (name: string) => join(recordedDir, 'openai/responses', name);
/** A plain text answer, `Done.` */
const done = {
  type: 'json' as const,
  body: responsesBody([{ type: 'output_text', text: 'Done.', annotations: [] }]),
};

/** Runs the agent over a recording then a text answer; returns the agent's text and the second request's input. */
async function run(name: string, tools: Parameters<typeof createAgent>[0]['tools']) {
  emulator.enqueue({ type: 'replay', file: recording(name), enforce: false });
  emulator.enqueue(done);
  const before = emulator.requests.length;
  const result = await createAgent({ client: responses, model: 'responses:gpt-5.1', tools })
    .run('Go.')
    .result();
  const input = (emulator.requests[before + 1]?.body as { input: Array<Record<string, unknown>> }).input;
  return { result, input };
}

it('an apply_patch call nobody registered: the unknown-tool error goes back as a failed apply_patch_call_output', async () => {
  const { result, input } = await run('openai-apply-patch-tool.1.json', []);
  expect(result.text).toBe('Done.');
  expect(input.map((item) => item.type)).toEqual(['message', 'apply_patch_call', 'apply_patch_call_output']);
  expect(input[2]).toEqual({
    type: 'apply_patch_call_output',
    call_id: 'call_CdXiGtcRl49Q6Ek20tG9lYOr',
    status: 'failed',
    output: expect.stringMatching(/^Unknown tool "apply_patch"/),
  });
});

it('a registered shell tool runs with the call’s action; its text goes back as stdout, exit 0', async () => {
  const seen: unknown[] = [];
  const shell = tool({
    name: 'shell',
    input: z.object({ action: z.object({ commands: z.array(z.string()) }).passthrough() }),
    execute: ({ action }) => {
      seen.push(action.commands);
      return '/Users/me';
    },
  });
  const { result, input } = await run('openai-shell-tool.1.json', [shell]);
  expect(result.text).toBe('Done.');
  expect(seen).toHaveLength(1);
  expect(input.at(-1)).toEqual({
    type: 'shell_call_output',
    call_id: 'call_udkLUvR8lWvG8cDO2B6GNpvZ',
    output: [{ stdout: '/Users/me', stderr: '', outcome: { type: 'exit', exit_code: 0 } }],
    max_output_length: 9907,
  });
});
