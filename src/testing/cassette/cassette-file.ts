/** Reading and writing cassette files: pretty JSON, one exchange after another. */

import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { prettyStringify } from './stable-json.ts';
import type { CassetteExchange, CassetteFile } from './types.ts';
import { parseJson } from '../../core/json-text.ts';

/** True when `file` exists. */
export async function cassetteFileExists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** Reads and checks a cassette file, returning its exchanges. */
export async function readCassetteFile(file: string): Promise<CassetteExchange[]> {
  const text = await readFile(file, 'utf8');
  let content: unknown;
  try {
    content = parseJson(text);
  } catch (error) {
    throw new Error(`Cassette ${file} is not valid JSON`, { cause: error });
  }
  if (!isCassetteFile(content)) {
    throw new Error(`Cassette ${file} is not a version 1 cassette ({ "version": 1, "exchanges": [...] })`);
  }
  return content.exchanges;
}

function isCassetteFile(content: unknown): content is CassetteFile {
  if (typeof content !== 'object' || content === null) return false;
  const candidate = content as Partial<CassetteFile>;
  return (
    candidate.version === 1 &&
    Array.isArray(candidate.exchanges) &&
    candidate.exchanges.every(
      (exchange) =>
        typeof exchange?.request?.method === 'string' &&
        typeof exchange.request.url === 'string' &&
        typeof exchange.response?.status === 'number',
    )
  );
}

/**
 * Writes exchanges to `file` as pretty JSON with a trailing newline, creating missing folders.
 * The file is written beside its final path and renamed, so a crash never leaves half a cassette.
 */
export async function writeCassetteFile(file: string, exchanges: readonly CassetteExchange[]): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const content: CassetteFile = { version: 1, exchanges: [...exchanges] };
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temporary, prettyStringify(content), 'utf8');
  await rename(temporary, file);
}
