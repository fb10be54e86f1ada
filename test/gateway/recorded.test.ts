/**
 * Every recorded stream in test/fixtures/recorded, served by the emulator as the upstream and
 * delivered through the gateway to each inbound protocol's official SDK, gives the same text, tool
 * calls, finish and usage as the front door's own reply for that stream (or fails when it fails).
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { userText } from 'switchyard-ai';
import { inferProtocolFromFile } from '../../src/testing/emulator/routing.ts';
import { recordedDir } from '../support/fixtures.ts';
import { createDrivers, type Driver, type Outcome } from './drivers.ts';
import {
  createClients,
  type GatewayHarness,
  startGatewayHarness,
  type UpstreamProtocol,
  upstreams,
} from './harness.ts';

let harness: GatewayHarness;
let drivers: Driver[];

beforeAll(async () => {
  harness = await startGatewayHarness();
  drivers = createDrivers(createClients(harness.server.url));
});
beforeEach(() => {
  harness.emulator.clear();
});
afterAll(async () => {
  await harness?.close();
});

function streams(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return streams(path);
    return /\.(chunks\.txt|sse)$/.test(entry.name) ? [path] : [];
  });
}

const weather = {
  name: 'get_weather',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
/** Responses and Gemini have no tool-call finish value: their clients infer it from the calls. */
const infersToolFinish = new Set(['openai-responses', 'gemini']);
/** Recordings in the four gateway protocols (the cloud transports replay in their own suites). */
const files = streams(recordedDir)
  .filter((file) => Object.hasOwn(upstreams, inferProtocolFromFile(file)))
  .sort();
const finishes: Record<string, Outcome['finish']> = {
  completed: 'stop',
  'tool-call': 'tool',
  'max-tokens': 'length',
  'stop-sequence': 'stop',
};

describe.each(files.map((file) => [relative(recordedDir, file), file]))('%s', (_name, file) => {
  const api = inferProtocolFromFile(file) as UpstreamProtocol;
  const model = upstreams[api].alias;

  it('reaches every inbound protocol with the same text, tool calls, finish and usage', async () => {
    harness.emulator.enqueue({ type: 'replay', file, enforce: false });
    const direct = await harness.switchyard
      .stream({ model, transcript: [userText('replay')], tools: [weather] })
      .result()
      .catch((error: unknown) => error as Error);
    for (const driver of drivers) {
      harness.emulator.enqueue({ type: 'replay', file, enforce: false });
      const outcome = await driver
        .call(driver.start('replay'), { model, stream: true, tools: true })
        .catch((error: unknown) => error as Error);
      if (direct instanceof Error) {
        expect(outcome, `${driver.name}: the upstream failure is not a success`).toBeInstanceOf(Error);
        continue;
      }
      if (outcome instanceof Error) throw new Error(`${driver.name}: ${outcome.message}`);
      const expected = finishes[direct.finishReason] ?? 'other';
      expect(outcome.text, driver.name).toBe(direct.text);
      expect(
        outcome.toolCalls.map(({ name, input }) => ({ name, input })),
        driver.name,
      ).toEqual(direct.toolCalls.map(({ name, input }) => ({ name, input })));
      const inferred =
        infersToolFinish.has(driver.name) && expected === 'stop' && direct.toolCalls.length > 0;
      if (expected !== 'other') expect(outcome.finish, driver.name).toBe(inferred ? 'tool' : expected);
      expect(outcome.usage, driver.name).toEqual({
        input: direct.usage.input + direct.usage.cacheRead + direct.usage.cacheWrite,
        output: direct.usage.output,
      });
    }
  });
});
