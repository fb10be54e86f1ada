/** Locates the recorded provider responses committed in test/fixtures/recorded (see its NOTICE.md). */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The folder of recorded responses inside the repository. */
export const recordedDir = resolve(repoRoot, 'test/fixtures/recorded');

/** Absolute paths of the recorded files directly inside `folder` (e.g. `anthropic`, `openai/chat`). */
export function listRecorded(folder: string): string[] {
  const directory = join(recordedDir, folder);
  return readdirSync(directory, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(directory, entry.name))
    .sort();
}

/** The text of a recorded file. */
export function readRecorded(path: string): string {
  return readFileSync(path, 'utf8');
}
