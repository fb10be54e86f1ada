/** A hand-written reader for the ConverseStream delta events (text, tool input, reasoning text): the stream's hot path without `JSON.parse`. */
import { decodeStringBody, integerOf, jsonStringBody, plainInteger } from '../common/json-string.ts';

/** The delta kinds the scanner reads: each carries one string. */
export type PieceKind = 'text' | 'toolUse' | 'reasoning';

/**
 * A `contentBlockDelta` payload exactly as Bedrock sends it: `contentBlockIndex`, then `delta` with
 * `text`, `toolUse.input` or `reasoningContent.text` (one string), then AWS's optional padding field
 * `"p"` (letters and digits); no whitespace. The capturing group that matched names the kind.
 */
const deltaPayload = new RegExp(
  [
    String.raw`^\{"contentBlockIndex":(${plainInteger}),"delta":\{`,
    `(?:"text":"(${jsonStringBody})"`,
    String.raw`|"toolUse":\{"input":"(${jsonStringBody})"\}`,
    String.raw`|"reasoningContent":\{"text":"(${jsonStringBody})"\})`,
    String.raw`\}(?:,"p":"[A-Za-z0-9]*")?\}$`,
  ].join(''),
);

/**
 * Reads the delta events of a ConverseStream — one per token or tool-input fragment — from the
 * payload text without building the event object. Strict: anything but exactly such a payload (other
 * fields or order, whitespace, a bad escape) makes `scan` return false and the caller parses the
 * payload with `JSON.parse`, so a taken payload yields what `JSON.parse` would have given.
 *
 * One instance per stream; each `scan` overwrites its fields.
 */
export class DeltaScanner {
  kind: PieceKind = 'text';
  index = 0;
  delta = '';

  /** Reads `data`; true when it is a delta payload of the known shape (the fields then hold it). */
  scan(data: string): boolean {
    const match = deltaPayload.exec(data);
    if (match === null) return false;
    this.index = integerOf(match[1]);
    if (match[2] !== undefined) {
      this.kind = 'text';
      this.delta = decodeStringBody(match[2]);
    } else if (match[3] !== undefined) {
      this.kind = 'toolUse';
      this.delta = decodeStringBody(match[3]);
    } else {
      this.kind = 'reasoning';
      this.delta = decodeStringBody(match[4] as string);
    }
    return true;
  }
}
