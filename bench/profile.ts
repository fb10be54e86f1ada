/** Reads a `.cpuprofile` (node --cpu-prof) and prints its hotspots by self time, by file, and inclusive. */
import { readFileSync } from 'node:fs';
import type { CallFrame, CpuProfile, ProfileNode } from './cpu-profile.ts';

/** `file:line` with the repository prefix and `file://` removed. */
function where(frame: CallFrame): string {
  const url = frame.url.replace(/^file:\/\//, '').replace(/^.*?\/(src|bench|node_modules)\//, '$1/');
  return url === '' ? '(native)' : `${url}:${frame.lineNumber + 1}`;
}

function label(frame: CallFrame): string {
  return `${frame.functionName || '(anonymous)'}  ${where(frame)}`;
}

function top(map: Map<string, number>, total: number, count: number): string[] {
  return [...map.entries()]
    .sort((left, right) => right[1] - left[1])
    .slice(0, count)
    .map(
      ([key, micros]) =>
        `${((100 * micros) / total).toFixed(1).padStart(5)}%  ${(micros / 1000).toFixed(1).padStart(8)} ms  ${key}`,
    );
}

/** Prints the report for one profile; `focus` keeps only frames whose URL contains it (inclusive view). */
export function analyze(path: string, count = 30, focus?: string): string {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfTime = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    selfTime.set(id, (selfTime.get(id) ?? 0) + delta);
    total += delta;
  });
  const bySelf = new Map<string, number>();
  const byFile = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, micros] of selfTime) {
    const node = byId.get(id) as ProfileNode;
    const key = label(node.callFrame);
    bySelf.set(key, (bySelf.get(key) ?? 0) + micros);
    const file = where(node.callFrame).replace(/:\d+$/, '');
    byFile.set(file, (byFile.get(file) ?? 0) + micros);
    // Inclusive: credit each distinct ancestor frame once per sample path.
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const frame = (byId.get(current) as ProfileNode).callFrame;
      const ancestor = label(frame);
      if (seen.has(ancestor) || (focus !== undefined && !frame.url.includes(focus))) continue;
      seen.add(ancestor);
      inclusive.set(ancestor, (inclusive.get(ancestor) ?? 0) + micros);
    }
  }
  return [
    `${path}: ${(total / 1000).toFixed(0)} ms sampled`,
    '',
    'self time by function:',
    ...top(bySelf, total, count),
    '',
    'self time by file:',
    ...top(byFile, total, count),
    '',
    `inclusive time${focus === undefined ? '' : ` (frames under ${focus})`}:`,
    ...top(inclusive, total, count),
  ].join('\n');
}

if (import.meta.main) {
  const [path, count, focus] = process.argv.slice(2);
  if (path === undefined) {
    console.error('usage: node profile.ts <file.cpuprofile> [top-count] [url-filter]');
    process.exit(2);
  }
  console.log(analyze(path, count === undefined ? 30 : Number(count), focus));
}
