/** `switchyard replay <file> --protocol <name>`: serve a recorded response and run it through the real adapter. */
import { readFileSync, type Stats, statSync } from 'node:fs';
import { extname } from 'node:path';
import { isAdapterError } from '../core/errors/guards.ts';
import type { StreamEvent } from '../core/events.ts';
import { silentLogger } from '../core/logger.ts';
import { userText } from '../core/transcript.ts';
import { emulatorProtocolIds, isEmulatorProtocolId, startEmulator } from '../testing/emulator/index.ts';
import type { ProviderTypeDefinition } from '../registry/provider-type-table.ts';
import { createAdapterFor, defaultModelOf } from './adapters.ts';
import { parseJson } from '../core/json-text.ts';

/** Where the command writes; injectable for tests. */
export interface Output {
  stdout(line: string): void;
  stderr(line: string): void;
}

/** The largest recording `replay` reads. */
export const maxReplayBytes = 64 * 1024 * 1024;

/**
 * Serves `file` from a loopback emulator and runs it through the adapter of the provider-type row `row`, the
 * emulator framing it in the row's wire protocol: a `.chunks.txt`
 * (or `.sse`) as a stream, printing one canonical event per line; a `.json` as a complete call,
 * printing its `finish`. Returns the exit code: 0 on success, 1 on a classified error (the error
 * class goes to stderr after the `finish` the stream produced), 2 on bad usage.
 */
export async function runReplay(file: string, row: ProviderTypeDefinition, output: Output): Promise<number> {
  // One stat, not an existence check first: the file can go (or be unreadable) in between.
  let stats: Stats;
  try {
    stats = statSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    output.stderr(
      `switchyard replay: ${code === 'ENOENT' || code === 'ENOTDIR' ? 'no such file' : `cannot read (${code ?? 'error'})`}: ${file}`,
    );
    return 2;
  }
  // A recording is a regular file of bounded size: never a device (`/dev/zero`), a FIFO or gigabytes.
  if (!stats.isFile()) {
    output.stderr(`switchyard replay: not a regular file: ${file}`);
    return 2;
  }
  if (stats.size > maxReplayBytes) {
    output.stderr(`switchyard replay: ${file} is larger than ${maxReplayBytes / 1024 / 1024} MB`);
    return 2;
  }
  const protocol = row.protocol;
  if (!isEmulatorProtocolId(protocol)) {
    output.stderr(
      `switchyard replay: provider type '${row.type}' speaks ${protocol ?? 'no declared protocol'}, which the emulator does not serve (it serves ${emulatorProtocolIds.join(', ')})`,
    );
    return 2;
  }
  const streaming =
    file.endsWith('.chunks.txt') || file.endsWith('.eventstream.base64.txt') || extname(file) === '.sse';
  const emulator = await startEmulator();
  try {
    const status = streaming ? undefined : inferErrorStatus(file);
    emulator.enqueue({ type: 'replay', file, protocol, ...(status === undefined ? {} : { status }) });
    const adapter = await createAdapterFor(row, {
      baseURL: emulator.url,
      apiKey: 'emulator-key',
      maxRetries: 0,
      logger: silentLogger,
    });
    const request = {
      model: defaultModelOf(row),
      transcript: [userText('Replay the recorded response.')],
      maxOutputTokens: 4096,
    };
    try {
      if (streaming) {
        const events: StreamEvent[] = [];
        try {
          for await (const event of adapter.stream(request)) {
            events.push(event);
            output.stdout(JSON.stringify(event));
          }
        } catch (error) {
          return reportError(error, output);
        }
        return 0;
      }
      try {
        const response = await adapter.complete(request);
        output.stdout(JSON.stringify({ type: 'finish', response }));
        return 0;
      } catch (error) {
        return reportError(error, output);
      }
    } finally {
      await adapter.close();
    }
  } finally {
    await emulator.close();
  }
}

function reportError(error: unknown, output: Output): number {
  if (!isAdapterError(error)) throw error;
  output.stderr(`${error.errorClass}: ${error.message}`);
  return 1;
}

/**
 * A recorded `.json` that is an error body was served with an error status; infer it from the body
 * (Google `error.code`, Anthropic `error.type`, OpenAI `error` objects) so replay classifies it.
 */
export function inferErrorStatus(file: string): number | undefined {
  let body: unknown;
  try {
    body = parseJson(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  const bedrock = bedrockErrorStatus(body);
  if (bedrock !== undefined) return bedrock;
  const error = (Array.isArray(body) ? body[0] : body) as
    { error?: { code?: unknown; type?: unknown } } | undefined;
  if (error?.error === undefined || typeof error.error !== 'object' || error.error === null) return undefined;
  if (typeof error.error.code === 'number' && error.error.code >= 400) return error.error.code;
  const byType: Record<string, number> = {
    overloaded_error: 529,
    rate_limit_error: 429,
    authentication_error: 401,
    permission_error: 403,
    not_found_error: 404,
    request_too_large: 413,
    api_error: 500,
  };
  return typeof error.error.type === 'string' ? (byType[error.error.type] ?? 400) : 400;
}

/**
 * Bedrock error bodies are `{"message": …}` (the exception name travels in a header the recordings
 * lack: a `ValidationException`, 400, for those on record) and `{"Output": {"__type": …}}` for an
 * unknown operation (404).
 */
function bedrockErrorStatus(body: unknown): number | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  if ('output' in record || 'content' in record) return undefined;
  const output = record.Output as { __type?: unknown } | undefined;
  if (typeof output?.__type === 'string') return /UnknownOperation/.test(output.__type) ? 404 : 400;
  return typeof record.message === 'string' && Object.keys(record).length <= 2 ? 400 : undefined;
}
