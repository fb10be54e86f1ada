/**
 * Every recorded response that yields a reply is priced through the front door: a cost equal to
 * the table's price of the model that served it, or — for a model the table does not know — no
 * cost and one WARN.
 */
import { basename } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/core/logger.ts';
import { userText } from '../../src/core/transcript.ts';
import { defaultPriceTable, reprice } from '../../src/pricing/index.ts';
import type { Switchyard } from '../../src/switchyard.ts';
import type { Emulator } from '../../src/testing/emulator/index.ts';
import { createProviderTypeTable } from '../../src/registry/provider-type-table.ts';
import { startEmulatedSwitchyard } from '../support/emulated.ts';
import { listRecorded } from '../support/fixtures.ts';

/** Recorded folder → the adapter (a built-in provider type or an OpenAI-compatible preset) that serves it. */
const folders: Array<[folder: string, provider: string]> = [
  ['anthropic', 'anthropic'],
  ['openai/chat', 'openai'],
  ['google', 'gemini'],
  ['groq', 'groq'],
  ['deepseek/chat', 'deepseek'],
  ['mistral', 'mistral'],
  ['moonshotai', 'moonshot'],
  ['alibaba', 'alibaba'],
  ['perplexity', 'perplexity'],
  ['openai-compatible/chat', 'xai'],
  ['openai/responses', 'openai-responses'],
];
/**
 * Served models the bundled table has no price for: GLM 5.2 as served by Mistral's API (no source
 * prices Mistral's rate for it; Z.AI's own rate is another host's).
 */
const unpriced = /^mistral:zai-glm-5-2$/;

let emulator: Emulator;
let sy: Switchyard;
let close: () => Promise<void>;
const logger = createMemoryLogger();
const builtinTypes = createProviderTypeTable();

beforeAll(async () => {
  // A provider with a row of its own by its type, the others as presets of the OpenAI-compatible row.
  const adapters = Object.fromEntries(
    folders.map(([, provider]) => [
      provider,
      builtinTypes.has(provider) ? provider : { type: 'openai-compatible', preset: provider },
    ]),
  );
  ({
    emulator,
    switchyard: sy,
    close,
  } = await startEmulatedSwitchyard({ logger, adapters, apiKey: 'test-key-fixtures' }));
});
afterAll(() => close());

describe('every recorded fixture is priced', () => {
  const cases = folders.flatMap(([folder, provider]) =>
    listRecorded(folder)
      .filter((file) => file.endsWith('.json') || file.endsWith('.chunks.txt'))
      .map((file) => [`${folder}/${basename(file)}`, file, provider] as const),
  );
  let priced = 0;

  it.each(cases)('%s', async (_name, file, provider) => {
    emulator.enqueue({ type: 'replay', file, enforce: false });
    const request = { model: `${provider}:recorded-model`, transcript: [userText('Hi')] };
    const call = file.endsWith('.json') ? sy.complete(request) : sy.stream(request).result();
    const reply = await call.catch(() => undefined);
    if (reply === undefined) return; // a recorded error body: nothing to price
    // The Responses adapter is named `openai-responses` here: it is priced by its provider's own name.
    const priceName = reply.model.replace(/^openai-responses:/, 'openai:');
    const expected = reprice(reply.usage, priceName, defaultPriceTable()).cost;
    if (unpriced.test(reply.model)) {
      expect(expected).toBeUndefined();
      expect(reply.usage.cost).toBeUndefined();
      expect(
        logger.entries.some((entry) => entry.message.includes(`no known price for ${reply.model}`)),
      ).toBe(true);
      return;
    }
    expect(expected, `${reply.model} has a price`).toBeDefined();
    expect(reply.usage.cost).toEqual(expected);
    if (reply.usage.input + reply.usage.output > 0) expect(reply.usage.cost!.amount).toBeGreaterThan(0);
    priced++;
  });

  it('priced the served model of most recordings', () => {
    expect(priced).toBeGreaterThan(40);
  });
});
