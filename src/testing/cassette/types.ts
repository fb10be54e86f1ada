/** Types of cassettes: the recorded request/response shapes, the file format and the options. */

import type { JsonValue } from '../../core/json.ts';

/** The signature of the global `fetch`, which every adapter accepts as an injectable option. */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * A request as stored in a cassette, already redacted. Header names are lowercase and sorted; a
 * body that parses as JSON is stored parsed (with sorted keys), any other body as text, and an empty
 * body is left out.
 */
export interface CassetteRequest {
  /** The HTTP method, uppercase. */
  method: string;
  /** The absolute URL, with secret query parameters replaced by `[REDACTED]`. */
  url: string;
  /** Lowercase header names to values; secret headers hold `[REDACTED]`. */
  headers: Record<string, string>;
  /** The parsed JSON body, or the body text when it is not JSON; absent when empty. */
  body?: JsonValue;
}

/**
 * A response as stored in a cassette, already redacted. Exactly one of `body` and `chunks` is set
 * when the response had a body: `chunks` for streamed responses (`text/event-stream`,
 * `application/x-ndjson`), `body` for the rest.
 */
export interface CassetteResponse {
  /** The HTTP status code. */
  status: number;
  /** The status text, when the server sent one. */
  statusText?: string;
  /** Lowercase header names to values, without length, encoding, hop-by-hop and `date` headers. */
  headers: Record<string, string>;
  /**
   * A JSON response as parsed JSON (any value but a string); any other response as its text
   * (a string); with `encoding: 'base64'`, bytes that were not valid UTF-8.
   */
  body?: JsonValue;
  /** Set when `body` holds base64 bytes instead of text. */
  encoding?: 'base64';
  /** The text of each network chunk of a streamed response, in the order read. */
  chunks?: string[];
}

/** One recorded request and the response it received. */
export interface CassetteExchange {
  /** The request as sent (redacted). */
  request: CassetteRequest;
  /** The response as received (redacted). */
  response: CassetteResponse;
}

/** The content of a cassette file. */
export interface CassetteFile {
  /** The format version; always 1. */
  version: 1;
  /** The exchanges, in the order their requests were sent. */
  exchanges: CassetteExchange[];
}

/** What a cassette does: record real exchanges, replay recorded ones, or pick by file presence. */
export type CassetteMode = 'record' | 'replay' | 'auto';

/** Options of {@link createCassette}. */
export interface CassetteOptions {
  /** The path of the JSON cassette file. */
  file: string;
  /** `record`, `replay`, or `auto`: replay when the file exists, record otherwise. */
  mode: CassetteMode;
  /** The real fetch used when recording; defaults to `globalThis.fetch`. */
  fetch?: FetchFunction;
  /** Extra header names to redact, case-insensitive, on top of the built-in list. */
  redactHeaders?: string[];
  /**
   * Whether a recorded request answers an actual one. Both are redacted with this process's
   * redaction before the call, but the recording process may have known secrets this one does not:
   * a recorded `[REDACTED]` can stand for text the actual request still has (`matchesRedacted`
   * compares so). Defaults to {@link matchRequest}: same method, same URL and equal body, a recorded
   * `[REDACTED]` matching any run of characters.
   */
  match?: (recorded: CassetteRequest, actual: CassetteRequest) => boolean;
}

/** A cassette: a `fetch` that records or replays, and the exchanges it holds. */
export interface Cassette {
  /** The `fetch` to inject into an adapter. */
  fetch: FetchFunction;
  /** The mode in use once `auto` is resolved. */
  readonly mode: 'record' | 'replay';
  /** The exchanges recorded so far (record) or loaded from the file (replay). */
  readonly exchanges: CassetteExchange[];
  /** Writes the recorded exchanges to the file, creating its folder; does nothing when replaying. */
  save(): Promise<void>;
  /** Throws a {@link CassetteMismatchError} listing the recorded exchanges no request used. */
  assertAllUsed(): void;
}
