/** "Did you mean": the known name closest to a mistyped one (CLI options, commands, API names). */

/**
 * The candidate closest to `word` if it is close enough to be a typo (at most 2 edits, a
 * transposition counting as one, and fewer edits than half the word), or a prefix of one.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const lower = word.toLowerCase();
  for (const candidate of candidates) {
    // The distance is at least the difference in length, and only 2 edits are ever accepted.
    if (Math.abs(candidate.length - lower.length) > 2) continue;
    const distance = editDistance(lower, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  if (best !== undefined && bestDistance <= Math.min(2, Math.ceil(word.length / 2) - 1)) return best;
  if (word.length >= 2) return candidates.find((candidate) => candidate.startsWith(word.toLowerCase()));
  return undefined;
}

/** Optimal-string-alignment distance: insertions, deletions, substitutions, adjacent transpositions. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, row) =>
    Array.from({ length: b.length + 1 }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)),
  );
  for (let row = 1; row <= a.length; row++) {
    for (let column = 1; column <= b.length; column++) {
      const cost = a[row - 1] === b[column - 1] ? 0 : 1;
      let distance = Math.min(
        rows[row - 1]![column]! + 1,
        rows[row]![column - 1]! + 1,
        rows[row - 1]![column - 1]! + cost,
      );
      if (row > 1 && column > 1 && a[row - 1] === b[column - 2] && a[row - 2] === b[column - 1])
        distance = Math.min(distance, rows[row - 2]![column - 2]! + 1);
      rows[row]![column] = distance;
    }
  }
  return rows[a.length]![b.length]!;
}
