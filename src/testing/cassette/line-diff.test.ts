/** Line diff: hunks, context and alignment of the text shown in mismatch errors. */

import { describe, expect, it } from 'vitest';
import { createLineDiff } from './line-diff.ts';

const numbered = (count: number, changes: Record<number, string> = {}): string =>
  Array.from({ length: count }, (_, index) => changes[index] ?? `line ${index}`).join('\n');

describe('line diff', () => {
  it('equal texts give an empty diff', () => {
    expect(createLineDiff('a\nb', 'a\nb')).toBe('');
  });

  it('shows a changed line with three lines of context and a hunk header', () => {
    expect(createLineDiff(numbered(10), numbered(10, { 5: 'changed' }))).toBe(
      [
        '@@ -3,7 +3,7 @@',
        '  line 2',
        '  line 3',
        '  line 4',
        '- line 5',
        '+ changed',
        '  line 6',
        '  line 7',
        '  line 8',
      ].join('\n'),
    );
  });

  it('splits distant changes into separate hunks and merges near ones', () => {
    const distant = createLineDiff(numbered(30), numbered(30, { 2: 'x', 25: 'y' }));
    expect(distant.match(/^@@/gm)).toHaveLength(2);
    const near = createLineDiff(numbered(30), numbered(30, { 2: 'x', 8: 'y' }));
    expect(near.match(/^@@/gm)).toHaveLength(1);
  });

  it('shows inserted and removed lines', () => {
    expect(createLineDiff('a\nb\nc', 'a\nc\nd')).toBe(
      ['@@ -1,3 +1,3 @@', '  a', '- b', '  c', '+ d'].join('\n'),
    );
  });
});
