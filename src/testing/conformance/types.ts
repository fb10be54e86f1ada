/** Options of the public conformance suite: the adapter under test, the test framework, the skip list. */
import type { Adapter } from '../../core/adapter.ts';
import type { Capabilities } from '../../core/capabilities.ts';
import type { createMemoryLogger } from '../../core/logger.ts';
import type { CanonicalRequest } from '../../core/request.ts';
import type { ChatReasoningField, Emulator, EmulatorProtocolId, ServedRequest } from '../emulator/types.ts';

/** A logger that keeps its entries (`createMemoryLogger()`). */
export type MemoryLogger = ReturnType<typeof createMemoryLogger>;

/**
 * The test functions of your framework. Vitest and Jest globals fit as they are
 * (`{describe, it, beforeAll, afterAll}`); for `node:test` pass `beforeAll: before, afterAll: after`
 * and an `it` that calls `test(name, () => body())`. The suite asserts with `node:assert`, so it
 * needs nothing else from the framework.
 */
export interface TestHarness {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: () => Promise<void>): unknown;
  beforeAll(body: () => Promise<void>): unknown;
  afterAll(body: () => Promise<void>): unknown;
}

/** What the suite passes to `createAdapter`: pass all of it to your adapter. */
export interface AdapterSuiteSettings {
  /** The suite reads WARN lines (e.g. the usage estimate fallback). */
  logger: MemoryLogger;
  /** 0 for most cases; the retry cases ask for more. */
  maxRetries: number;
  /** Base of the exponential backoff in ms (small, so retry cases stay fast). */
  retryBaseDelay: number;
}

/** Every case of the suite, by name (the keys of `skip`). */
export const suiteCaseNames = [
  'text',
  'usage',
  'tool-call',
  'tool-id-round-trip',
  'reasoning',
  'finish-reasons',
  'error-classes',
  'status-edge-cases',
  'stream-truncation',
  'retry',
  'retry-exhausted',
  'retry-after',
  'retry-after-cap',
  'cancel-signal',
  'cancel-request-id',
  'cancel-consumer-break',
  'cancel-before-start',
  'capability-fail-cleanly',
  'request-fields',
  'token-count',
] as const;

/** The name of one case of the suite. */
export type SuiteCaseName = (typeof suiteCaseNames)[number];

/** What an adapter registers with the suite. */
export interface AdapterSuiteOptions {
  /** Display name, e.g. `anthropic` or `groq (openai-compatible)`. */
  name: string;
  /** The wire protocol the adapter speaks (the emulator answers in it). */
  protocol: EmulatorProtocolId;
  /** Canonical model id used for every call (`provider:model`). */
  model: string;
  /**
   * Creates the adapter pointed at the emulator. `emulatorUrl` has no path (add your API's prefix,
   * e.g. `${emulatorUrl}/v1`); pass `settings` through; use a dummy API key.
   */
  createAdapter(emulatorUrl: string, settings: AdapterSuiteSettings): Adapter;
  /** Your test framework's functions. */
  harness: TestHarness;
  /**
   * Cases that do not apply to this adapter, each with the reason (a non-empty string). Named,
   * reasoned gaps instead of silent ones: the suite registers a test that lists them and fails on an
   * unknown name or an empty reason. Cases gated by declared capabilities (`tool-*` need `tools`,
   * `reasoning` needs `reasoning` for `model`) are skipped by the capabilities, not by this list.
   */
  skip?: Partial<Record<SuiteCaseName, string>>;
  /**
   * Registers only these cases (by name), e.g. while you fix one behaviour or in a quick pre-commit
   * run; the skip list still applies, and an unknown name fails the registered skip-list test.
   * Default: every case.
   */
  only?: readonly SuiteCaseName[];
  /**
   * `openai-chat` only: the field your host writes reasoning in, which the emulator then writes
   * (default `reasoning_content`). For a preset, its `quirks.reasoningFields[0]`; `reasoning`
   * (Groq, Cerebras) and `reasoning_details` (OpenRouter) hosts' reasoning case needs it.
   */
  chatReasoningField?: ChatReasoningField;
}

/** What each case gets: the emulator, a default adapter, and helpers. */
export interface SuiteContext {
  readonly options: AdapterSuiteOptions;
  readonly emulator: Emulator;
  /** Created once with `maxRetries: 0`. */
  readonly adapter: Adapter;
  readonly logger: MemoryLogger;
  /**
   * Every response the emulator ended, in the order they ended: `complete` is false when the
   * connection closed before the whole response was written (the client aborted it, or a fault).
   */
  readonly served: readonly ServedRequest[];
  /** The capabilities the adapter declares for `options.model`. */
  readonly declared: Capabilities;
  /** A fresh adapter with other settings (closed after the suite); `url` defaults to the emulator. */
  createAdapter(settings?: Partial<AdapterSuiteSettings>, url?: string): Adapter;
  /** A small valid request for `options.model`, with `overrides` applied. */
  request(overrides?: Partial<CanonicalRequest>): CanonicalRequest;
}

/** One case: registered under `title` unless skipped or not applicable to the declared capabilities. */
export interface SuiteCase {
  name: SuiteCaseName;
  title: string;
  applies?(declared: Capabilities): boolean;
  run(context: SuiteContext): Promise<void>;
}
