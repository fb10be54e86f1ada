/**
 * The default transport's body failures (`dispatch.ts` raises them, `http.ts` classifies them):
 * apart from `dispatch.ts`, so a process on another fetch never loads that transport (nor zlib).
 */

/** A compressed body that zlib cannot decode (corrupt gzip, deflate or br data). */
export class BodyDecodingError extends Error {
  override name = 'BodyDecodingError';
  /** The `content-encoding` that failed. */
  readonly coding: string;
  /** zlib's reason (`incorrect header check`, …): names the defect, never holds body bytes. */
  readonly reason: string;
  constructor(coding: string, error: unknown) {
    const reason = String((error as Error)?.message ?? error);
    super(`the body does not decode as ${coding}: ${reason}`);
    this.coding = coding;
    this.reason = reason;
  }
}
