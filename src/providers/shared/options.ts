/** Options every HTTP adapter accepts. */
import type { Logger } from '../../core/logger.ts';

/** Options shared by all adapters (`createAnthropic`, `createOpenAI`, …). */
export interface AdapterOptions {
  /** API key; each adapter also reads its provider's environment variable. */
  apiKey?: string;
  /** Override the endpoint (proxies, gateways, the emulator). */
  baseURL?: string;
  /** Whole-call timeout in ms. Default 600 000. */
  timeout?: number;
  /** Timeout until response headers, in ms. Default 120 000. */
  firstByteTimeout?: number;
  /** Longest silence between stream chunks, in ms. Default 120 000. */
  idleTimeout?: number;
  /** Bounded retries of transient failures; total attempts = 1 + maxRetries. Default 2. */
  maxRetries?: number;
  /** First backoff delay in ms (doubles per retry, jittered). Default 1000. */
  retryBaseDelay?: number;
  /** Headers added to every call. */
  headers?: Record<string, string>;
  /** A custom fetch (proxies, cassettes). */
  fetch?: typeof fetch;
  /**
   * Largest single SSE event accepted, in bytes; a larger one fails the call with a `server_error`
   * (code `response_too_large`). Default 64 MiB (room for inline images).
   */
  maxEventBytes?: number;
  /**
   * Largest whole JSON response body accepted (`complete()`, `listModels()`), in bytes; larger fails
   * with a `server_error` (code `response_too_large`). Default 128 MiB.
   */
  maxBodyBytes?: number;
  /** Where lossy-projection warnings go. Default: JSON lines on stderr. */
  logger?: Logger;
}
