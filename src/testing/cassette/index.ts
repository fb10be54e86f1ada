/** Cassettes: record real HTTP exchanges into committed JSON files and replay them in tests. */

import { cassetteFileExists, readCassetteFile, writeCassetteFile } from './cassette-file.ts';
import { createPlayer } from './player.ts';
import { createRecorder } from './recorder.ts';
import { secretHeaderNames } from './redact.ts';
import { matchRequest } from './replay.ts';
import type { Cassette, CassetteOptions, FetchFunction } from './types.ts';

export { CassetteMismatchError, type CassetteMismatchReason, isCassetteMismatchError } from './errors.ts';
export { createLineDiff } from './line-diff.ts';
export { API_KEY_PATTERNS, REDACTED, SECRET_HEADER_NAMES, SECRET_QUERY_PARAMETERS } from './redact.ts';
export { matchesRedacted, matchesRedactedJson, matchRequest } from './replay.ts';
export type {
  Cassette,
  CassetteExchange,
  CassetteFile,
  CassetteMode,
  CassetteOptions,
  CassetteRequest,
  CassetteResponse,
  FetchFunction,
} from './types.ts';

/**
 * Creates a cassette. In `record` mode its `fetch` sends through the real fetch and keeps a
 * redacted copy of every exchange, written by `save()`; in `replay` mode it answers from the file
 * without touching the network; `auto` replays when the file exists and records otherwise.
 *
 * Secrets never reach the file: request headers named like a credential (`isSecretHeaderName`),
 * secret query parameters, provider API-key shapes, the secrets registered in this process and the
 * values of secret headers wherever they appear are replaced with `[REDACTED]`.
 *
 * @example
 * ```ts
 * const cassette = await createCassette({ file: '__fixtures__/hello.json', mode: 'auto' });
 * const provider = createAnthropic({ apiKey, fetch: cassette.fetch });
 * await provider.complete(request);
 * await cassette.save();
 * cassette.assertAllUsed();
 * ```
 */
export async function createCassette(options: CassetteOptions): Promise<Cassette> {
  const { file } = options;
  const headerNames = secretHeaderNames(options.redactHeaders);
  const replaying =
    options.mode === 'replay' || (options.mode === 'auto' && (await cassetteFileExists(file)));
  if (replaying) {
    const exchanges = await readCassetteFile(file);
    const player = createPlayer({ file, exchanges, headerNames, match: options.match ?? matchRequest });
    return {
      fetch: player.fetch,
      mode: 'replay',
      exchanges,
      save: async () => {},
      assertAllUsed: player.assertAllUsed,
    };
  }
  const realFetch: FetchFunction = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const recorder = createRecorder(realFetch, headerNames);
  return {
    fetch: recorder.fetch,
    mode: 'record',
    get exchanges() {
      return recorder.exchanges();
    },
    save: async () => writeCassetteFile(file, await recorder.settled()),
    assertAllUsed: () => {},
  };
}
