/** The error a cassette throws when replayed requests do not line up with the recording. */

const marker = Symbol.for('switchyard.error.cassette-mismatch');

/**
 * Why a cassette failed: a request matched no unused exchange (`mismatch`), no exchange was left
 * (`exhausted`), or recorded exchanges were never requested (`unused`).
 */
export type CassetteMismatchReason = 'mismatch' | 'exhausted' | 'unused';

/**
 * Thrown by a replaying cassette when a request does not match the recording, when the recording
 * has run out, and by `assertAllUsed()` when exchanges were left over. The message names the
 * cassette file and, for a mismatch, holds a line diff of the redacted requests; it never holds a
 * secret header value.
 */
export class CassetteMismatchError extends Error {
  override readonly name = 'CassetteMismatchError';
  /** The path of the cassette file. */
  readonly file: string;
  /** What went wrong. */
  readonly reason: CassetteMismatchReason;
  /** Marks cassette errors across copies of this package (see {@link CassetteMismatchError.isInstance}). */
  readonly [marker] = true;

  /** Creates the error; `message` should already name the file. */
  constructor(message: string, details: { file: string; reason: CassetteMismatchReason }) {
    super(message);
    this.file = details.file;
    this.reason = details.reason;
  }

  /** True for a cassette error, even one from another copy of this package. */
  static isInstance(error: unknown): error is CassetteMismatchError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}

/** True when `error` is a {@link CassetteMismatchError}. */
export function isCassetteMismatchError(error: unknown): error is CassetteMismatchError {
  return CassetteMismatchError.isInstance(error);
}
