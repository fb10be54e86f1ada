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

/** The web search result URLs an Anthropic recording cites (in `citations` or `citations_delta`). */
export function citedUrls(recording: string): Set<string> {
  const urls = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) {
      const object = value as Record<string, unknown>;
      if (object.type === 'web_search_result_location' && typeof object.url === 'string')
        urls.add(object.url);
      Object.values(object).forEach(visit);
    }
  };
  for (const line of recording.trim().startsWith('{\n') ? [recording] : recording.split('\n'))
    if (line.trim() !== '') visit(JSON.parse(line));
  return urls;
}

/**
 * The service tier a recording says served the call, read from its raw text (not through an
 * adapter): the last `"service_tier": "…"` that names one (`auto` is the request's value echoed by
 * a Responses stream's first events), or `undefined` when none does.
 */
export function recordedServiceTier(path: string): string | undefined {
  const tiers = [...readRecorded(path).matchAll(/"service_tier"\s*:\s*"([A-Za-z_]+)"/g)].map(
    (match) => match[1]!,
  );
  return tiers.filter((tier) => tier !== 'auto').at(-1);
}

/** `usage` with the recording's service tier (see {@link recordedServiceTier}) where it has one. */
export function withRecordedTier<Usage extends object>(usage: Usage, path: string): Usage {
  const tier = recordedServiceTier(path);
  return tier === undefined ? usage : { ...usage, serviceTier: tier };
}
