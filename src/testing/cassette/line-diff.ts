/** A small unified-style line diff, used to show how a request differs from the recorded one. */

/** One line of a diff: kept (` `), only in the expected text (`-`) or only in the actual text (`+`). */
interface DiffLine {
  kind: ' ' | '-' | '+';
  text: string;
}

/** Above this many line pairs the middle is shown as a block removal and insertion, not aligned. */
const MAXIMUM_ALIGNED_PAIRS = 4_000_000;

/**
 * Returns a unified-style diff of two texts: `@@ -line,count +line,count @@` hunk headers, then
 * `- expected` and `+ actual` lines with `context` unchanged lines around each change. Returns an
 * empty string when the texts are equal.
 */
export function createLineDiff(expected: string, actual: string, context = 3): string {
  const lines = diffLines(expected.split('\n'), actual.split('\n'));
  const changed = lines.map((line) => line.kind !== ' ');
  const output: string[] = [];
  let expectedLine = 1;
  let actualLine = 1;
  let index = 0;
  while (index < lines.length) {
    const nextChange = changed.indexOf(true, index);
    if (nextChange < 0) break;
    const start = Math.max(index, nextChange - context);
    for (let skip = index; skip < start; skip++)
      [expectedLine, actualLine] = advance(lines[skip]!, expectedLine, actualLine);
    let end = nextChange;
    while (end < lines.length && changed.slice(end, end + context * 2 + 1).includes(true)) end++;
    end = Math.min(lines.length, end + context);
    const hunk = lines.slice(start, end);
    const removedCount = hunk.filter((line) => line.kind !== '+').length;
    const addedCount = hunk.filter((line) => line.kind !== '-').length;
    output.push(`@@ -${expectedLine},${removedCount} +${actualLine},${addedCount} @@`);
    for (const line of hunk) {
      output.push(`${line.kind} ${line.text}`);
      [expectedLine, actualLine] = advance(line, expectedLine, actualLine);
    }
    index = end;
  }
  return output.join('\n');
}

function advance(line: DiffLine, expectedLine: number, actualLine: number): [number, number] {
  return [expectedLine + (line.kind === '+' ? 0 : 1), actualLine + (line.kind === '-' ? 0 : 1)];
}

/** Aligns two line lists: common prefix and suffix first, then a longest common subsequence. */
function diffLines(expected: string[], actual: string[]): DiffLine[] {
  let prefix = 0;
  while (prefix < expected.length && prefix < actual.length && expected[prefix] === actual[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < expected.length - prefix &&
    suffix < actual.length - prefix &&
    expected[expected.length - 1 - suffix] === actual[actual.length - 1 - suffix]
  ) {
    suffix++;
  }
  const kept = (text: string): DiffLine => ({ kind: ' ', text });
  return [
    ...expected.slice(0, prefix).map(kept),
    ...alignMiddle(
      expected.slice(prefix, expected.length - suffix),
      actual.slice(prefix, actual.length - suffix),
    ),
    ...expected.slice(expected.length - suffix).map(kept),
  ];
}

function alignMiddle(expected: string[], actual: string[]): DiffLine[] {
  const removed = (text: string): DiffLine => ({ kind: '-', text });
  const added = (text: string): DiffLine => ({ kind: '+', text });
  if (expected.length * actual.length > MAXIMUM_ALIGNED_PAIRS) {
    return [...expected.map(removed), ...actual.map(added)];
  }
  const width = actual.length + 1;
  const common = new Uint32Array((expected.length + 1) * width);
  for (let row = expected.length - 1; row >= 0; row--) {
    for (let column = actual.length - 1; column >= 0; column--) {
      common[row * width + column] =
        expected[row] === actual[column]
          ? common[(row + 1) * width + column + 1]! + 1
          : Math.max(common[(row + 1) * width + column]!, common[row * width + column + 1]!);
    }
  }
  const lines: DiffLine[] = [];
  let row = 0;
  let column = 0;
  while (row < expected.length && column < actual.length) {
    if (expected[row] === actual[column]) {
      lines.push({ kind: ' ', text: expected[row++]! });
      column++;
    } else if (common[(row + 1) * width + column]! >= common[row * width + column + 1]!) {
      lines.push(removed(expected[row++]!));
    } else {
      lines.push(added(actual[column++]!));
    }
  }
  return [...lines, ...expected.slice(row).map(removed), ...actual.slice(column).map(added)];
}
