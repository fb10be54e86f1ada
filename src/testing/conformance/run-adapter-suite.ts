/**
 * The public conformance suite: registers the cross-adapter contract as tests of your framework, so
 * any adapter (in this repository or not) proves it is substitutable in a few lines.
 */
import assert from 'node:assert/strict';
import type { Adapter } from '../../core/adapter.ts';
import { createMemoryLogger } from '../../core/logger.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import { userText } from '../../core/transcript.ts';
import { startEmulator } from '../emulator/server.ts';
import type { Emulator, ServedRequest } from '../emulator/types.ts';
import { basicCases } from './cases-basic.ts';
import { cancellationCases } from './cases-cancellation.ts';
import { errorCases } from './cases-errors.ts';
import { requestFieldCases } from './cases-request-fields.ts';
import { retryCases } from './cases-retry.ts';
import { tokenCountCases } from './cases-token-count.ts';
import {
  type AdapterSuiteOptions,
  type AdapterSuiteSettings,
  type SuiteCase,
  type SuiteCaseName,
  type SuiteContext,
  suiteCaseNames,
} from './types.ts';

/** Every case, in the order they are registered. */
export const suiteCases: readonly SuiteCase[] = [
  ...basicCases,
  ...requestFieldCases,
  ...errorCases,
  ...retryCases,
  ...cancellationCases,
  ...tokenCountCases,
];

/** A URL nothing answers, to read declared capabilities before the emulator runs. */
const unusedUrl = 'http://127.0.0.1:9';

/**
 * Registers the conformance suite for one adapter under `describe('conformance: <name>')`: text and
 * tool-call streaming under the stream contract, the tool-id round trip, reasoning, every error
 * class with the protocol's own error bodies, status edge cases, retries and `retry-after`,
 * cancellation, capability fail-cleanly, and the provider's token count where the adapter asks for
 * one — all against the provider emulator on 127.0.0.1.
 *
 * Cases the adapter's declared capabilities rule out (no `tools`, no `reasoning`) are not
 * registered; any other case you leave out goes in `skip` with its reason, and one registered test
 * lists them (and fails for an unknown name or an empty reason).
 *
 * @example
 * import { describe, it, beforeAll, afterAll } from 'vitest';
 * import { runAdapterSuite } from 'switchyard-ai/testing';
 * import { createAnthropic } from 'switchyard-ai/anthropic';
 *
 * runAdapterSuite({
 *   name: 'anthropic',
 *   protocol: 'anthropic-messages',
 *   model: 'anthropic:claude-sonnet-4-5',
 *   harness: { describe, it, beforeAll, afterAll },
 *   createAdapter: (url, settings) => createAnthropic({ ...settings, apiKey: 'test-key', baseURL: `${url}/v1` }),
 * });
 */
export function runAdapterSuite(options: AdapterSuiteOptions): void {
  const { harness } = options;
  const skip = options.skip ?? {};
  const declared = options
    .createAdapter(unusedUrl, { logger: createMemoryLogger(), maxRetries: 0, retryBaseDelay: 1 })
    .capabilities(options.model);
  harness.describe(`conformance: ${options.name}`, () => {
    const logger = createMemoryLogger();
    const created: Adapter[] = [];
    let emulator: Emulator | undefined;
    let context: SuiteContext | undefined;
    const served: ServedRequest[] = [];

    harness.beforeAll(async () => {
      const running = await startEmulator({
        onResponse: (response) => served.push(response),
        ...(options.chatReasoningField === undefined
          ? {}
          : { chatReasoningField: options.chatReasoningField }),
      });
      emulator = running;
      const createAdapter = (settings: Partial<AdapterSuiteSettings> = {}, url = running.url): Adapter => {
        const adapter = options.createAdapter(url, { logger, maxRetries: 0, retryBaseDelay: 1, ...settings });
        created.push(adapter);
        return adapter;
      };
      context = {
        options,
        emulator: running,
        adapter: createAdapter(),
        logger,
        served,
        declared,
        createAdapter,
        request: (overrides = {}): CanonicalRequest => ({
          model: options.model,
          transcript: [userText('Hello')],
          maxOutputTokens: 256,
          ...overrides,
        }),
      };
    });
    harness.afterAll(async () => {
      for (const adapter of created) await adapter.close();
      await emulator?.close();
    });

    harness.it('skip list: every skipped case is a known case with a reason', async () => {
      for (const [name, reason] of Object.entries(skip)) {
        assert.ok((suiteCaseNames as readonly string[]).includes(name), `unknown case in skip: ${name}`);
        assert.ok(typeof reason === 'string' && reason.trim() !== '', `skip.${name} needs a reason`);
      }
      for (const name of options.only ?? [])
        assert.ok((suiteCaseNames as readonly string[]).includes(name), `unknown case in only: ${name}`);
    });

    for (const suiteCase of suiteCases) {
      if (skip[suiteCase.name] !== undefined) continue;
      if (options.only !== undefined && !options.only.includes(suiteCase.name)) continue;
      if (suiteCase.applies !== undefined && !suiteCase.applies(declared)) continue;
      harness.it(suiteCase.title, async () => {
        if (context === undefined) throw new Error('the conformance suite did not start its emulator');
        await suiteCase.run(context);
      });
    }
  });
}

/** The names of the cases registered for an adapter with these capabilities and skip list. */
export function registeredCases(
  declared: Parameters<NonNullable<SuiteCase['applies']>>[0],
  skip: Partial<Record<SuiteCaseName, string>> = {},
): SuiteCaseName[] {
  const names = suiteCases
    .filter((suiteCase) => skip[suiteCase.name] === undefined && (suiteCase.applies?.(declared) ?? true))
    .map((suiteCase) => suiteCase.name);
  return [...new Set(names)];
}
