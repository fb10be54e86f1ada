/** The base error every adapter failure is an instance of. */
import type { ErrorClass } from './error-class.ts';

const marker: unique symbol = Symbol.for('switchyard.error');

/** Fields of an adapter error. */
export interface AdapterErrorOptions {
  message: string;
  errorClass?: ErrorClass;
  /** HTTP status, when the failure came with one. */
  status?: number;
  /** The provider's own error message (never contains our API key). */
  providerMessage?: string;
  /** The provider's error code or type (e.g. `overloaded_error`, `context_length_exceeded`). */
  providerCode?: string;
  /**
   * The provider's own string `code` field, where its error object had one (OpenAI's
   * `error.code`); unlike `providerCode`, never the error's `type` standing in for a missing code.
   */
  upstreamCode?: string;
  /**
   * The provider said it is out of capacity — an overload: Anthropic's `overloaded_error`, a 529, a
   * message saying the model is overloaded — as the adapter's error rules classified it.
   */
  overloaded?: boolean;
  /** Whether the adapter considered it transient (and retried it). */
  retryable?: boolean;
  retryAfterSeconds?: number;
  requestId?: string;
  provider?: string;
  cause?: unknown;
}

/**
 * Base class of all Switchyard adapter errors. Use the `is*Error` guards rather than `instanceof`:
 * they also recognise errors from a second copy of the package.
 */
export class AdapterError extends Error {
  override name = 'AdapterError';
  readonly errorClass: ErrorClass;
  readonly status: number | undefined;
  readonly providerMessage: string | undefined;
  readonly providerCode: string | undefined;
  readonly upstreamCode: string | undefined;
  readonly overloaded: boolean;
  readonly retryable: boolean;
  readonly retryAfterSeconds: number | undefined;
  readonly requestId: string | undefined;
  readonly provider: string | undefined;
  readonly [marker] = true;

  constructor(options: AdapterErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.errorClass = options.errorClass ?? 'other';
    this.status = options.status;
    this.providerMessage = options.providerMessage;
    this.providerCode = options.providerCode;
    this.upstreamCode = options.upstreamCode;
    this.overloaded = options.overloaded ?? false;
    this.retryable = options.retryable ?? false;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.requestId = options.requestId;
    this.provider = options.provider;
  }

  /** True for any Switchyard adapter error, from any copy of the package. */
  static isInstance(value: unknown): value is AdapterError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }

  /** A plain JSON view (for logs and the CLI). */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      errorClass: this.errorClass,
      message: this.message,
      status: this.status,
      providerCode: this.providerCode,
      retryable: this.retryable,
      retryAfterSeconds: this.retryAfterSeconds,
      requestId: this.requestId,
      provider: this.provider,
    };
  }
}
