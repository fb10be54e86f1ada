/** The replaying side of a cassette: answers requests from recorded exchanges, each used once. */

import { convertRequest, createExchangeRedaction, snapshotRequest } from './capture.ts';
import { CassetteMismatchError } from './errors.ts';
import { createLineDiff } from './line-diff.ts';
import { redactJson, redactUrl, type Redaction } from './redact.ts';
import { createReplayResponse } from './replay.ts';
import { prettyStringify, sortHeaders, sortKeys } from './stable-json.ts';
import type { CassetteExchange, CassetteRequest, FetchFunction } from './types.ts';

/** What a player needs: the recording, where it came from, and how to compare requests. */
export interface PlayerOptions {
  file: string;
  exchanges: readonly CassetteExchange[];
  headerNames: ReadonlySet<string>;
  match: (recorded: CassetteRequest, actual: CassetteRequest) => boolean;
}

/** A replaying `fetch` and the check that every exchange was used. */
export interface Player {
  /** Answers with the first unused exchange that matches, or throws {@link CassetteMismatchError}. */
  fetch: FetchFunction;
  /** Throws {@link CassetteMismatchError} listing the exchanges no request used. */
  assertAllUsed(): void;
}

/**
 * Creates a player. The actual request is redacted exactly as recordings are before it is
 * matched, so matchers and error messages never see a secret; each recorded request is redacted
 * again the same way, so a secret this process knows but the recording process did not is
 * `[REDACTED]` on both sides. The other way round (a secret only the recording process knew) the
 * recorded side has a `[REDACTED]` where the actual one has text: the default matcher lets it stand
 * for any run of characters.
 */
export function createPlayer(options: PlayerOptions): Player {
  const { file, exchanges, headerNames, match } = options;
  const used = exchanges.map(() => false);

  async function replayFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init);
    if (request.signal.aborted) throw request.signal.reason;
    const snapshot = await snapshotRequest(request);
    const redaction = createExchangeRedaction(headerNames, snapshot);
    const actual = convertRequest(snapshot, redaction);
    const index = exchanges.findIndex(
      (exchange, position) => !used[position] && match(redactRecorded(exchange.request, redaction), actual),
    );
    if (index < 0) throw createMissError(actual);
    used[index] = true;
    return createReplayResponse(exchanges[index]!.response, request.url, request.signal);
  }

  function createMissError(actual: CassetteRequest): CassetteMismatchError {
    const unused = used.flatMap((isUsed, position) => (isUsed ? [] : [position]));
    const target = `${actual.method} ${actual.url}`;
    if (unused.length === 0) {
      const message =
        `Cassette ${file} has no exchange left for ${target}: all ${exchanges.length} recorded ` +
        `exchange(s) were already used. Record the cassette again if the requests changed.`;
      return new CassetteMismatchError(message, { file, reason: 'exhausted' });
    }
    const sameTarget = unused.find((position) => sameMethodAndUrl(exchanges[position]!.request, actual));
    const closest = sameTarget ?? unused[0]!;
    const diff = createLineDiff(printRequest(exchanges[closest]!.request), printRequest(actual));
    const message =
      `Cassette ${file} has no unused exchange matching ${target}.\n` +
      `Closest unused recorded exchange is #${closest + 1} (- expected, + actual):\n` +
      (diff === '' ? '(the requests print the same; the match function rejected them)' : diff);
    return new CassetteMismatchError(message, { file, reason: 'mismatch' });
  }

  function assertAllUsed(): void {
    const unused = exchanges.flatMap((exchange, position) =>
      used[position] ? [] : [`  #${position + 1} ${exchange.request.method} ${exchange.request.url}`],
    );
    if (unused.length === 0) return;
    const message = `Cassette ${file} has ${unused.length} unused exchange(s):\n${unused.join('\n')}`;
    throw new CassetteMismatchError(message, { file, reason: 'unused' });
  }

  return { fetch: replayFetch, assertAllUsed };
}

/** A recorded request redacted again with this process's redaction (its registered secrets). */
function redactRecorded(recorded: CassetteRequest, redaction: Redaction): CassetteRequest {
  const redacted: CassetteRequest = { ...recorded, url: redactUrl(recorded.url, redaction) };
  if (recorded.body !== undefined) redacted.body = redactJson(recorded.body, redaction);
  return redacted;
}

function sameMethodAndUrl(recorded: CassetteRequest, actual: CassetteRequest): boolean {
  return recorded.method.toUpperCase() === actual.method.toUpperCase() && recorded.url === actual.url;
}

/** Prints a request for diffing: fixed field order, sorted headers and body keys. */
function printRequest(request: CassetteRequest): string {
  return prettyStringify({
    method: request.method,
    url: request.url,
    headers: sortHeaders(request.headers ?? {}),
    body: request.body === undefined ? undefined : sortKeys(request.body),
  });
}
