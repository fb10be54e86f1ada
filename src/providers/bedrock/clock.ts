/**
 * The signing clock of one Bedrock adapter: the local clock plus the offset AWS's answers showed it
 * to be off by. SigV4 signatures carry their time (`X-Amz-Date`) and AWS refuses one more than five
 * minutes from its own (403 `InvalidSignatureException`, "Signature expired: … is now earlier than
 * …" or "Signature not yet current: …"), so a machine whose clock drifted fails every call. As the
 * AWS SDKs do (`@smithy/core` `getUpdatedSystemClockOffset`, `isClockSkewed`; the error names of
 * `@smithy/service-error-classification` `CLOCK_SKEW_ERROR_CODES`), a refusal of that kind whose
 * `Date` header is five minutes or more from the corrected clock sets the offset to the difference;
 * the runtime then signs the attempt again and sends it once more, and later calls sign with it.
 * A refusal is judged against the time its own request was signed at, so calls already in flight
 * when another call's refusal corrected the clock are re-signed and sent once more too.
 * Unlike the SDKs, the `Date` must be a real HTTP date and the offset is bounded
 * ({@link maxClockOffsetMs}): the header is the answering server's word, and a value the SigV4 time
 * format cannot spell would otherwise break every later signature.
 */
import { AuthError } from '../../core/errors/auth-error.ts';
import type { ResponseHeaders } from '../common/definition.ts';
import { normalizeExceptionName } from './errors.ts';

/** How far the server's `Date` may be from the corrected clock before the offset is reset (the SDKs' 5 minutes). */
export const clockSkewToleranceMs = 5 * 60_000;

/**
 * The largest offset adopted: a day. The common large skews are a wrong time zone (local time kept
 * as UTC: at most 14 hours, UTC+14 to UTC−12) and a clock left behind by a suspend or a missed DST
 * change; a day covers them all. A clock further off than that is broken in a way an offset should
 * not hide (a dead RTC back in 1970 or 2000), and a `Date` that far away is more likely a broken or
 * hostile answer than AWS's time: adopted, it would date every later signature by it (a signature
 * made for days ahead can be replayed until then). Such a refusal is the `auth` error, as before
 * the clock was corrected at all.
 */
export const maxClockOffsetMs = 24 * 60 * 60_000;

const dayName = 'Mon|Tue|Wed|Thu|Fri|Sat|Sun';
const monthNames = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const month = monthNames.join('|');
const timeOfDay = '(?<hours>\\d{2}):(?<minutes>\\d{2}):(?<seconds>\\d{2})';

/** The three forms of an HTTP date (RFC 9110 §5.6.7), case-sensitive as its grammar is. */
const httpDateForms = [
  // `Sun, 06 Nov 1994 08:49:37 GMT`: IMF-fixdate, what AWS sends and the one form a server may generate.
  `(?:${dayName}), (?<day>\\d{2}) (?<month>${month}) (?<year>\\d{4}) ${timeOfDay} GMT`,
  // `Sunday, 06-Nov-94 08:49:37 GMT`: RFC 850's, obsolete, still to be accepted.
  `(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (?<day>\\d{2})-(?<month>${month})-(?<year>\\d{2}) ${timeOfDay} GMT`,
  // `Sun Nov  6 08:49:37 1994`: ANSI C's asctime, obsolete, still to be accepted.
  `(?:${dayName}) (?<month>${month}) (?<day> \\d|\\d{2}) ${timeOfDay} (?<year>\\d{4})`,
].map((form) => new RegExp(`^${form}$`));

/**
 * An HTTP date (RFC 9110 §5.6.7: IMF-fixdate, or the obsolete RFC 850 and asctime forms) →
 * milliseconds; anything else (ISO 8601, a bare year, `Date.parse`'s guesses, a day, hour or minute
 * out of range) → `undefined`. An RFC 850 two-digit year is the one nearest `now` that is not more
 * than 50 years ahead of it, as §5.6.7 requires.
 */
export function parseHttpDate(value: string, now: number): number | undefined {
  const fields = httpDateForms.map((form) => form.exec(value)?.groups).find((groups) => groups !== undefined);
  if (fields === undefined) return undefined;
  const [day, hours, minutes, seconds] = [fields.day, fields.hours, fields.minutes, fields.seconds].map(
    Number,
  );
  const monthIndex = monthNames.indexOf(fields.month!);
  let year = Number(fields.year);
  if (fields.year!.length === 2) {
    const latest = new Date(now).getUTCFullYear() + 50;
    year += Math.floor(latest / 100) * 100;
    if (year > latest) year -= 100;
  }
  // 60 seconds is a leap second.
  if (hours! > 23 || minutes! > 59 || seconds! > 60) return undefined;
  // Date.UTC rolls 31 Feb over into March: the day must exist in its month.
  if (new Date(Date.UTC(year, monthIndex, day)).getUTCDate() !== day) return undefined;
  return Date.UTC(year, monthIndex, day, hours, minutes, seconds);
}

/**
 * `YYYYMMDDTHHMMSSZ`, as SigV4 spells a time; a time outside the years 0000–9999 (which that form
 * cannot spell) is the `auth` error `signing_failed`, never a malformed `X-Amz-Date` on the wire.
 */
export function amzDateOf(time: number): string {
  const date = new Date(time);
  const year = date.getUTCFullYear();
  // An invalid time, or one beyond what a Date holds, has the year NaN: refused too.
  if (!(year >= 0 && year <= 9999))
    throw new AuthError({
      message: `bedrock: cannot sign at ${Number.isNaN(year) ? 'an invalid time' : `the year ${year}`}: SigV4 dates are years 0000–9999 (check the local clock)`,
      provider: 'bedrock',
      providerCode: 'signing_failed',
    });
  return date.toISOString().replace(/[:-]|\.\d{3}/g, '');
}

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
    return amzDateOf(this.now());
  }

  /**
   * Reads a 401/403 of an attempt signed at `signedAt`: when it names a clock-skew exception
   * (`x-amzn-errortype`) and its `Date` (an HTTP date) is five minutes or more from the time that
   * attempt was signed at, the answer is true (sign again and resend once). It is judged against
   * the refused signature's time, not the clock as it is now: a call signed before another call's
   * refusal corrected the clock was refused for the same skew and is re-signed too. The offset
   * changes only when the corrected clock is also five minutes or more from the `Date` (and then to
   * no more than {@link maxClockOffsetMs} from the local clock, else the answer is false). Any other
   * answer leaves the clock as it is and is false: a bad key answered by a server whose clock
   * agrees with the signature's time is not re-sent.
   */
  correct(status: number, headers: ResponseHeaders, signedAt: number): boolean {
    if (status !== 401 && status !== 403) return false;
    const name = headers.get('x-amzn-errortype');
    if (name === null || !clockSkewExceptions.has(normalizeExceptionName(name))) return false;
    const serverTime = parseHttpDate(headers.get('date') ?? '', this.localNow());
    if (serverTime === undefined) return false;
    if (Math.abs(serverTime - signedAt) < clockSkewToleranceMs) return false;
    // Corrected since that attempt was signed (another call's refusal): sign again at the clock as it is.
    if (Math.abs(serverTime - this.now()) < clockSkewToleranceMs) return true;
    const offset = serverTime - this.localNow();
    if (Math.abs(offset) > maxClockOffsetMs) return false;
    this.offsetMs = offset;
    return true;
  }
}
