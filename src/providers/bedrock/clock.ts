/**
 * The signing clock of one Bedrock adapter: the local clock plus the offset AWS's answers showed it
 * to be off by. SigV4 signatures carry their time (`X-Amz-Date`) and AWS refuses one more than five
 * minutes from its own (403 `InvalidSignatureException`, "Signature expired: … is now earlier than
 * …" or "Signature not yet current: …"), so a machine whose clock drifted fails every call. As the
 * AWS SDKs do (`@smithy/core` `getUpdatedSystemClockOffset`, `isClockSkewed`; the error names of
 * `@smithy/service-error-classification` `CLOCK_SKEW_ERROR_CODES`), a refusal of that kind whose
 * `Date` header is five minutes or more from the corrected clock sets the offset to the difference;
 * the runtime then signs the attempt again and sends it once more, and later calls sign with it.
 */
import type { ResponseHeaders } from '../common/definition.ts';
import { normalizeExceptionName } from './errors.ts';

/** How far the server's `Date` may be from the corrected clock before the offset is reset (the SDKs' 5 minutes). */
export const clockSkewToleranceMs = 5 * 60_000;

/** The exceptions AWS answers a signature outside its time window with (the SDKs' list, normalized). */
const clockSkewExceptions = new Set([
  'authFailure',
  'invalidSignatureException',
  'requestExpired',
  'requestInTheFuture',
  'requestTimeTooSkewed',
  'signatureDoesNotMatch',
]);

/** The local clock with the offset AWS's answers showed; one per adapter. */
export class SigningClock {
  /** Milliseconds to add to the local clock (AWS's time minus ours); 0 until an answer shows a skew. */
  private offsetMs = 0;
  private readonly localNow: () => number;

  constructor(localNow: () => number = Date.now) {
    this.localNow = localNow;
  }

  /** The corrected time, in milliseconds. */
  now(): number {
    return this.localNow() + this.offsetMs;
  }

  /** The corrected time as SigV4 spells it: `YYYYMMDDTHHMMSSZ`. */
  datetime(): string {
    return new Date(this.now()).toISOString().replace(/[:-]|\.\d{3}/g, '');
  }

  /**
   * Reads a 401/403: when it names a clock-skew exception (`x-amzn-errortype`) and its `Date` is
   * five minutes or more from the corrected clock, the offset becomes AWS's time minus the local
   * one and the answer is true (sign again and resend once). Any other answer leaves the clock as
   * it is and is false: a bad key answered by a server whose clock agrees with ours is not re-sent.
   */
  correct(status: number, headers: ResponseHeaders): boolean {
    if (status !== 401 && status !== 403) return false;
    const name = headers.get('x-amzn-errortype');
    if (name === null || !clockSkewExceptions.has(normalizeExceptionName(name))) return false;
    const serverTime = Date.parse(headers.get('date') ?? '');
    if (!Number.isFinite(serverTime)) return false;
    if (Math.abs(serverTime - this.now()) < clockSkewToleranceMs) return false;
    this.offsetMs = serverTime - this.localNow();
    return true;
  }
}
