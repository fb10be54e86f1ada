/** A hand-written reader for Gemini's per-token text chunks: the stream's hot path without `JSON.parse`. */
import { decodeStringBody, jsonStringBody } from '../common/json-string.ts';

/** A token count: `0` or up to sixteen digits without a leading zero. */
const count = String.raw`(?:0|[1-9][0-9]{0,15})`;
/** An upper-case enum value (`TEXT`, `ON_DEMAND`). */
const enumValue = String.raw`"[A-Z_]+"`;
const detail = String.raw`\{"modality":${enumValue},"tokenCount":${count}\}`;
/** One `usageMetadata` member: a count, an enum (`trafficType`) or a per-modality list. */
const usageMember = String.raw`"[A-Za-z]+":(?:${count}|${enumValue}|\[(?:${detail}(?:,${detail})*)?\])`;
/** The whole `usageMetadata` object; its text is valid JSON by construction, so it can be parsed later. */
const usage = String.raw`\{${usageMember}(?:,${usageMember})*\}`;
/** The one part: `{"text":"…"}` or a thought `{"text":"…","thought":true}`. Captures the text and the thought flag. */
const part = String.raw`\{"text":"(${jsonStringBody})"(,"thought":true)?\}`;

/**
 * A chunk carrying one text or thought piece, exactly as the Gemini API (parts, then role, `index`
 * 0) or Vertex (role, then parts) sends it: one candidate with one such part and no finish reason,
 * safety ratings or other members; then `usageMetadata`, `modelVersion`, `createTime` and
 * `responseId`, each optional, in that order; no whitespace. Captures: the text and thought flag
 * (of either content order), the `usageMetadata` text and the `responseId` string's text.
 */
const pieceChunk = new RegExp(
  [
    String.raw`^\{"candidates":\[\{"content":\{`,
    String.raw`(?:"parts":\[${part}\],"role":"model"|"role":"model","parts":\[${part}\])`,
    String.raw`\}(?:,"index":0)?\}\]`,
    `(?:,"usageMetadata":(${usage}))?`,
    `(?:,"modelVersion":"${jsonStringBody}")?`,
    `(?:,"createTime":"${jsonStringBody}")?`,
    `(?:,"responseId":"(${jsonStringBody})")?`,
    String.raw`\}$`,
  ].join(''),
);

/**
 * Reads the text and thought chunks of a `streamGenerateContent` stream — one per few tokens,
 * nearly all of a long answer's events — from the `data:` text without building the chunk (a
 * ~300-byte object of which the reader needs a few characters of text: usage repeats on every
 * chunk, and only the last of it is emitted, so its text is kept and parsed when it is read).
 *
 * Strict, not lenient (like the other protocols' scanners): one regular expression checks that the
 * whole text is exactly such a chunk, every member in Gemini's order and valid as JSON. Anything
 * else — a signature, a function call, a finish reason, a second part or candidate, safety ratings,
 * prompt feedback, an error, whitespace, a bad escape — makes `scan` return false and the caller
 * parses the chunk with `JSON.parse`, so malformed JSON still fails there and a taken chunk yields
 * what `JSON.parse` would have given.
 *
 * One instance per stream; each `scan` overwrites its fields.
 */
export class DeltaScanner {
  /** True for a thought (`"thought":true`), false for answer text. */
  thought = false;
  text = '';
  /** The `usageMetadata` object's JSON text (valid JSON by the scan), or undefined without one. */
  usage: string | undefined;
  /** The `responseId`, or undefined without one. */
  responseId: string | undefined;

  /** Reads `data`; true when it is a piece chunk of the known shape (the fields then hold it). */
  scan(data: string): boolean {
    const match = pieceChunk.exec(data);
    if (match === null) return false;
    const first = match[1] !== undefined;
    this.text = decodeStringBody((first ? match[1] : match[3]) as string);
    this.thought = (first ? match[2] : match[4]) !== undefined;
    this.usage = match[5];
    this.responseId = match[6] === undefined ? undefined : decodeStringBody(match[6]);
    return true;
  }
}
