/**
 * `streamingToolCalls` is a description of the stream, not something a request asks for, so it is
 * "checked" here: every adapter's declaration is held against the recorded streams of its provider.
 * Declared false: no recorded tool call arrives in more than one argument fragment. Declared true:
 * the recordings show calls arriving in fragments. Recordings from Vertex AI (`trafficType` in the
 * usage, a Vertex-only field) stream Gemini arguments in fragments; the Gemini API adapter does not
 * serve Vertex, so they are listed apart.
 */
import { basename } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Adapter } from '../../src/core/adapter.ts';
import type { StreamEvent } from '../../src/core/events.ts';
import { createMemoryLogger } from '../../src/core/logger.ts';
import { userText } from '../../src/core/transcript.ts';
import { collectStream } from '../../src/testing/collect.ts';
import { type Emulator, startEmulator } from '../../src/testing/emulator/index.ts';
import { createOnEmulator } from '../support/provider-types.ts';
import { listRecorded, readRecorded } from '../support/fixtures.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

const common = () => ({ apiKey: 'test-key-0000', maxRetries: 0, logger: createMemoryLogger() });

interface Row {
  name: string;
  folder: string;
  model: string;
  create(): Adapter;
  /** Which recordings the adapter serves (default: all). */
  serves?(text: string): boolean;
}

const isVertex = (text: string) => text.includes('"trafficType"');
const hasToolCall = (text: string) => /tool_use|tool_calls|functionCall|function_call/.test(text);

const rows: Row[] = [
  {
    name: 'anthropic',
    folder: 'anthropic',
    model: 'claude-sonnet-4-5',
    create: () => createOnEmulator('anthropic', emulator.url, common()),
  },
  {
    name: 'gemini',
    folder: 'google',
    model: 'gemini-2.5-flash',
    create: () => createOnEmulator('gemini', emulator.url, common()),
    serves: (text) => !isVertex(text),
  },
  ...(['groq', 'mistral', 'xai', 'alibaba'] as const).map((host) => ({
    name: host,
    folder: host,
    model: 'test-model',
    create: () =>
      createOnEmulator('openai-compatible', emulator.url, { ...common(), name: host, preset: host }),
  })),
  {
    name: 'openai-responses',
    folder: 'openai/responses',
    model: 'gpt-4o',
    create: () => createOnEmulator('openai-responses', emulator.url, common()),
  },
];

/** Argument fragments per tool call of one recorded stream (empty fragments are not fragments). */
async function fragmentsPerCall(adapter: Adapter, model: string, file: string): Promise<number[]> {
  emulator.enqueue({ type: 'replay', file });
  const { events } = await collectStream(
    adapter.stream({ model, transcript: [userText('go')], maxOutputTokens: 100 }),
  );
  const counts = new Map<string, number>();
  for (const event of events as StreamEvent[]) {
    if (event.type === 'tool-call-start') counts.set(event.id, 0);
    if (event.type === 'tool-call-delta' && event.delta !== '') {
      counts.set(event.id, (counts.get(event.id) ?? 0) + 1);
    }
  }
  return [...counts.values()];
}

async function recordedFragments(row: Row): Promise<Map<string, number[]>> {
  const adapter = row.create();
  const found = new Map<string, number[]>();
  for (const file of listRecorded(row.folder).filter((path) => path.endsWith('.chunks.txt'))) {
    const text = readRecorded(file);
    if (!hasToolCall(text) || row.serves?.(text) === false) continue;
    const counts = await fragmentsPerCall(adapter, row.model, file);
    if (counts.length > 0) found.set(basename(file), counts);
  }
  await adapter.close();
  return found;
}

describe('streamingToolCalls matches what the recorded streams do', () => {
  it.each(rows.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const declared = row.create().capabilities(row.model).streamingToolCalls;
    const recorded = await recordedFragments(row);
    expect(recorded.size, 'recorded streams with tool calls').toBeGreaterThan(0);
    const most = Math.max(...[...recorded.values()].flat());
    const seen = JSON.stringify(Object.fromEntries(recorded));
    if (declared) expect(most, `a call arrives in several fragments: ${seen}`).toBeGreaterThan(1);
    else expect(most, `every call arrives whole: ${seen}`).toBeLessThanOrEqual(1);
  });

  it('Vertex AI recordings stream Gemini arguments in fragments (override streamingToolCalls for Vertex)', async () => {
    const recorded = await recordedFragments({ ...rows[1]!, serves: isVertex });
    expect(Math.max(...[...recorded.values()].flat())).toBeGreaterThan(1);
  });
});
